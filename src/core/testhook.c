/* SPDX-License-Identifier: BSD-3-Clause */
/* The one reader of the FABRICBENCH_TEST_* switches. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/testhook.h"

bool fab_test_switch(const char *name, int *cache)
{
    if (*cache < 0) {
        const char *e = getenv(name);

        *cache = e && strcmp(e, "1") == 0;
    }
    return *cache;
}

void fab_test_stop_at(const char *point, int rank)
{
    const char *e = getenv("FABRICBENCH_TEST_STOP_AT"), *p;
    char *end;
    long r;
    size_t n;

    if (!e || !*e || rank < 0)
        return;
    r = strtol(e, &end, 10);
    if (end == e || *end != ':' || r != rank)
        return;
    p = end + 1;
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
    char *end;
    long r;

    if (!e || !*e)
        return false;
    r = strtol(e, &end, 10);
    return end != e && !*end && r == rank;
}
