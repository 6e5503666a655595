/* SPDX-License-Identifier: BSD-3-Clause */
/* Which environment variables a run records (docs/SCHEMA.md, "The recorded environment"): an
 * allow-list of the variables that shape a run, a fence of secret-looking names behind it, and
 * values that look like secrets withheld. The one place for that rule: the env group, the JSON
 * env object, the Slurm attributes and the fabric profile's settings all go through it. */
#ifndef FAB_CORE_ENVREC_H
#define FAB_CORE_ENVREC_H

#include <stdbool.h>
#include <stddef.h>

/* What a recorded value is replaced with when it looks like it carries a secret. */
#define FAB_ENV_WITHHELD "(withheld: the value looks like a secret)"

/* FABRICBENCH_* names the program reads (its options' variables, its test switches): the only
 * FABRICBENCH_ variables recorded. name is n bytes, not terminated. */
typedef bool (*fab_env_ours_fn)(const char *name, size_t n);

typedef enum {
    FAB_ENV_SKIP,     /* not recorded at all */
    FAB_ENV_RECORD,   /* recorded as it is */
    FAB_ENV_WITHHOLD, /* recorded with the value FAB_ENV_WITHHELD */
} fab_env_rule_t;

/* The rule for one "NAME=value" of the environment. ours may be NULL (no FABRICBENCH_). */
fab_env_rule_t fab_env_rule(const char *kv, fab_env_ours_fn ours);
/* Whether the name (n bytes) is on the allow-list: the Slurm list, UCX_ and OMPI_MCA_ but
 * for parameters that take commands, environments, keys or contact addresses, ours. */
bool fab_env_allowed(const char *name, size_t n, fab_env_ours_fn ours);
/* Whether a name (n bytes) looks like a secret's: a part (between '_') with KEY, TOKEN,
 * SECRET, PASSW, CRED, AUTH, JWT, COOKIE or CERT in it (any case); InfiniBand's PKEY and
 * RKEY parts are network parameters, not secrets. */
bool fab_env_secret_name(const char *name, size_t n);
/* Whether a value looks like it carries a secret: an assignment to a secret-looking name
 * (AWS_SECRET_ACCESS_KEY=...), a private key or its path (.ssh/, id_rsa, *.pem, *.key,
 * -----BEGIN), a JSON Web Token (eyJ...). */
bool fab_env_secret_value(const char *value);
/* getenv(name) as it may be recorded: "" when unset, FAB_ENV_WITHHELD when the value looks
 * like a secret. */
const char *fab_env_value(const char *name);
/* A setting NAME=value (a fabric profile's) as it may be recorded and printed: value,
 * FAB_ENV_WITHHELD, or "(not recorded)" for a name off the allow-list (FABRICBENCH_ too). */
const char *fab_env_shown(const char *name, const char *value);

#endif
