/* SPDX-License-Identifier: BSD-3-Clause */
/* The unit tests' command lines: fabricbench's option parser on "fabricbench" and n words, its
 * message in err (256 bytes) and its hint in fab_test_hint. */
#ifndef FAB_TEST_OPTPARSE_H
#define FAB_TEST_OPTPARSE_H

#include <stdarg.h>

#include "cli/options.h"
#include "cli/opts.h"

static char fab_test_hint[256]; /* the last parse's hint */

static fab_status_t fab_test_parse(fab_opts_t *o, fab_cmd_t *cmd, char *err, int n, ...)
{
    char *argv[32];
    va_list ap;

    if (n > 31)
        return FAB_ERR_INTERNAL;
    va_start(ap, n);
    argv[0] = "fabricbench";
    for (int i = 0; i < n; i++)
        argv[i + 1] = va_arg(ap, char *);
    va_end(ap);
    return fab_opts_parse(n + 1, argv, cmd, o, err, 256, fab_test_hint, sizeof(fab_test_hint));
}

#endif
