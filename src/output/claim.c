/* SPDX-License-Identifier: BSD-3-Clause */
/* An output's file claimed before the output writes anything (output/claim.h): refused when
 * it is not a regular file, a link (but under --force), another run's, or there already
 * (but under --append or --force). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "output/claim.h"

/* A kind at the output's name that rules it out (anything but nothing, a regular file, or a
 * link that --force replaces): refused, or *taken for an automatic name. */
static fab_status_t fab_output_judge(const char *path, const char *what, const char *kind,
                                     const fab_outopts_t *oopt, bool *taken)
{
    bool link = kind && strcmp(kind, "a symbolic link") == 0;

    if (!kind || strcmp(kind, "a regular file") == 0 || (link && oopt->force && !oopt->append))
        return FAB_OK;
    if (taken) {
        *taken = true;
        return FAB_ERR_USAGE;
    }
    if (link) {
        char to[512];
        ssize_t n = readlink(path, to, sizeof(to) - 1);

        to[n > 0 ? n : 0] = '\0';
        FAB_ERROR("%s %s is a symbolic link%s%s%s: fabricbench never writes through a link", what,
                  path, n > 0 ? " (to " : "", to, n > 0 ? ")" : "");
        fprintf(stderr, "hint: %s\n",
                oopt->append ? "--append does not follow a link: give the path of the file itself"
                             : "remove the link, give the path of the file itself, or --force to "
                               "replace the link by a new file (its target stays as it is)");
        return FAB_ERR_USAGE;
    }
    FAB_ERROR("%s %s is %s: results go to regular files", what, path, kind);
    fprintf(stderr, "hint: choose a file name%s\n",
            strcmp(what, "results file") == 0 ? " with -o (-o none writes no result file)" : "");
    return FAB_ERR_USAGE;
}

fab_status_t fab_output_claim(const char *path, const char *what, const fab_outopts_t *oopt,
                              bool *taken, fab_claim_t *c)
{
    const char *kind = fab_file_kind(path);
    fab_status_t st;
    int err;

    if (taken)
        *taken = false;
    c->fd = c->dir = -1;
    if ((st = fab_output_judge(path, what, kind, oopt, taken)) != FAB_OK)
        return st;
    err = fab_claim(path, c);
    if (taken && (err == ELOOP || err == EINVAL || err == EMLINK))
        err = EWOULDBLOCK; /* an automatic name whose lock file is not ours: the next name */
    if (err == EWOULDBLOCK || (err == 0 && (kind = fab_claim_kind(c, NULL)) && taken)) {
        fab_claim_release(c);
        if (taken) {
            *taken = true;
            return FAB_ERR_USAGE;
        }
        FAB_ERROR("%s %s is being written by another fabricbench run (its lock file: %s)", what,
                  path, c->lock);
        fprintf(stderr, "hint: wait for that run, or choose another name\n");
        return FAB_ERR_USAGE;
    }
    if (err == ELOOP || err == EINVAL || err == EMLINK) {
        FAB_ERROR("the lock file %s of %s %s %s: fabricbench opens only a lock file of its own",
                  c->lock, what, path,
                  err == ELOOP    ? "is a symbolic link"
                  : err == EMLINK ? "has more than one hard link"
                                  : "is not a regular file");
        fprintf(stderr, "hint: no fabricbench run made it; remove it (rm %s) and run again\n",
                c->lock);
        return FAB_ERR_USAGE;
    }
    if (err) {
        FAB_ERROR("cannot create %s (the lock file of %s %s): %s", c->lock, what, path,
                  strerror(err));
        fprintf(stderr, "hint: choose a directory this user can write\n");
        return FAB_ERR_IO;
    }
    /* judged again in the directory the claim holds: what the run will write is there */
    if ((st = fab_output_judge(path, what, kind, oopt, NULL)) != FAB_OK) {
        fab_claim_release(c);
        return st;
    }
    if (kind && strcmp(kind, "a regular file") == 0 && !oopt->append && !oopt->force) {
        fab_claim_release(c);
        FAB_ERROR("%s %s already exists", what, path);
        fprintf(stderr, "hint: --append adds this run to it, --force replaces it, or choose "
                        "another name\n");
        return FAB_ERR_USAGE;
    }
    return FAB_OK;
}
