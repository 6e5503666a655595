/* SPDX-License-Identifier: BSD-3-Clause */
/* The files of the outputs: claims, replacing, appending, never through a link (core/file.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* getrandom, O_NOFOLLOW, fsync, flock, realpath */
#endif
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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

/* The kind of what st describes (fab_file_kind's words). */
static const char *fab_mode_kind(mode_t m)
{
    if (S_ISREG(m))
        return "a regular file";
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* A descriptor opened on the claimed name: a regular file with at most `links` links, or
 * -1 with errno (the descriptor closed). */
static int fab_fd_check(int fd, nlink_t links)
{
    struct stat sb;
    int err = 0;

    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) != 0)
        err = errno;
    else if (!S_ISREG(sb.st_mode))
        err = EINVAL;
    else if (sb.st_nlink > links)
        err = EMLINK;
    if (!err)
        return fd;
    close(fd);
    errno = err;
    return -1;
}

/* c->tmp: the temporary file name in the claimed directory, for messages. */
static void fab_claim_note_tmp(fab_claim_t *c, const char *name)
{
    char d[4096];

    snprintf(d, sizeof(d), "%s", c->lock);
    snprintf(c->tmp, sizeof(c->tmp), "%s/%s", dirname(d), name);
}

/* A new temporary file next to the claimed name: .NAME.tmp-XXXXXXXXXXXX, the X's random (the
 * kernel's generator, else the clock), created O_EXCL|O_NOFOLLOW so that nothing planted under
 * that name is ever opened. Its name goes to name (len bytes) and c->tmp. */
