/* SPDX-License-Identifier: BSD-3-Clause */
/* Test-only switches: FABRICBENCH_TEST_<NAME>=1 in the environment makes code paths that
 * cannot be provoked from outside (a wrong reduction, corrupted data) happen, so the tests
 * can prove they are caught. docs/DEVELOPING.md lists them. */
#ifndef FAB_CORE_TESTHOOK_H
#define FAB_CORE_TESTHOOK_H

#include <stdbool.h>

/* Whether the variable `name` is "1", read once into *cache (initialise it to -1). */
bool fab_test_switch(const char *name, int *cache);

#endif
