/* SPDX-License-Identifier: BSD-3-Clause */
/* The counts file of the uneven all-to-all (coll/a2av.h): read as hostile input, parsed
 * strictly, every refusal with its file and line and what to do. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll/a2av.h"

/* The parse's place: the text, the line, the matrix. */
typedef struct fab_a2av_parse {
    const char *name;
    int n, line, rows;
    int *counts;
    char *err, *hint;
    size_t errlen, hintlen;
} fab_a2av_parse_t;

static fab_status_t fab_a2av_refuse(fab_a2av_parse_t *p, const char *hint, const char *why)
{
    snprintf(p->err, p->errlen, "%s:%d: %s", p->name, p->line, why);
    snprintf(p->hint, p->hintlen, "%s", hint);
    return FAB_ERR_CONFIG;
}

#define FAB_A2AV_FORMAT                                                                            \
    "write one line per sending rank, N whole numbers (elements it sends to ranks 0 .. N-1) "      \
    "separated by spaces; '#' starts a comment"

#define FAB_A2AV_SHAPE                                                                             \
    "give an N x N matrix for N ranks (one row per sending rank), or run on as many ranks as "     \
    "it has rows"

/* One count at s (digits only, up to the next separator): its value into *v, its length. */
static fab_status_t fab_a2av_count(fab_a2av_parse_t *p, const char *s, const char *end, int col,
                                   long long *v, size_t *used)
{
    char why[160];
    size_t k = 0;
    unsigned char c;

    *v = 0;
    while (s + k < end && s[k] >= '0' && s[k] <= '9') {
        *v = *v * 10 + (s[k] - '0');
        if (++k > 10 || *v > INT_MAX) {
            snprintf(why, sizeof(why),
                     "count %.*s... (column %d) is larger than an MPI count holds (%d)", (int)k, s,
                     col, INT_MAX);
            return fab_a2av_refuse(p, "counts are elements of the row's type: lower it", why);
        }
    }
    c = s + k < end ? (unsigned char)s[k] : ' ';
    if (k > 0 && (c == ' ' || c == '\t' || c == '#' || c == '\r')) {
        *used = k;
        return FAB_OK;
    }
    if (c == '-')
        snprintf(why, sizeof(why), "count (column %d): a negative count", col);
    else if (c > 0x20 && c < 0x7f)
        snprintf(why, sizeof(why), "count (column %d): '%c' is not a digit of a whole number", col,
                 c);
    else
        snprintf(why, sizeof(why), "count (column %d): byte 0x%02x is not a digit", col, c);
    return fab_a2av_refuse(p, FAB_A2AV_FORMAT, why);
}

/* One line (without its newline): a row of n counts, or a blank or comment line. */
static fab_status_t fab_a2av_line(fab_a2av_parse_t *p, const char *s, const char *end)
{
    char why[160];
    int col = 0;
    long long v;
    fab_status_t st;

    if (end > s && end[-1] == '\r') /* a file written on Windows */
        end--;
    while (s < end && *s != '#') {
        size_t used;

        if (*s == ' ' || *s == '\t') {
            s++;
            continue;
        }
        if (col == 0 && p->rows == p->n) {
            snprintf(why, sizeof(why), "too many rows: more than %d (the job has %d ranks)", p->n,
                     p->n);
            return fab_a2av_refuse(p, FAB_A2AV_SHAPE, why);
        }
        if (col == p->n) {
            snprintf(why, sizeof(why), "row %d: more than %d counts (the job has %d ranks)",
                     p->rows + 1, p->n, p->n);
            return fab_a2av_refuse(p, FAB_A2AV_SHAPE, why);
        }
        st = fab_a2av_count(p, s, end, col + 1, &v, &used);
        if (st != FAB_OK)
            return st;
        p->counts[(size_t)p->rows * (size_t)p->n + (size_t)col++] = (int)v;
        s += used;
    }
    if (col > 0 && col < p->n) {
        snprintf(why, sizeof(why), "row %d: %d counts, the job has %d ranks (N x N)", p->rows + 1,
                 col, p->n);
        return fab_a2av_refuse(p, FAB_A2AV_SHAPE, why);
    }
    p->rows += col > 0;
    return FAB_OK;
}

