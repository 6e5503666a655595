/* SPDX-License-Identifier: BSD-3-Clause */
/* Numbers in one grammar (core/num.h): the scanner, the reasons a text is not a number, and
 * messages that say what a range accepts. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/num.h"
#include "core/text.h"

static size_t fab_digits(const char *p)
{
    size_t n = 0;

    while (isdigit((unsigned char)p[n]))
        n++;
    return n;
}

/* The sign, then "0x" or "0X": the start of a hexadecimal number, which strtod would read. */
static bool fab_num_hex(const char *s)
{
    s += *s == '+' || *s == '-';
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

size_t fab_num_prefix(const char *s, double *v)
{
    const char *p = s;
    size_t whole, frac = 0;
    char *end = NULL;

    *v = 0;
    if (fab_num_hex(s))
        return 0;
    p += *p == '+' || *p == '-';
    whole = fab_digits(p);
    p += whole;
    if (*p == '.') {
        frac = fab_digits(p + 1);
        p += 1 + frac;
    }
    if (whole + frac == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;

        q += *q == '+' || *q == '-';
        if (fab_digits(q) > 0)
            p = q + fab_digits(q);
    }
    /* the grammar is a part of strtod's, so strtod reads the same characters: beyond a double
     * it gives +-HUGE_VAL (out of any range), below the smallest 0 or a denormal (ERANGE is
     * not an error here: the value says it) */
    errno = 0;
    *v = strtod(s, &end);
    if (end != p) {
        *v = 0;
        return 0;
    }
    return (size_t)(p - s);
}

const char *fab_num_why(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    double v;
    size_t n;

    if (!*s)
        return "it is empty";
    for (const char *c = s; *c; c++)
        if (isspace((unsigned char)*c))
            return "spaces are not accepted";
    if (fab_num_hex(s))
        return "hexadecimal is not accepted: write it in decimal";
    if (strncasecmp(p, "inf", 3) == 0 || strncasecmp(p, "nan", 3) == 0)
        return "it is not a finite number";
    n = fab_num_prefix(s, &v);
    if (n == 0)
        return "write it in decimal digits: 5, 0.25, 1e9";
    if (s[n])
        return "it has more after the number";
    return NULL;
}

bool fab_num_in(const fab_range_t *r, double v)
{
    if (!isfinite(v) || v > r->max || v < r->min || (r->above_min && v <= r->min))
        return false;
    return !r->whole || v == floor(v);
}

void fab_num_text(double v, char *buf, size_t len)
{
    char *e;

    if (v == 0) {
        snprintf(buf, len, "0");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e10) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* 1e+13 -> 1e13, 2.5e-07 -> 2.5e-7 */
    e = strchr(buf, 'e');
    if (e) {
        char *d = e + 1, *s = e + 1;

        if (*s == '+')
            s++;
        else if (*s == '-')
            *d++ = *s++;
        while (*s == '0' && s[1])
            s++;
        memmove(d, s, strlen(s) + 1);
    }
}

void fab_range_text(const fab_range_t *r, char *buf, size_t len)
{
    char lo[40], hi[40], unit[64] = "";

    fab_num_text(r->min, lo, sizeof(lo));
    fab_num_text(r->max, hi, sizeof(hi));
    if (r->unit && strcmp(r->unit, "%") == 0)
        snprintf(unit, sizeof(unit), "%%");
    else if (r->unit)
        snprintf(unit, sizeof(unit), " %s", r->unit);
    if (r->above_min)
        snprintf(buf, len, "%s more than %s and at most %s%s",
                 r->whole ? "a whole number" : "a number", lo, hi, unit);
    else
        snprintf(buf, len, "%s from %s to %s%s", r->whole ? "a whole number" : "a number", lo, hi,
                 unit);
}

void fab_num_quote(const char *s, char *buf, size_t len)
{
    char safe[256];
    size_t n;

    fab_text_safe(s, safe, sizeof(safe));
    n = strlen(safe);
    if (n > 40 || strlen(s) >= sizeof(safe)) {
        n = 37;
        while (n > 0 && ((unsigned char)safe[n] & 0xC0) == 0x80)
            n--; /* not inside a UTF-8 sequence */
        snprintf(buf, len, "'%.*s...'", (int)n, safe);
    } else {
        snprintf(buf, len, "'%s'", safe);
    }
}

fab_status_t fab_num_parse(const char *s, const fab_range_t *r, double *v, char *err, size_t errlen)
{
    const char *why = fab_num_why(s);
    char range[160], q[64];
    double x = 0;

    fab_range_text(r, range, sizeof(range));
    if (why) {
        fab_num_quote(s, q, sizeof(q));
        snprintf(err, errlen, "%s is not a number (%s); give %s", q, why, range);
        return FAB_ERR_USAGE;
    }
    fab_num_prefix(s, &x);
    /* a number's text is safe to print as it is; a long one is cut */
    if (r->whole && isfinite(x) && x != floor(x)) {
        snprintf(err, errlen, "%.40s%s is not a whole number; give %s", s,
                 strlen(s) > 40 ? "..." : "", range);
        return FAB_ERR_USAGE;
    }
    if (!fab_num_in(r, x)) {
        snprintf(err, errlen, "%.40s%s is out of range; give %s", s, strlen(s) > 40 ? "..." : "",
                 range);
        return FAB_ERR_USAGE;
    }
    *v = x;
    return FAB_OK;
}
