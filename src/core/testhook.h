/* SPDX-License-Identifier: BSD-3-Clause */
/* Test-only switches: FABRICBENCH_TEST_<NAME>=1 in the environment makes code paths that
 * cannot be provoked from outside (a wrong reduction, corrupted data) happen, so the tests
 * can prove they are caught. docs/DEVELOPING.md lists them. */
#ifndef FAB_CORE_TESTHOOK_H
#define FAB_CORE_TESTHOOK_H

#include <stdbool.h>

/* Whether the variable `name` is "1", read once into *cache (initialise it to -1). */
bool fab_test_switch(const char *name, int *cache);
/* FABRICBENCH_TEST_STOP_AT=RANK:POINT[:hang]: the rank (from the launcher before MPI_Init)
 * stops itself with SIGSTOP at that point of start-up or the end (fab_watch_startup's keys:
 * parse, fabric, init, world, finalize, exit), or hangs there in a sleep (":hang"), so the
 * tests can prove that the start-up and end guards bound them. */
void fab_test_stop_at(const char *point, int rank);
/* FABRICBENCH_TEST_PEERS_DROP=RANK: that rank drops every datagram its watchdog's side channel
 * receives, as a firewall in front of it would, so the tests see the fallback. */
bool fab_test_peers_drop(int rank);
/* FABRICBENCH_TEST_FSIZE=KIB: at start-up point `world` (after MPI_Init, whose shared-memory
 * files need more) this process's file-size limit becomes KIB KiB, as a small `ulimit -f`
 * would make it, so a test reaches the limit with few rows on a busy machine. */
void fab_test_fsize(const char *point);

/* FABRICBENCH_TEST_FABRIC=A,B: the fabric counters' readings (net/fabcount.h) come from the
 * fixture trees A and B in turn (A at a window's start, B at its end) instead of this host, so
 * the tests see counters grow; NULL when unset, else the i-th root (0 or 1) in buf. */
const char *fab_test_fabric_root(int i, char *buf, unsigned len);
#endif
