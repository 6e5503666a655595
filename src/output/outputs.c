/* SPDX-License-Identifier: BSD-3-Clause */
/* Where a run's outputs go (output/outputs.h). */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/outputs.h"

bool fab_output_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

/* The outputs that may write to stdout, in the order the options are listed. */
static int fab_outputs_list(const fab_opts_t *o, const char **name, const char **path)
{
    int n = 0;

    name[n] = "--json", path[n++] = o->json;
    name[n] = "--csv", path[n++] = o->csv;
    name[n] = "--json-doc", path[n++] = o->json_doc;
    name[n] = "--prom", path[n++] = o->prom;
    return n;
}

const char *fab_outputs_stdout_taker(const fab_opts_t *o)
{
    const char *name[4], *path[4];
    int n = fab_outputs_list(o, name, path);

    for (int i = 0; i < n; i++)
        if (fab_output_is_stdout(path[i]))
            return name[i];
    return NULL;
}

fab_status_t fab_outputs_check(const fab_opts_t *o, char *err, size_t errlen, char *hint,
                               size_t hintlen)
{
    const char *name[4], *path[4], *first = NULL;
    int n = fab_outputs_list(o, name, path);

    if (fab_output_is_stdout(o->output)) {
        snprintf(err, errlen,
                 "-o -: the HDF5 result file cannot go to standard output (it is "
                 "rewritten as rows come)");
        snprintf(hint, hintlen,
                 "give -o a file name (or -o none); --json -, --csv -, "
                 "--json-doc - or --prom - write to standard output");
        return FAB_ERR_USAGE;
    }
    for (int i = 0; i < n; i++) {
        if (!fab_output_is_stdout(path[i]))
            continue;
        if (first) {
            snprintf(err, errlen, "%s - and %s - both ask for standard output", first, name[i]);
            snprintf(hint, hintlen,
                     "one output can have standard output; give the other a "
                     "file name");
            return FAB_ERR_USAGE;
        }
        first = name[i];
    }
    return FAB_OK;
}

FILE *fab_outputs_table(const fab_opts_t *o)
{
    if (!fab_outputs_stdout_taker(o))
        return stdout;
    return o->quiet ? NULL : stderr;
}

static FILE *fab_real_stdout;

void fab_outputs_prepare(const fab_opts_t *o)
{
    int fd;

    if (!fab_outputs_stdout_taker(o) || fab_real_stdout)
        return;
    /* A reader that goes away (| head) is a write error: the run stops and says so (exit 3),
     * the other outputs keep what they wrote. */
    signal(SIGPIPE, SIG_IGN);
    fflush(stdout);
    fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return;
    fab_real_stdout = fdopen(fd, "w");
    if (!fab_real_stdout) {
        close(fd);
        return;
    }
    dup2(STDERR_FILENO, STDOUT_FILENO);
}

FILE *fab_outputs_stdout(void)
{
    return fab_real_stdout;
}
