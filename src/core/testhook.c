/* SPDX-License-Identifier: BSD-3-Clause */
/* The one reader of the FABRICBENCH_TEST_* switches. */
#include <stdlib.h>
#include <string.h>

#include "core/testhook.h"

bool fab_test_switch(const char *name, int *cache)
{
    if (*cache < 0) {
        const char *e = getenv(name);

        *cache = e && strcmp(e, "1") == 0;
    }
    return *cache;
}
