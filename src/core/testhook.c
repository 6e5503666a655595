/* SPDX-License-Identifier: BSD-3-Clause */
/* The one reader of the FABRICBENCH_TEST_* switches. */
#include <signal.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/num.h"
#include "core/testhook.h"

bool fab_test_switch(const char *name, int *cache)
{
    if (*cache < 0) {
        const char *e = getenv(name);

        *cache = e && strcmp(e, "1") == 0;
    }
    return *cache;
}

/* The rank that the first len bytes of s name (core/num.h: a whole number from 0); -1 when
 * they are not one. */
static long fab_test_rank(const char *s, size_t len)
{
    fab_range_t r = {0, 1e9, false, true, NULL};
    char buf[32], err[256];
    double v;

    if (len >= sizeof(buf))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return fab_num_parse(buf, &r, &v, err, sizeof(err)) == FAB_OK ? (long)v : -1;
}

void fab_test_stop_at(const char *point, int rank)
{
    const char *e = getenv("FABRICBENCH_TEST_STOP_AT"), *p;
    size_t n;

    if (!e || !*e || rank < 0 || !strchr(e, ':'))
        return;
    p = strchr(e, ':');
    if (fab_test_rank(e, (size_t)(p - e)) != rank)
        return;
    p++;
    n = strlen(point);
    if (strncmp(p, point, n) != 0 || (p[n] != '\0' && p[n] != ':'))
        return;
    if (strcmp(p + n, ":hang") == 0)
        for (;;)
            pause();
    raise(SIGSTOP);
}

bool fab_test_peers_drop(int rank)
{
    const char *e = getenv("FABRICBENCH_TEST_PEERS_DROP");

    return e && *e && rank >= 0 && fab_test_rank(e, strlen(e)) == rank;
}

void fab_test_fsize(const char *point)
{
    const char *e = getenv("FABRICBENCH_TEST_FSIZE");
    struct rlimit rl;
    long kib;

    if (!e || !*e || strcmp(point, "world") != 0 || (kib = fab_test_rank(e, strlen(e))) <= 0)
        return;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0) {
        rl.rlim_cur = (rlim_t)kib << 10;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
            rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_FSIZE, &rl);
    }
}

const char *fab_test_fabric_root(int i, char *buf, unsigned len)
{
    const char *v = getenv("FABRICBENCH_TEST_FABRIC"), *comma;
    size_t n;

    if (!v || !(comma = strchr(v, ',')) || len == 0)
        return NULL;
    n = i == 0 ? (size_t)(comma - v) : strlen(comma + 1);
    if (n >= len)
        return NULL;
    memcpy(buf, i == 0 ? v : comma + 1, n);
    buf[n] = '\0';
    return buf;
}
