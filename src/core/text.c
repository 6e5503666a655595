/* SPDX-License-Identifier: BSD-3-Clause */
/* Bounded text building and trimming (core/text.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

void fab_appendf(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*at >= len) /* already full: count nothing more, point nowhere past the end */
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n > 0)
        *at += (size_t)n;
}

char *fab_trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

size_t fab_utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned min, cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating 0 */
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

int fab_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        size_t n = fab_utf8_seq(p);

        if (n == 0)
            return 0;
        p += n;
    }
    return 1;
}

char *fab_utf8_clean(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    char *out = malloc(strlen(s) * 4 + 1), *o = out;

    if (!out)
        return NULL;
    while (*p) {
        size_t n = fab_utf8_seq(p);

        if (n == 0) {
            o += sprintf(o, "\\x%02X", *p);
            p++;
            continue;
        }
        memcpy(o, p, n);
        o += n;
        p += n;
    }
    *o = '\0';
    return out;
}

size_t fab_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[128];

    if (lb >= sizeof(row) / sizeof(row[0]))
        return la > lb ? la : lb;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* Whether the code point of the UTF-8 sequence at p (k bytes long) changes what a terminal
 * shows rather than being shown: a C1 control (U+0080..U+009F), the line and paragraph
 * separators and the bidirectional embeddings, overrides and isolates (U+2028..U+202E,
 * U+2066..U+2069). */
static int fab_text_hidden(const unsigned char *p, size_t k, unsigned *cp)
{
    if (k == 2)
        *cp = ((p[0] & 0x1fu) << 6) | (p[1] & 0x3fu);
    else if (k == 3)
        *cp = ((p[0] & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
    else
        return 0;
    return (*cp >= 0x80 && *cp <= 0x9f) || (*cp >= 0x2028 && *cp <= 0x202e) ||
           (*cp >= 0x2066 && *cp <= 0x2069);
}

/* Text from the file, made safe for a terminal, as fabricbench-analyze does it (core/text.h): C0
 * controls, DEL and each byte that is not valid UTF-8 as \xNN; the code points of fab_text_hidden
 * as \uNNNN. The output is valid UTF-8 that cannot move the cursor, reorder or forge a line. */
void fab_text_safe(const char *in, char *out, size_t len)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t n = 0;

    while (*p && n + 7 < len) {
        size_t k = fab_utf8_seq(p);
        unsigned cp = 0;

        if (k == 1 && *p >= 0x20 && *p != 0x7f) {
            out[n++] = (char)*p;
        } else if (k <= 1) {
            n += (size_t)snprintf(out + n, len - n, "\\x%02X", *p);
            k = 1;
        } else if (fab_text_hidden(p, k, &cp)) {
            n += (size_t)snprintf(out + n, len - n, "\\u%04X", cp);
        } else {
            memcpy(out + n, p, k);
            n += k;
        }
        p += k;
    }
    out[n] = '\0';
}
