/* SPDX-License-Identifier: BSD-3-Clause */
/* Which environment variables a run records (core/envrec.h, docs/SCHEMA.md). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/envrec.h"

/* Slurm's output variables (sbatch, salloc and srun, Slurm 22.05) that say where and how the
 * job runs: its and the step's ids, nodes, tasks and their layout, CPUs, memory, GPUs and
 * their binding. Left out: the token (SLURM_JWT), who and where from (user, account, job
 * name, submit host and directory), srun's contact addresses and ports, --export's list. */
static const char *const fab_env_slurm[] = {
    /* the job and the step */
    "SLURM_JOB_ID", "SLURM_JOBID", "SLURM_STEP_ID", "SLURM_STEPID", "SLURM_ARRAY_JOB_ID",
    "SLURM_ARRAY_TASK_ID", "SLURM_HET_SIZE", "SLURM_CLUSTER_NAME", "SLURM_JOB_PARTITION",
    "SLURM_JOB_RESERVATION", "SLURM_MPI_TYPE",
    /* nodes */
    "SLURM_JOB_NODELIST", "SLURM_NODELIST", "SLURM_STEP_NODELIST", "SLURM_JOB_NUM_NODES",
    "SLURM_NNODES", "SLURM_STEP_NUM_NODES", "SLURM_NODEID", "SLURMD_NODENAME",
    "SLURM_TOPOLOGY_ADDR", "SLURM_TOPOLOGY_ADDR_PATTERN",
    /* tasks */
    "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS_PER_NODE",
    "SLURM_NTASKS_PER_SOCKET", "SLURM_NTASKS_PER_CORE", "SLURM_NTASKS_PER_GPU",
    "SLURM_TASKS_PER_NODE", "SLURM_STEP_TASKS_PER_NODE", "SLURM_PROCID", "SLURM_LOCALID",
    "SLURM_GTIDS", "SLURM_DISTRIBUTION", "SLURM_DIST_PLANESIZE", "SLURM_OVERCOMMIT",
    /* CPUs */
    "SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE", "SLURM_JOB_CPUS_PER_NODE", "SLURM_CPUS_PER_GPU",
    "SLURM_THREADS_PER_CORE", "SLURM_CPU_BIND", "SLURM_CPU_BIND_TYPE", "SLURM_CPU_BIND_LIST",
    "SLURM_CPU_BIND_VERBOSE", "SLURM_CPU_FREQ_REQ",
    /* memory */
    "SLURM_MEM_PER_NODE", "SLURM_MEM_PER_CPU", "SLURM_MEM_PER_GPU", "SLURM_MEM_BIND",
    "SLURM_MEM_BIND_TYPE", "SLURM_MEM_BIND_LIST", "SLURM_MEM_BIND_PREFER", "SLURM_MEM_BIND_SORT",
    "SLURM_MEM_BIND_VERBOSE",
    /* GPUs */
    "SLURM_GPUS", "SLURM_GPUS_ON_NODE", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_SOCKET",
    "SLURM_GPUS_PER_TASK", "SLURM_GPU_BIND", "SLURM_GPU_FREQ", "SLURM_JOB_GPUS", "SLURM_STEP_GPUS",
    "SLURM_SHARDS_ON_NODE"};

/* Parts of an Open MPI or UCX parameter name (between '_', any case) whose value is not a
 * setting but a command or its arguments (plm_rsh_agent, orte_launch_agent, orte_fork_agent,
 * plm_rsh_args, plm_slurm_args, orte_base_user_debugger, orte_xterm, UCX_GDB_COMMAND, ROMIO's
 * configure_params), other variables (mca_base_env_list, mca_base_envar_file_prefix,
 * plm_rsh_pass_environ_mca_params), a running job's contact address (orte_hnp_uri,
 * orte_local_daemon_uri, orte_server, ess_singleton_server) or a mail address
 * (UCX_ERROR_MAIL_TO). From `ompi_info --all --parsable` of Open MPI 4.1 and `ucx_info -c` of
 * UCX 1.13. */
static const char *const fab_env_carriers[] = {
    "agent", "agents", "args",    "argv", "cmd",    "command", "configure", "debugger",
    "env",   "envar",  "environ", "mail", "server", "uri",     "url",       "xterm"};
/* Whole names (after OMPI_MCA_) of the same kind that no part gives away. */
static const char *const fab_env_carrier_names[] = {"orte_report_events"};

static const char *const fab_env_secret_words[] = {"KEY",  "TOKEN", "SECRET", "PASSW", "CRED",
                                                   "AUTH", "JWT",   "COOKIE", "CERT"};

static bool fab_has_prefix(const char *s, size_t n, const char *prefix)
{
    size_t p = strlen(prefix);

    return n >= p && strncmp(s, prefix, p) == 0;
}

/* Whether the part (n bytes) contains word, any case. */
static bool fab_part_has(const char *part, size_t n, const char *word)
{
    size_t w = strlen(word);

    for (size_t i = 0; i + w <= n; i++)
        if (strncasecmp(part + i, word, w) == 0)
            return true;
    return false;
}

bool fab_env_secret_name(const char *name, size_t n)
{
    for (size_t at = 0; at < n;) {
        size_t len = 0;

        while (at + len < n && name[at + len] != '_')
            len++;
        if (!(len == 4 &&
              (strncasecmp(name + at, "PKEY", 4) == 0 || strncasecmp(name + at, "RKEY", 4) == 0)))
            for (size_t i = 0; i < sizeof(fab_env_secret_words) / sizeof(*fab_env_secret_words);
                 i++)
                if (fab_part_has(name + at, len, fab_env_secret_words[i]))
                    return true;
        at += len + 1;
    }
    return false;
}

