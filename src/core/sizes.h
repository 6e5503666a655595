/* SPDX-License-Identifier: BSD-3-Clause */
/* Message sizes and size lists as users write them: "8", "4K", "1:4M", "8,1K,64K". */
#ifndef FAB_CORE_SIZES_H
#define FAB_CORE_SIZES_H

#include <stddef.h>

#include "core/status.h"

#define FAB_MAX_SIZES 64
/* The largest message, 1 GiB: MPI counts are int, and this keeps every message and window
 * arithmetic well inside them. */
#define FAB_SIZE_MAX ((size_t)1 << 30)

typedef struct fab_sizes {
    size_t v[FAB_MAX_SIZES];
    int n;
} fab_sizes_t;

/* A size: a number (core/num.h: 8, 1.5, 1e3) with an optional unit K, M or G (1024-based, any
 * case), then an optional B (or iB after a unit): 8, 4K, 1.5M, 25MiB, 16B; a whole number of
 * bytes from 1 to FAB_SIZE_MAX. */
fab_status_t fab_size_parse(const char *s, size_t *out, char *err, size_t errlen);
/* The same in [min, max] bytes (min may be 0: "0 keeps the OS's default"). */
fab_status_t fab_size_parse_in(const char *s, size_t min, size_t max, size_t *out, char *err,
                               size_t errlen);
/* "MIN:MAX" (doubling from MIN, MAX included when it is not a power-of-two step) or a
 * comma-separated list. On error, err says what was wrong. */
fab_status_t fab_sizes_parse(const char *s, fab_sizes_t *out, char *err, size_t errlen);
/* "4096" -> "4K" when exact, else the plain number. */
void fab_size_format(size_t bytes, char *buf, size_t len);
/* The largest size of a list (0 for an empty one). */
size_t fab_sizes_max(const fab_sizes_t *s);

/* The progress line under -i: the seconds the sizes after sizes->v[i] will take, when v[i]
 * took `took` and v[i-1] prev_took (0: not known); core/sizes.c says how. */
double fab_sizes_time_left(const fab_sizes_t *sizes, int i, double took, double prev_took);

#endif
