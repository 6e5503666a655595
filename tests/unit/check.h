/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal check macro set for the unit tests: every failure is printed, the count decides
 * the exit code. */
#ifndef FAB_TEST_CHECK_H
#define FAB_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int fab_test_failures;
static int fab_test_checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        fab_test_checks++;                                                                         \
        if (!(cond)) {                                                                             \
            fab_test_failures++;                                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        fab_test_checks++;                                                                         \
        if (!(fabs(a_ - b_) <= (tol))) {                                                           \
            fab_test_failures++;                                                                   \
            fprintf(stderr, "%s:%d: %s = %.12g, expected %.12g (+-%g)\n", __FILE__, __LINE__, #a,  \
                    a_, b_, (double)(tol));                                                        \
        }                                                                                          \
    } while (0)

static inline int fab_test_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, fab_test_checks, fab_test_failures);
    return fab_test_failures ? 1 : 0;
}

#endif
