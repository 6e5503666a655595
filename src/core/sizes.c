/* SPDX-License-Identifier: BSD-3-Clause */
/* Message sizes: "4K", "1:4M" (doubling), "8,1K,64K,1M". K/M/G are powers of 1024. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/num.h"
#include "core/sizes.h"
#include "core/status.h"

/* What a size option accepts, for its messages. */
static void fab_size_range_text(size_t min, size_t max, char *buf, size_t len)
{
    char lo[32], hi[32];

    fab_size_format(min, lo, sizeof(lo));
    fab_size_format(max, hi, sizeof(hi));
    snprintf(buf, len, "a size from %s to %s bytes (bytes, or with K, M, G = 1024^n: 8, 4K, 1.5M)",
             lo, hi);
}

fab_status_t fab_size_parse_in(const char *s, size_t min, size_t max, size_t *out, char *err,
                               size_t errlen)
{
    double v = 0, mult = 1, bytes;
    size_t n = fab_num_prefix(s, &v);
    const char *end = s + n, *rest = end;
    char range[192], q[64];

    fab_size_range_text(min, max, range, sizeof(range));
    fab_num_quote(s, q, sizeof(q));
    if (n == 0 || s[strcspn(s, " \t\n\v\f\r")]) {
        snprintf(err, errlen, "%s is not a size (%s); give %s", q, fab_num_why(s), range);
        return FAB_ERR_USAGE;
    }
    if (*end) {
        char unit = (char)toupper((unsigned char)*end);

        rest = end + 1;
        if (unit == 'K')
            mult = 1024.0;
        else if (unit == 'M')
            mult = 1024.0 * 1024;
        else if (unit == 'G')
            mult = 1024.0 * 1024 * 1024;
        else if (unit == 'B')
            rest = end; /* plain bytes: "8B" */
        else
            rest = NULL;
        if (!rest || !(strcasecmp(rest, "") == 0 || strcasecmp(rest, "B") == 0 ||
                       (mult > 1 && strcasecmp(rest, "iB") == 0))) {
            char u[64];

            fab_num_quote(end, u, sizeof(u));
            snprintf(err, errlen, "%s has an unknown unit %s; give %s", q, u, range);
            return FAB_ERR_USAGE;
        }
    }
    bytes = v * mult;
    if (isfinite(bytes) && bytes != floor(bytes)) {
        snprintf(err, errlen, "%s is not a whole number of bytes; give %s", q, range);
        return FAB_ERR_USAGE;
    }
    if (!(bytes >= (double)min && bytes <= (double)max)) {
        snprintf(err, errlen, "size %s is out of range; give %s", q, range);
        return FAB_ERR_USAGE;
    }
    *out = (size_t)bytes;
    return FAB_OK;
}

fab_status_t fab_size_parse(const char *s, size_t *out, char *err, size_t errlen)
{
    return fab_size_parse_in(s, 1, FAB_SIZE_MAX, out, err, errlen);
}

static fab_status_t fab_sizes_push(fab_sizes_t *out, size_t v, char *err, size_t errlen)
{
    if (out->n >= FAB_MAX_SIZES) {
        snprintf(err, errlen, "too many sizes (at most %d per run)", FAB_MAX_SIZES);
        return FAB_ERR_USAGE;
    }
    /* A size twice would be two rows of one size: the files name a size's vectors by it. */
    for (int i = 0; i < out->n; i++)
        if (out->v[i] == v) {
            char sz[32];

            fab_size_format(v, sz, sizeof(sz));
            snprintf(err, errlen, "size %s appears twice in the list; give each size once", sz);
            return FAB_ERR_USAGE;
        }
    out->v[out->n++] = v;
    return FAB_OK;
}

