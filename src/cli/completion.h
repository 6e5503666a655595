/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench completion` (cli/completion.c): the shell completion, made from the tool's own
 * tables. */
#ifndef FAB_CLI_COMPLETION_H
#define FAB_CLI_COMPLETION_H

/* argv[1] is "completion": `completion bash` prints the bash script, `completion fabrics
 * [--fabrics-file FILE]` the names --fabric takes. Returns the exit code. */
int fab_completion_command(int argc, char **argv);

#endif
