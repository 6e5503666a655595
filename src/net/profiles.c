/* SPDX-License-Identifier: BSD-3-Clause */
/* The fabric profile table (net/profiles.h): where it is, and reading it. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"
#include "net/profiles.h"

#ifndef FAB_DATADIR
#define FAB_DATADIR "/usr/local/share/fabricbench"
#endif
#ifndef FAB_SOURCE_DATADIR
#define FAB_SOURCE_DATADIR ""
#endif

/* The profile table: --fabrics-file, else next to the executable (bin/../share/fabricbench:
 * an installed tree, or a build directory inside the source tree), else the install prefix,
 * else the source tree this binary was built from. */
bool fab_profiles_path(const fab_netopts_t *o, char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n;

    if (o->fabrics_file) {
        snprintf(out, len, "%s", o->fabrics_file);
        return true;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        char *slash;

        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char real[PATH_MAX];

            if (snprintf(out, len, "%s/../share/fabricbench/fabrics.conf", exe) < (int)len &&
                access(out, R_OK) == 0) {
                if (realpath(out, real) && strlen(real) < len)
                    strcpy(out, real);
                return true;
            }
        }
    }
    snprintf(out, len, "%s/fabrics.conf", FAB_DATADIR);
    if (access(out, R_OK) == 0)
        return true;
    snprintf(out, len, "%s/fabrics.conf", FAB_SOURCE_DATADIR);
    return FAB_SOURCE_DATADIR[0] && access(out, R_OK) == 0;
}

/* key = value into the profile: s is the line cut at its '=' (eq); key ?= value keeps a value
 * already in the environment (UCX_* and OMPI_MCA_* only). */
static fab_status_t fab_profile_set(fab_profile_t *cur, char *s, char *eq, const char *path,
                                    int lineno, char *msg, size_t msglen)
{
    bool soft = eq > s && eq[-1] == '?';
    char *key, *val = fab_trim(eq + 1);

    if (soft)
        eq[-1] = '\0';
    key = fab_trim(s);
    if (soft && strncmp(key, "UCX_", 4) != 0 && strncmp(key, "OMPI_MCA_", 9) != 0) {
        snprintf(msg, msglen,
                 "%s line %d: '?=' (keep the environment's value) is for UCX_* and "
                 "OMPI_MCA_* only, not '%s'",
                 path, lineno, key);
        return FAB_ERR_USAGE;
    }
    if (strcmp(key, "match") == 0)
        snprintf(cur->match, sizeof(cur->match), "%s", val);
    else if (strcmp(key, "expect") == 0)
        snprintf(cur->expect, sizeof(cur->expect), "%s", val);
    else if (strcmp(key, "description") == 0)
        snprintf(cur->description, sizeof(cur->description), "%s", val);
    else if ((strncmp(key, "UCX_", 4) == 0 || strncmp(key, "OMPI_MCA_", 9) == 0) &&
             cur->nenv < FAB_MAX_PENV) {
        snprintf(cur->env_name[cur->nenv], sizeof(cur->env_name[0]), "%s", key);
        snprintf(cur->env_val[cur->nenv], sizeof(cur->env_val[0]), "%s", val);
        cur->env_soft[cur->nenv] = soft;
        cur->nenv++;
    } else {
        snprintf(msg, msglen,
                 "%s line %d: unknown key '%s' (match, expect, description, UCX_*, "
                 "OMPI_MCA_*)",
                 path, lineno, key);
        return FAB_ERR_USAGE;
    }
    return FAB_OK;
}

/* One line of the table (trimmed, neither empty nor a comment): a [section] starts the profile
 * *cur, a key = value goes into it. */
static fab_status_t fab_profile_line(char *s, const char *path, int lineno, fab_profile_t *p,
                                     int *np, fab_profile_t **cur, char *msg, size_t msglen)
{
    char *eq;

    if (*s == '[') {
        char *end = strchr(s, ']');

        if (!end || end == s + 1 || *np >= FAB_MAX_PROFILES) {
            snprintf(msg, msglen, "%s line %d: a bad or one too many [section]", path, lineno);
            return FAB_ERR_USAGE;
        }
        *end = '\0';
        *cur = &p[(*np)++];
        memset(*cur, 0, sizeof(**cur));
        snprintf((*cur)->name, sizeof((*cur)->name), "%s", s + 1);
        return FAB_OK;
    }
    eq = strchr(s, '=');
    if (!eq || !*cur) {
        snprintf(msg, msglen, "%s line %d: expected [name] or key = value", path, lineno);
        return FAB_ERR_USAGE;
    }
    *eq = '\0';
    return fab_profile_set(*cur, s, eq, path, lineno, msg, msglen);
}

fab_status_t fab_profiles_load(const char *path, fab_profile_t *p, int *np, char *msg,
                               size_t msglen)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int lineno = 0;
    fab_profile_t *cur = NULL;
    fab_status_t st = FAB_OK;
    struct stat sb;
    size_t total = 0;

    *np = 0;
    if (!f) {
        snprintf(msg, msglen, "cannot read the fabric profile table %s", path);
        return FAB_ERR_ENV;
    }
    /* A device (/dev/zero) would be read for ever: a table is a file or a pipe (<(...)) */
    if (fstat(fileno(f), &sb) != 0 || !(S_ISREG(sb.st_mode) || S_ISFIFO(sb.st_mode))) {
        snprintf(msg, msglen, "the fabric profile table %s is not a regular file or a pipe", path);
        fclose(f);
        return FAB_ERR_USAGE;
    }
    while (st == FAB_OK && fgets(line, sizeof(line), f)) {
        char *s;

        total += strlen(line);
        if (total > (1 << 20)) {
            snprintf(msg, msglen, "the fabric profile table %s is over 1 MiB", path);
            st = FAB_ERR_USAGE;
            break;
        }
        s = fab_trim(line);
        lineno++;
        if (*s && *s != '#')
            st = fab_profile_line(s, path, lineno, p, np, &cur, msg, msglen);
    }
    fclose(f);
    for (int i = 0; st == FAB_OK && i < *np; i++)
        if (!p[i].match[0]) {
            snprintf(msg, msglen, "%s: profile [%s] has no match rule", path, p[i].name);
            st = FAB_ERR_USAGE;
        }
    return st;
}