fab_status_t fab_a2av_parse(const char *text, size_t len, const char *name, int n, int *counts,
                            char *err, size_t errlen, char *hint, size_t hintlen)
{
    fab_a2av_parse_t p = {name, n, 0, 0, counts, err, hint, errlen, hintlen};
    const char *s = text, *end = text + len;
    fab_status_t st = FAB_OK;

    while (s < end && st == FAB_OK) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));

        p.line++;
        st = fab_a2av_line(&p, s, nl ? nl : end);
        s = nl ? nl + 1 : end;
    }
    if (st == FAB_OK && p.rows < n) {
        char why[160];

        p.line = p.line > 0 ? p.line : 1;
        snprintf(why, sizeof(why), "too few rows: %d, the job has %d ranks (N x N)", p.rows, n);
        st = fab_a2av_refuse(&p, FAB_A2AV_SHAPE, why);
    }
    return st;
}

/* The file's bytes: a regular file, at most FAB_A2AV_FILE_MAX, one bounded read. */
static fab_status_t fab_a2av_slurp(const char *path, char **text, size_t *len, char *err,
                                   size_t errlen, char *hint, size_t hintlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat sb;
    ssize_t got = 0;
    const char *why = NULL;

    *text = NULL;
    if (fd < 0 || fstat(fd, &sb) != 0)
        why = strerror(errno);
    else if (!S_ISREG(sb.st_mode))
        why = "not a regular file";
    else if (sb.st_size > FAB_A2AV_FILE_MAX)
        why = "larger than 16 MiB";
    if (why) {
        snprintf(err, errlen, "%s:0: %s", path, why);
        snprintf(hint, hintlen, "name a readable counts file (a regular file) of at most 16 MiB");
        if (fd >= 0)
            close(fd);
        return FAB_ERR_CONFIG;
    }
    *text = malloc((size_t)FAB_A2AV_FILE_MAX + 1);
    while (*text && (size_t)got <= (size_t)FAB_A2AV_FILE_MAX) {
        ssize_t r = read(fd, *text + got, (size_t)FAB_A2AV_FILE_MAX + 1 - (size_t)got);

        if (r <= 0)
            break;
        got += r;
    }
    close(fd);
    if (!*text)
        return FAB_ERR_NOMEM;
    if ((size_t)got > (size_t)FAB_A2AV_FILE_MAX) { /* it grew while read */
        snprintf(err, errlen, "%s:0: larger than 16 MiB", path);
        snprintf(hint, hintlen, "name a counts file of at most 16 MiB");
        free(*text);
        *text = NULL;
        return FAB_ERR_CONFIG;
    }
    *len = (size_t)got;
    return FAB_OK;
}

fab_status_t fab_a2av_read(const char *path, int n, int **counts, char *err, size_t errlen,
                           char *hint, size_t hintlen)
{
    char *text;
    size_t len = 0;
    fab_status_t st;

    *counts = NULL;
    if (n < 1 || n > FAB_A2AV_RANKS_MAX) {
        snprintf(err, errlen, "%s:0: a counts file is for 1 to %d ranks, not %d", path,
                 FAB_A2AV_RANKS_MAX, n);
        snprintf(hint, hintlen, "run on fewer ranks");
        return FAB_ERR_CONFIG;
    }
    st = fab_a2av_slurp(path, &text, &len, err, errlen, hint, hintlen);
    if (st != FAB_OK)
        return st;
    *counts = calloc((size_t)n * (size_t)n, sizeof(**counts));
    st = *counts ? fab_a2av_parse(text, len, path, n, *counts, err, errlen, hint, hintlen)
                 : FAB_ERR_NOMEM;
    free(text);
    if (st != FAB_OK) {
        free(*counts);
        *counts = NULL;
    }
    return st;
}
