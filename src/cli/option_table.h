/* SPDX-License-Identifier: BSD-3-Clause */
/* The harness's option table (cli/option_table.c), which cli/options.c joins with each
 * kernel's own rows. */
#ifndef FAB_CLI_OPTION_TABLE_H
#define FAB_CLI_OPTION_TABLE_H

#include "core/opt.h"

/* The rows; the last is --help. */
extern const fab_opt_t fab_opt_table[];
extern const int fab_opt_table_n;

#endif
