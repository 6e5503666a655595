/* SPDX-License-Identifier: BSD-3-Clause */
/* The fabric profile table (share/fabricbench/fabrics.conf, or --fabrics-file; docs/FABRICS.md):
 * [name] sections of a match rule, the transports that count, a description and UCX_* /
 * OMPI_MCA_* variables (NAME ?= value: a value already in the environment wins). */
#ifndef FAB_NET_PROFILES_H
#define FAB_NET_PROFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/netopts.h"
#include "core/status.h"

#define FAB_MAX_PROFILES 32
#define FAB_MAX_PENV     12

typedef struct fab_profile {
    char name[32], match[32], expect[128], description[160];
    int nenv;
    char env_name[FAB_MAX_PENV][64], env_val[FAB_MAX_PENV][256];
    bool env_soft[FAB_MAX_PENV]; /* NAME ?= value: a value already in the environment wins */
} fab_profile_t;

/* The table's path into out: --fabrics-file, else next to the executable, else the install
 * prefix, else the source tree; false when none is there. */
bool fab_profiles_path(const fab_netopts_t *o, char *out, size_t len);
/* The table at path into p (FAB_MAX_PROFILES of them), *np profiles. FAB_ERR_ENV when it cannot
 * be opened; FAB_ERR_USAGE, msg saying why, for neither a file nor a pipe, over 1 MiB, a bad line
 * or a profile without a match rule. */
fab_status_t fab_profiles_load(const char *path, fab_profile_t *p, int *np, char *msg,
                               size_t msglen);

#endif
