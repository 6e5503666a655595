/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel list of `fabricbench run LIST`: names checked against the build's kernels, and
 * each kernel with an axis option expanded into one instance per value. */
#ifndef FAB_CLI_KERNEL_LIST_H
#define FAB_CLI_KERNEL_LIST_H

#include <stddef.h>
#include <stdio.h>

#include "cli/opts.h"
#include "core/status.h"

/* The kernels' families (fab_kernel_t.family), each once, in registry order, into names[0 ..
 * max-1]; returns how many. */
int fab_kernel_families(const char **names, int max);
/* Family f's kernels as a list: "put_lat,get_lat,...". */
void fab_kernel_family_list(const char *f, char *buf, size_t len);

/* `list` and `run --help`, after the kernels: the families and their kernels, each line after
 * indent. */
void fab_kernel_families_print(FILE *f, const char *indent);

/* LIST (comma-separated names of kernels or families, each kernel once) into o->launch.kernels:
 * a family stands for its kernels in registry order; usage errors name the entry. */
fab_status_t fab_kernel_list_parse(const char *list, fab_opts_t *o, char *err, size_t errlen,
                                   char *hint, size_t hintlen);
/* Replace every kernel with an axis option (fab_kernel_t.axis) by one instance per value of
 * that option, in the order given; called once the kernels' options are parsed. */
fab_status_t fab_kernel_list_expand(fab_opts_t *o, char *err, size_t errlen, char *hint,
                                    size_t hintlen);
/* --split (o->meas.split_text): parsed into o->meas.split; refused (FAB_ERR_USAGE) with the
 * adaptive rounds, whose agreements span every rank, with nccl-tests' formats (a row per size)
 * and for a kernel that is not a collective of all ranks. Called once the kernels and the policy
 * are known. */
fab_status_t fab_kernel_list_split(fab_opts_t *o, char *err, size_t errlen, char *hint,
                                   size_t hintlen);

#endif
