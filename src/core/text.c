/* Bounded text building and trimming (core/text.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
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
