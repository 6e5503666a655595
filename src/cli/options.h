/* SPDX-License-Identifier: BSD-3-Clause */
/* The command line (cli/options.c): which command, and the options of `run` and of the
 * sub-commands, from one option table that also serves FABRICBENCH_* and `run --help`. */
#ifndef FAB_CLI_OPTIONS_H
#define FAB_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/opt.h"
#include "cli/opts.h"
#include "core/status.h"

/* What `fabricbench run` without kernels runs. */
#define FAB_DEFAULT_SUITE "latency,bw,bibw,msgrate"

typedef enum {
    FAB_CMD_NONE = 0,
    FAB_CMD_HELP,
    FAB_CMD_VERSION,
    FAB_CMD_LIST,
    FAB_CMD_RUN,
    FAB_CMD_RUN_HELP,
    FAB_CMD_SHOW,
    FAB_CMD_INVENTORY,
    FAB_CMD_PLACEMENT
} fab_cmd_t;

/* Every option at its default (what `run` without options uses). */
void fab_opts_defaults(fab_opts_t *o);
/* Parse argv (environment FABRICBENCH_* first, then the command line). On error returns
 * FAB_ERR_USAGE with a one-line reason in err and a hint in hint. */
fab_status_t fab_opts_parse(int argc, char **argv, fab_cmd_t *cmd, fab_opts_t *o, char *err,
                            size_t errlen, char *hint, size_t hintlen);
void fab_opts_print_help(FILE *f);
/* Whether name (n bytes) is a FABRICBENCH_ variable this program reads: an option's or a test
 * switch's (the run records only these, core/envrec.h). */
bool fab_env_ours(const char *name, size_t n);
void fab_opts_print_run_help(FILE *f);
/* The option rows in the order `run --help` lists them (the harness's, then each kernel's,
 * --help last): their number, row i, its long name. */
int fab_opts_count(void);
const fab_opt_t *fab_opts_row(int i);
const char *fab_opts_name(int i);
/* Whether these kernels' options can join the harness's: FAB_ERR_INTERNAL, with the clash in
 * err, when two rows share a name or short name (every parse checks the registered kernels). */
fab_status_t fab_opts_check_kernels(const struct fab_kernel *const *kernels, int n, char *err,
                                    size_t errlen);
/* The harness's row called name (the first len characters of it), or NULL. */
const fab_opt_t *fab_opts_harness(const char *name, size_t len);
/* cli/options_subcommand.c: the options of `inventory` and `placement` (argv[2] on). */
fab_status_t fab_subcommand_parse(int argc, char **argv, fab_cmd_t cmd, fab_opts_t *o, char *err,
                                  size_t errlen, char *hint, size_t hintlen);
/* cli/options_subcommand.c: the command argv[1] names, into *cmd, and the arguments of those
 * other than `run`. */
fab_status_t fab_opts_command(int argc, char **argv, fab_cmd_t *cmd, fab_opts_t *o, char *err,
                              size_t errlen, char *hint, size_t hintlen);
/* cli/options_subcommand.c: `show [--wide | --columns LIST] FILE...` (and its FABRICBENCH_WIDE,
 * FABRICBENCH_COLUMNS); --help sets o->cmd.sub_usage. */
fab_status_t fab_show_parse(int argc, char **argv, fab_opts_t *o, char *err, size_t errlen,
                            char *hint, size_t hintlen);
/* --wide and --columns of run and show: not both, and the columns named right. */
fab_status_t fab_opts_table_check(const fab_opts_t *o, char *err, size_t errlen, char *hint,
                                  size_t hintlen);
/* `fabricbench show --help`. */
void fab_show_print_help(FILE *f);

/* --pair given to a run with no kernel that measures a pair (TCP streams, collectives): refused,
 * the hint naming the pair kernels (cli/options_subcommand.c). */
fab_status_t fab_opts_pair_unused(const fab_opts_t *o, bool given, char *err, size_t errlen,
                                  char *hint, size_t hintlen);

#endif
