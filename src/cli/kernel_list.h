/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel list of `fabricbench run LIST`: names checked against the build's kernels, and
 * each kernel with an axis option expanded into one instance per value. */
#ifndef FAB_CLI_KERNEL_LIST_H
#define FAB_CLI_KERNEL_LIST_H

#include <stddef.h>

#include "cli/opts.h"
#include "core/status.h"

/* LIST (comma-separated names, each once) into o->launch.kernels; usage errors name the entry. */
fab_status_t fab_kernel_list_parse(const char *list, fab_opts_t *o, char *err, size_t errlen,
                                   char *hint, size_t hintlen);
/* Replace every kernel with an axis option (fab_kernel_t.axis) by one instance per value of
 * that option, in the order given; called once the kernels' options are parsed. */
fab_status_t fab_kernel_list_expand(fab_opts_t *o, char *err, size_t errlen, char *hint,
                                    size_t hintlen);

#endif
