/* SPDX-License-Identifier: BSD-3-Clause */
/* Message sizes and size lists as users write them: "8", "4K", "1:4M", "8,1K,64K". */
#ifndef FAB_CORE_SIZES_H
#define FAB_CORE_SIZES_H

#include <stddef.h>

#include "core/status.h"

#define FAB_MAX_SIZES 64

typedef struct fab_sizes {
    size_t v[FAB_MAX_SIZES];
    int n;
} fab_sizes_t;

/* "8", "4K", "1M", "2G" (1024-based; optional trailing B or iB). */
fab_status_t fab_size_parse(const char *s, size_t *out, char *err, size_t errlen);
/* "MIN:MAX" (doubling from MIN, MAX included when it is not a power-of-two step) or a
 * comma-separated list. On error, err says what was wrong. */
fab_status_t fab_sizes_parse(const char *s, fab_sizes_t *out, char *err, size_t errlen);
/* "4096" -> "4K" when exact, else the plain number. */
void fab_size_format(size_t bytes, char *buf, size_t len);
/* The largest size of a list (0 for an empty one). */
size_t fab_sizes_max(const fab_sizes_t *s);

#endif
