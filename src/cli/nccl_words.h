/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl-tests' words on `fabricbench run`'s command line (cli/nccl_words.c): its letters that
 * clash with fabricbench's, its sweep, types and in-place variants, turned into fabricbench's
 * options. docs/METRICS.md, "nccl-tests' options and formats". */
#ifndef FAB_CLI_NCCL_WORDS_H
#define FAB_CLI_NCCL_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/opts.h"
#include "core/status.h"

/* -d/--datatype's check: a type nccl-tests names that fabricbench measures. */
fab_status_t fab_nccl_datatype_check(const char *val, char *err, size_t errlen);
/* argv as fabricbench reads it into out (at most outmax words, *outc of them): with
 * --nccl-tests, -i -w -o -c as nccl-tests' --stepbytes --warmup_iters --op --check, -t 1 and
 * -g 1 dropped, other values of them and -m refused; without it, those letters refused beside
 * nccl-tests' own (-b -e -f -n -d -z -a) and -o before a reduction's name. */
fab_status_t fab_nccl_words(int argc, char **argv, char **out, int outmax, int *outc, char *err,
                            size_t errlen, char *hint, size_t hintlen);
/* Which of the options nccl-tests' words touch were given. */
typedef struct fab_nccl_given {
    bool sizes;                 /* -m/--sizes */
    bool sweep;                 /* any of -b, -e, -f, --stepbytes */
    bool stepfactor, stepbytes; /* -f, --stepbytes */
    bool dtype, datatype;       /* --dtype, -d/--datatype */
    bool average;               /* -a/--average */
} fab_nccl_given_t;
/* After parsing: the sweep into o->meas.sizes, -d into its dtype, --check into validate
 * (FAB_ERR_USAGE for contradictions: -m with -b, -f with --stepbytes, -d against --dtype, and
 * -a without an nccl-tests format, the only output whose time it chooses; --dtype and --op
 * other than sum in fabricbench's table with no kernel they apply to). */
fab_status_t fab_nccl_apply(fab_opts_t *o, const fab_nccl_given_t *g, char *err, size_t errlen,
                            char *hint, size_t hintlen);

#endif
