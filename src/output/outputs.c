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
static int fab_outputs_list(const fab_outopts_t *oopt, const char **name, const char **path)
{
    int n = 0;

    name[n] = "--json", path[n++] = oopt->json;
    name[n] = "--csv", path[n++] = oopt->csv;
    name[n] = "--json-doc", path[n++] = oopt->json_doc;
    name[n] = "--prom", path[n++] = oopt->prom;
    return n;
}

const char *fab_outputs_stdout_taker(const fab_outopts_t *oopt)
{
    const char *name[4], *path[4];
    int n = fab_outputs_list(oopt, name, path);

    for (int i = 0; i < n; i++)
        if (fab_output_is_stdout(path[i]))
            return name[i];
    return NULL;
}

fab_status_t fab_outputs_check(const fab_outopts_t *oopt, char *err, size_t errlen, char *hint,
                               size_t hintlen)
{
    const char *name[4], *path[4], *first = NULL;
    int n = fab_outputs_list(oopt, name, path);

    if (fab_output_is_stdout(oopt->output)) {
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
    if (first && oopt->format == FAB_FORMAT_NCCL_JSON) { /* a document, not a table for stderr */
        snprintf(err, errlen, "--format nccl-json and %s - both ask for standard output", first);
        snprintf(hint, hintlen,
                 "give %s a file name, or leave --format out (the table then goes to standard "
                 "error)",
                 first);
        return FAB_ERR_USAGE;
    }
    return FAB_OK;
}

FILE *fab_outputs_table(const fab_launchopts_t *lopt, const fab_outopts_t *oopt)
{
    if (!fab_outputs_stdout_taker(oopt))
        return stdout;
    return lopt->quiet ? NULL : stderr;
}

static FILE *fab_real_stdout;

void fab_outputs_prepare(const fab_outopts_t *oopt)
{
    int fd;

    if (!fab_outputs_stdout_taker(oopt) || fab_real_stdout)
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
