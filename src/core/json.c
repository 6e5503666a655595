/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON text (core/json.h). */
#include <math.h>
#include <stdbool.h>

#include "core/json.h"
#include "core/text.h"

void fab_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        size_t n = c >= 0x80 ? fab_utf8_seq((const unsigned char *)s) : 1;

        if (n > 1) { /* a valid multi-byte character, as it is */
            fwrite(s, 1, n, f);
            s += n - 1;
        } else if (n == 0) { /* not UTF-8: the byte as the text \xNN */
            fprintf(f, "\\\\x%02X", c);
        } else if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void fab_json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

void fab_json_compact(char *s)
{
    bool in_str = false, esc = false;
    char *out = s;

    for (char *p = s; *p; p++) {
        if (in_str) {
            *out++ = *p;
            if (esc)
                esc = false;
            else if (*p == '\\')
                esc = true;
            else if (*p == '"')
                in_str = false;
            continue;
        }
        if (*p == '"')
            in_str = true;
        if (*p == '\n') {
            while (p[1] == ' ')
                p++;
            continue;
        }
        *out++ = *p;
    }
    *out = '\0';
}