/* An Open MPI or UCX parameter (the name after its prefix) whose value is no setting. */
static bool fab_env_carrier(const char *param, size_t n)
{
    for (size_t i = 0; i < sizeof(fab_env_carrier_names) / sizeof(*fab_env_carrier_names); i++)
        if (strlen(fab_env_carrier_names[i]) == n &&
            strncasecmp(param, fab_env_carrier_names[i], n) == 0)
            return true;
    for (size_t at = 0; at < n;) {
        size_t len = 0;

        while (at + len < n && param[at + len] != '_')
            len++;
        if (len >= 12 && strncasecmp(param + at, "precondition", 12) == 0)
            return true; /* orte_precondition_transports: the job's transport key */
        for (size_t i = 0; i < sizeof(fab_env_carriers) / sizeof(*fab_env_carriers); i++)
            if (strlen(fab_env_carriers[i]) == len &&
                strncasecmp(param + at, fab_env_carriers[i], len) == 0)
                return true;
        at += len + 1;
    }
    return false;
}

bool fab_env_allowed(const char *name, size_t n, fab_env_ours_fn ours)
{
    const char *het = NULL;
    size_t base = n;

    if (fab_has_prefix(name, n, "OMPI_MCA_"))
        return n > 9 && !fab_env_carrier(name + 9, n - 9);
    if (fab_has_prefix(name, n, "UCX_"))
        return n > 4 && !fab_env_carrier(name + 4, n - 4);
    if (fab_has_prefix(name, n, "FABRICBENCH_"))
        return ours && ours(name, n);
    /* a heterogeneous job's component: SLURM_..._HET_GROUP_N */
    for (size_t i = 0; i + 11 < n; i++)
        if (strncmp(name + i, "_HET_GROUP_", 11) == 0)
            het = name + i;
    if (het) {
        const char *d = het + 11;

        if (d == name + n)
            return false;
        for (; d < name + n; d++)
            if (!isdigit((unsigned char)*d))
                return false;
        base = (size_t)(het - name);
    }
    for (size_t i = 0; i < sizeof(fab_env_slurm) / sizeof(*fab_env_slurm); i++)
        if (strlen(fab_env_slurm[i]) == base && strncmp(name, fab_env_slurm[i], base) == 0)
            return true;
    return false;
}

/* Whether s contains needle, any case. */
static bool fab_contains(const char *s, const char *needle)
{
    return fab_part_has(s, strlen(s), needle);
}

static bool fab_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* A JSON Web Token: "eyJ" (base64url of '{"') and two more dot-separated base64url parts. */
static bool fab_looks_jwt(const char *v)
{
    for (const char *p = strstr(v, "eyJ"); p; p = strstr(p + 1, "eyJ")) {
        const char *q = p;
        int parts = 0;

        while (parts < 3) {
            const char *start = q;

            while (isalnum((unsigned char)*q) || *q == '-' || *q == '_')
                q++;
            if (q - start < 4)
                break;
            parts++;
            if (*q != '.')
                break;
            q++;
        }
        if (parts >= 3)
            return true;
    }
    return false;
}

bool fab_env_secret_value(const char *v)
{
    static const char *const keys[] = {"-----BEGIN", ".ssh/",    "id_rsa",
                                       "id_dsa",     "id_ecdsa", "id_ed25519"};
    static const char *const suffixes[] = {".pem", ".key", ".p12", ".pfx", ".jks"};

    for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
        if (fab_contains(v, keys[i]))
            return true;
    /* a key file: NAME.key, NAME.pem, ... at the end of a word (a path, a list item) */
    for (const char *p = v; *p; p++)
        for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
            size_t s = strlen(suffixes[i]);

            if (strncasecmp(p, suffixes[i], s) == 0 && !fab_word_char(p[s]) && p > v &&
                fab_word_char(p[-1]))
                return true;
        }
    /* an assignment inside the value to a secret-looking name: AWS_SECRET_ACCESS_KEY=... */
    for (const char *eq = strchr(v, '='); eq; eq = strchr(eq + 1, '=')) {
        const char *start = eq;

        while (start > v && fab_word_char(start[-1]))
            start--;
        if (start < eq && fab_env_secret_name(start, (size_t)(eq - start)))
            return true;
    }
    return fab_looks_jwt(v);
}

fab_env_rule_t fab_env_rule(const char *kv, fab_env_ours_fn ours)
{
    const char *eq = strchr(kv, '=');
    size_t n = eq ? (size_t)(eq - kv) : strlen(kv);

    if (!eq || n == 0 || fab_env_secret_name(kv, n) || !fab_env_allowed(kv, n, ours))
        return FAB_ENV_SKIP;
    return fab_env_secret_value(eq + 1) ? FAB_ENV_WITHHOLD : FAB_ENV_RECORD;
}

const char *fab_env_value(const char *name)
{
    const char *v = getenv(name);

    if (!v)
        return "";
    return fab_env_secret_value(v) ? FAB_ENV_WITHHELD : v;
}

const char *fab_env_shown(const char *name, const char *value)
{
    size_t n = strlen(name);

    if (fab_env_secret_name(name, n) || !fab_env_allowed(name, n, NULL))
        return "(not recorded)";
    return fab_env_secret_value(value) ? FAB_ENV_WITHHELD : value;
}
