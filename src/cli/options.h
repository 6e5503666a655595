/* The command line (cli/options.c): which command, and the options of `run` and of the
 * sub-commands, from one option table that also serves FABRICBENCH_* and `run --help`. */
#ifndef FAB_CLI_OPTIONS_H
#define FAB_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "core/opts.h"
#include "core/status.h"

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
void fab_opts_print_run_help(FILE *f);
/* For tests: the number of rows in the option table and row i's long name. */
int fab_opts_count(void);
const char *fab_opts_name(int i);

#endif