static int fab_tmp_create(fab_claim_t *c, char *name, size_t len)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static uint64_t counter;

    for (int tries = 0; tries < 100; tries++) {
        unsigned char r[12];
        char suffix[13];
        int fd;

        if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
            struct timespec ts;
            uint64_t x;

            clock_gettime(CLOCK_MONOTONIC, &ts);
            x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32 ^
                ++counter * 0xBF58476D1CE4E5B9ull;
            for (size_t i = 0; i < sizeof(r); i++, x = x * 6364136223846793005ull + 1)
                r[i] = (unsigned char)(x >> 56);
        }
        for (size_t i = 0; i < sizeof(r); i++)
            suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
        suffix[12] = '\0';
        if (snprintf(name, len, ".%s.tmp-%s", c->base, suffix) >= (int)len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        fab_claim_note_tmp(c, name);
        fd = openat(c->dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int fab_file_replace(fab_claim_t *c, const void *buf, size_t n, const char **what)
{
    char tmp[300];
    int fd, err = 0;

    *what = "create";
    fd = fab_tmp_create(c, tmp, sizeof(tmp));
    if (fd < 0)
        return errno;
    if ((err = fab_write_all(fd, buf, n)) != 0) {
        *what = "write";
    } else if (fsync(fd) != 0) {
        err = errno;
        *what = "sync";
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && renameat(c->dir, tmp, c->dir, c->base) != 0) {
        err = errno;
        *what = "rename";
    }
    if (err) {
        unlinkat(c->dir, tmp, 0);
        return err;
    }
    fsync(c->dir); /* make the rename itself durable */
    return 0;
}

int fab_claim_open(fab_claim_t *c, fab_open_mode_t mode)
{
    const int flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    char tmp[300];
    int fd, err;

    if (mode == FAB_OPEN_APPEND) {
        struct stat sb;

        /* nothing opened that is not a regular file (a FIFO would block, a device act) */
        if (fstatat(c->dir, c->base, &sb, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(sb.st_mode)) {
            errno = S_ISLNK(sb.st_mode) ? ELOOP : EINVAL;
            return -1;
        }
        fd = fab_fd_check(openat(c->dir, c->base, flags | O_APPEND | O_CREAT, 0644), 1);
    } else if (mode == FAB_OPEN_CREATE) {
        fd = fab_fd_check(openat(c->dir, c->base, flags | O_CREAT | O_EXCL, 0644), 1);
    } else {
        fd = fab_tmp_create(c, tmp, sizeof(tmp));
        if (fd >= 0 && renameat(c->dir, tmp, c->dir, c->base) != 0) {
            err = errno;
            unlinkat(c->dir, tmp, 0);
            close(fd);
            errno = err;
            return -1;
        }
    }
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int fab_claim_read(const fab_claim_t *c)
{
    struct stat sb;

    if (fstatat(c->dir, c->base, &sb, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(sb.st_mode)) {
        errno = S_ISLNK(sb.st_mode) ? ELOOP : EINVAL;
        return -1;
    }
    return fab_fd_check(
        openat(c->dir, c->base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
        (nlink_t)-1);
}

/* dir and base of path: false if they do not fit. */
static bool fab_split_path(const char *path, char *dir, size_t dlen, char *base, size_t blen)
{
    char d[4096], b[4096];

    if (snprintf(d, sizeof(d), "%s", path) >= (int)sizeof(d))
        return false;
    snprintf(b, sizeof(b), "%s", path);
    return snprintf(dir, dlen, "%s", dirname(d)) < (int)dlen &&
           snprintf(base, blen, "%s", basename(b)) < (int)blen;
}

int fab_claim(const char *path, fab_claim_t *c)
{
    char dir[4096], lockname[300];
    int err = EAGAIN;

    c->fd = c->dir = -1;
    c->tmp[0] = '\0';
    if (!fab_split_path(path, dir, sizeof(dir), c->base, sizeof(c->base)) ||
        snprintf(lockname, sizeof(lockname), ".%s.lock", c->base) >= (int)sizeof(lockname) ||
        snprintf(c->lock, sizeof(c->lock), "%s/%s", dir, lockname) >= (int)sizeof(c->lock))
        return ENAMETOOLONG;
    c->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->dir < 0 && errno == EACCES) /* writable, not readable (a drop box): no dir fsync */
        c->dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (c->dir < 0)
        return errno;
    for (int tries = 0; tries < 10; tries++) {
        struct stat held, now;
        int fd;

        /* a lock file planted as a link, a FIFO, a device or a hard link is never opened
         * (checked before: a FIFO would block, a device act) nor locked */
        if (fstatat(c->dir, lockname, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            (!S_ISREG(now.st_mode) || now.st_nlink > 1)) {
            err = S_ISLNK(now.st_mode) ? ELOOP : S_ISREG(now.st_mode) ? EMLINK : EINVAL;
            break;
        }
        fd = fab_fd_check(openat(c->dir, lockname,
                                 O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                                 0644),
                          1);
        if (fd < 0) {
            err = errno;
            break;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            err = errno == EWOULDBLOCK ? EWOULDBLOCK : errno;
            close(fd);
            break;
        }
        /* The holder before us may have removed the lock file after we opened it: then our
         * lock is on a file nobody else sees; take the one at the path now. */
        if (fstat(fd, &held) == 0 && fstatat(c->dir, lockname, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
            c->fd = fd;
            return 0;
        }
        close(fd);
    }
    close(c->dir);
    c->dir = -1;
    return err;
}

void fab_claim_release(fab_claim_t *c)
{
    if (c->fd >= 0) {
        char d[4096];
        struct stat held, now;

        snprintf(d, sizeof(d), "%s", c->lock);
        /* while still held: a waiting claimant re-checks the path (above); only our own file */
        if (fstat(c->fd, &held) == 0 &&
            fstatat(c->dir, basename(d), &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            held.st_dev == now.st_dev && held.st_ino == now.st_ino)
            unlinkat(c->dir, basename(d), 0);
        close(c->fd);
    }
    if (c->dir >= 0)
        close(c->dir);
    c->fd = c->dir = -1;
}

const char *fab_claim_kind(const fab_claim_t *c, nlink_t *links)
{
    struct stat sb;

    if (fstatat(c->dir, c->base, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return NULL;
    if (links)
        *links = sb.st_nlink;
    return fab_mode_kind(sb.st_mode);
}

const char *fab_file_kind(const char *path)
{
    struct stat sb;

    return lstat(path, &sb) == 0 ? fab_mode_kind(sb.st_mode) : NULL;
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