static fab_status_t fab_sizes_range(const char *s, const char *colon, fab_sizes_t *out, char *err,
                                    size_t errlen)
{
    char lo_s[64], lo_fmt[32], hi_fmt[32];
    size_t lo, hi, len = (size_t)(colon - s);
    fab_status_t st;

    if (len == 0 || len >= sizeof(lo_s) || strchr(colon + 1, ':')) {
        snprintf(err, errlen, "size range '%s' must be MIN:MAX, for example 1:4M", s);
        return FAB_ERR_USAGE;
    }
    memcpy(lo_s, s, len);
    lo_s[len] = '\0';
    st = fab_size_parse(lo_s, &lo, err, errlen);
    if (st == FAB_OK)
        st = fab_size_parse(colon + 1, &hi, err, errlen);
    if (st != FAB_OK)
        return st;
    if (lo > hi) {
        fab_size_format(lo, lo_fmt, sizeof(lo_fmt));
        fab_size_format(hi, hi_fmt, sizeof(hi_fmt));
        snprintf(err, errlen, "size range '%s' runs backwards (MIN %s > MAX %s)", s, lo_fmt,
                 hi_fmt);
        return FAB_ERR_USAGE;
    }
    for (size_t v = lo; v <= hi && st == FAB_OK; v *= 2) {
        st = fab_sizes_push(out, v, err, errlen);
        if (v > hi / 2) {
            if (v != hi && st == FAB_OK)
                st = fab_sizes_push(out, hi, err, errlen);
            break;
        }
    }
    return st;
}

fab_status_t fab_sizes_parse(const char *s, fab_sizes_t *out, char *err, size_t errlen)
{
    char buf[1024];
    char *save = NULL;
    const char *colon = strchr(s, ':');
    fab_status_t st = FAB_OK;

    out->n = 0;
    if (*s == '\0') {
        snprintf(err, errlen, "empty size list");
        return FAB_ERR_USAGE;
    }
    if (colon && strchr(s, ',')) {
        snprintf(err, errlen, "'%s' mixes a range and a list: use MIN:MAX or 8,1K,64K", s);
        return FAB_ERR_USAGE;
    }
    if (colon)
        return fab_sizes_range(s, colon, out, err, errlen);
    if (strlen(s) >= sizeof(buf)) {
        snprintf(err, errlen, "size list is too long");
        return FAB_ERR_USAGE;
    }
    strcpy(buf, s);
    if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,")) {
        snprintf(err, errlen, "size list '%s' has an empty entry", s);
        return FAB_ERR_USAGE;
    }
    for (char *tok = strtok_r(buf, ",", &save); tok && st == FAB_OK;
         tok = strtok_r(NULL, ",", &save)) {
        size_t v;

        st = fab_size_parse(tok, &v, err, errlen);
        if (st == FAB_OK)
            st = fab_sizes_push(out, v, err, errlen);
    }
    return st;
}

void fab_size_format(size_t bytes, char *buf, size_t len)
{
    if (bytes >= ((size_t)1 << 30) && bytes % ((size_t)1 << 30) == 0)
        snprintf(buf, len, "%zuG", bytes >> 30);
    else if (bytes >= ((size_t)1 << 20) && bytes % ((size_t)1 << 20) == 0)
        snprintf(buf, len, "%zuM", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(buf, len, "%zuK", bytes >> 10);
    else
        snprintf(buf, len, "%zu", bytes);
}

size_t fab_sizes_max(const fab_sizes_t *s)
{
    size_t m = 0;

    for (int i = 0; i < s->n; i++)
        if (s->v[i] > m)
            m = s->v[i];
    return m;
}

/* The time the sizes after v[i] will take, from the times v[i] and v[i-1] took (took,
 * prev_took; 0: none): a + b x bytes through the two (a, b >= 0), so a latency-bound size
 * costs what the last did and a rate-bound one grows with its bytes; without two ascending
 * sizes, in proportion to the bytes. A size not above v[i] takes what v[i] took. */
double fab_sizes_time_left(const fab_sizes_t *sizes, int i, double took, double prev_took)
{
    double vi = (double)sizes->v[i], a = 0.0, b = took / vi, left = 0.0;

    if (i > 0 && prev_took > 0 && sizes->v[i] > sizes->v[i - 1]) {
        b = (took - prev_took) / (vi - (double)sizes->v[i - 1]);
        b = b > 0.0 ? b : 0.0;
        a = took - b * vi > 0.0 ? took - b * vi : 0.0;
    }
    for (int j = i + 1; j < sizes->n; j++)
        left += sizes->v[j] > sizes->v[i] ? a + b * (double)sizes->v[j] : took;
    return left;
}
