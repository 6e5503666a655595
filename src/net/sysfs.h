/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading sysfs, or a fixture tree standing in for it (net/sysfs.c). For the inventory's
 * scanners only. */
#ifndef FAB_NET_SYSFS_H
#define FAB_NET_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Bounded copy: truncates, always terminates. */
void fab_inv_copy(char *dst, size_t len, const char *src);
/* root + "/" + the formatted relative path. false if it does not fit. */
bool fab_inv_path(char *buf, size_t len, const char *root, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The first line of a file, trailing white space removed. false if it cannot be opened or
 * read (sysfs answers EINVAL for, e.g., the speed of a link that is down). */
bool fab_inv_read(const char *path, char *buf, size_t len);
bool fab_inv_read_long(const char *path, long *v);
/* Up to len - 1 bytes of a regular file, never through a link; -1 when it cannot be read. */
ssize_t fab_inv_slurp(const char *path, char *buf, size_t len);
/* "4: ACTIVE" -> "ACTIVE"; a string without the numeric prefix is kept as it is. */
void fab_inv_after_colon(const char *s, char *out, size_t len);
/* The last component of a symlink's target ("../../bus/pci/drivers/mlx5_core" -> mlx5_core). */
bool fab_inv_link_base(const char *path, char *out, size_t len);
/* Natural order: digit runs compare as numbers (mlx5_2 before mlx5_10), then plain strcmp. */
int fab_inv_natcmp(const char *a, const char *b);

typedef struct fab_inv_list {
    char **v;
    int n;
} fab_inv_list_t;

/* The entries of a directory (no dot entries), in natural order. false (errno set) if the
 * directory cannot be opened; NOMEM also gives false. */
bool fab_inv_list(const char *path, fab_inv_list_t *l);
void fab_inv_list_free(fab_inv_list_t *l);
/* A whole decimal number >= 0 ("12"), else -1. */
long fab_inv_index(const char *s);

#endif
