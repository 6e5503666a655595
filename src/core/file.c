/* Replacing a file atomically (core/file.h). */
#define _DEFAULT_SOURCE /* fsync */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
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
