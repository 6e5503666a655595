/* SPDX-License-Identifier: BSD-3-Clause */
/* Replacing a file atomically (core/file.h). */
#define _DEFAULT_SOURCE 1 /* fsync, flock, realpath */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"

static int fab_write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

int fab_file_replace(const char *path, const char *tmp, const void *buf, size_t n,
                     const char **what)
{
    char dir[4096];
    int fd, dfd, err = 0;

    *what = "write";
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        err = errno;
        *what = "create";
    } else if ((err = fab_write_all(fd, buf, n)) != 0) {
        *what = "write";
    } else if (fsync(fd) != 0) {
        err = errno;
        *what = "sync";
    }
    if (fd >= 0 && close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0) {
        err = errno;
        *what = "rename";
    }
    if (err) {
        unlink(tmp);
        return err;
    }
    /* Make the rename itself durable. */
    snprintf(dir, sizeof(dir), "%s", path);
    dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

/* dir/.base.lock for path dir/base. false if it does not fit. */
static bool fab_claim_path(const char *path, char *out, size_t len)
{
    char d[4096], b[4096];
    int n;

    if (snprintf(d, sizeof(d), "%s", path) >= (int)sizeof(d))
        return false;
    snprintf(b, sizeof(b), "%s", path);
    n = snprintf(out, len, "%s/.%s.lock", dirname(d), basename(b));
    return n > 0 && (size_t)n < len;
}

int fab_claim(const char *path, fab_claim_t *c)
{
    c->fd = -1;
    if (!fab_claim_path(path, c->lock, sizeof(c->lock)))
        return ENAMETOOLONG;
    for (int tries = 0; tries < 10; tries++) {
        struct stat held, now;
        int fd = open(c->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644), err;

        if (fd < 0)
            return errno;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            err = errno == EWOULDBLOCK ? EWOULDBLOCK : errno;
            close(fd);
            return err;
        }
        /* The holder before us may have removed the lock file after we opened it: then our
         * lock is on a file nobody else sees; take the one at the path now. */
        if (fstat(fd, &held) == 0 && stat(c->lock, &now) == 0 && held.st_dev == now.st_dev &&
            held.st_ino == now.st_ino) {
            c->fd = fd;
            return 0;
        }
        close(fd);
    }
    return EAGAIN;
}

void fab_claim_release(fab_claim_t *c)
{
    if (c->fd < 0)
        return;
    unlink(c->lock); /* while still held: a waiting claimant re-checks the path (above) */
    close(c->fd);
    c->fd = -1;
}

const char *fab_file_kind(const char *path)
{
    struct stat sb;

    if (stat(path, &sb) != 0)
        return NULL;
    if (S_ISREG(sb.st_mode))
        return "a regular file";
    if (S_ISDIR(sb.st_mode))
        return "a directory";
    if (S_ISFIFO(sb.st_mode))
        return "a FIFO";
    if (S_ISCHR(sb.st_mode))
        return "a character device";
    if (S_ISBLK(sb.st_mode))
        return "a block device";
    if (S_ISSOCK(sb.st_mode))
        return "a socket";
    return "not a regular file";
}

/* The absolute path of path, its directory resolved (the file itself need not exist). */
static bool fab_abs_path(const char *path, char *out, size_t len)
{
    char d[PATH_MAX], b[PATH_MAX], real[PATH_MAX];
    int n;

    snprintf(d, sizeof(d), "%s", path);
    snprintf(b, sizeof(b), "%s", path);
    if (!realpath(dirname(d), real))
        return false;
    n = snprintf(out, len, "%s/%s", real, basename(b));
    return n > 0 && (size_t)n < len;
}

bool fab_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char pa[PATH_MAX], pb[PATH_MAX];

    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (fab_abs_path(a, pa, sizeof(pa)) && fab_abs_path(b, pb, sizeof(pb)))
        return strcmp(pa, pb) == 0;
    return strcmp(a, b) == 0;
}
