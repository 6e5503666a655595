/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading sysfs (or a fixture tree standing in for it): files, links and directories under a
 * root, bounded and without surprises. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/sysfs.h"

/* Bounded copy: truncates, always terminates. */
void fab_inv_copy(char *dst, size_t len, const char *src)
{
    size_t n;

    if (len == 0)
        return;
    n = src ? strnlen(src, len - 1) : 0;
    if (n)
        memmove(dst, src, n);
    dst[n] = '\0';
}

/* root + "/" + the formatted relative path. false if it does not fit. */
bool fab_inv_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
    size_t rl = strlen(root);
    bool slash = rl > 0 && root[rl - 1] == '/';
    va_list ap;
    int n, m;

    n = snprintf(buf, len, "%s%s", root, slash ? "" : "/");
    if (n < 0 || (size_t)n >= len)
        return false;
    va_start(ap, fmt);
    m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return m >= 0 && (size_t)m < len - (size_t)n;
}

/* The first line of a file, trailing white space removed. false if it cannot be opened or
 * read (sysfs answers EINVAL for, e.g., the speed of a link that is down). */
bool fab_inv_read(const char *path, char *buf, size_t len)
{
    struct stat sb;
    ssize_t got;
    size_t n;
    int fd;

    if (len == 0)
        return false;
    /* a sysfs attribute is a regular file: a link or a FIFO planted in a tree given as
     * --sysfs-root is not read (its target could be any file of the host; a FIFO blocks) */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return false;
    }
    got = read(fd, buf, len - 1);
    close(fd);
    if (got < 0)
        return false;
    buf[got] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    n = strlen(buf);
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    return true;
}

/* Up to len - 1 bytes of a regular file, never through a link; -1 when it cannot be read. */
ssize_t fab_inv_slurp(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    ssize_t got = 0, r = 0;

    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return -1;
    }
    while ((size_t)got < len - 1 && (r = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
        got += r;
    close(fd);
    if (r < 0)
        return -1;
    buf[got] = '\0';
    return got;
}

bool fab_inv_read_long(const char *path, long *v)
{
    char buf[64], *end;
    long x;

    if (!fab_inv_read(path, buf, sizeof(buf)) || buf[0] == '\0')
        return false;
    errno = 0;
    x = strtol(buf, &end, 10);
    if (errno || *end != '\0' || end == buf)
        return false;
    *v = x;
    return true;
}

/* "4: ACTIVE" -> "ACTIVE"; a string without the numeric prefix is kept as it is. */
void fab_inv_after_colon(const char *s, char *out, size_t len)
{
    const char *p = s;

    while (isdigit((unsigned char)*p))
        p++;
    if (p > s && *p == ':') {
        p++;
        while (*p == ' ')
            p++;
    } else {
        p = s;
    }
    fab_inv_copy(out, len, p);
}

/* The last component of a symlink's target ("../../bus/pci/drivers/mlx5_core" -> mlx5_core). */
bool fab_inv_link_base(const char *path, char *out, size_t len)
{
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    const char *base;

    if (n <= 0)
        return false;
    target[n] = '\0';
    while (n > 1 && target[n - 1] == '/')
        target[--n] = '\0';
    base = strrchr(target, '/');
    base = base ? base + 1 : target;
    if (*base == '\0')
        return false;
    fab_inv_copy(out, len, base);
    return true;
}

/* Natural order: digit runs compare as numbers (mlx5_2 before mlx5_10), then plain strcmp. */
int fab_inv_natcmp(const char *a, const char *b)
{
    const char *a0 = a, *b0 = b;

    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            const char *ea = a, *eb = b;
            size_t la, lb;
            int c;

            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            while (isdigit((unsigned char)*ea))
                ea++;
            while (isdigit((unsigned char)*eb))
                eb++;
            la = (size_t)(ea - a);
            lb = (size_t)(eb - b);
            if (la != lb)
                return la < lb ? -1 : 1;
            c = strncmp(a, b, la);
            if (c)
                return c;
            a = ea;
            b = eb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    if (*a || *b)
        return *a ? 1 : -1;
    return strcmp(a0, b0);
}

static int fab_inv_natcmp_ptr(const void *x, const void *y)
{
    return fab_inv_natcmp(*(char *const *)x, *(char *const *)y);
}

void fab_inv_list_free(fab_inv_list_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* The entries of a directory (no dot entries), in natural order. false (errno set) if the
 * directory cannot be opened; NOMEM also gives false. */
bool fab_inv_list(const char *path, fab_inv_list_t *l)
{
    struct dirent *e;
    int cap = 0;
    DIR *d;

    l->v = NULL;
    l->n = 0;
    d = opendir(path);
    if (!d)
        return false;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (l->n == cap) {
            int ncap = cap ? cap * 2 : 16;
            char **nv = realloc(l->v, (size_t)ncap * sizeof(*nv));

            if (!nv)
                goto nomem;
            l->v = nv;
            cap = ncap;
        }
        l->v[l->n] = strdup(e->d_name);
        if (!l->v[l->n])
            goto nomem;
        l->n++;
    }
    closedir(d);
    if (l->n > 1)
        qsort(l->v, (size_t)l->n, sizeof(*l->v), fab_inv_natcmp_ptr);
    return true;
nomem:
    closedir(d);
    fab_inv_list_free(l);
    errno = ENOMEM;
    return false;
}

/* A whole decimal number >= 0 ("12"), else -1. */
long fab_inv_index(const char *s)
{
    char *end;
    long v;

    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v > INT_MAX)
        return -1;
    return v;
}
