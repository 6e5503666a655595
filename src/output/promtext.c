/* SPDX-License-Identifier: BSD-3-Clause */
/* How a result column becomes a Prometheus metric, and the text format's spelling
 * (output/promtext.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "output/columns.h"
#include "output/promtext.h"

/* How the columns of one unit are exported. family: one metric family for every column of
 * the unit, told apart by the label statistic (the column's name without its unit: p50_us ->
 * p50; nothing left: total); NULL: each column a family of its own, named by the column
 * without its unit, then suffix (line_rate_pct -> fabricbench_line_rate_ratio). */
typedef struct fab_prom_unit {
    const char *unit;   /* as in output/columns.c */
    const char *family; /* shared family, or NULL */
    const char *suffix; /* a column's own family: its base unit */
    const char *token;  /* the unit's part of a column name */
    double scale;       /* to the base unit */
    const char *help;   /* the shared family's HELP */
} fab_prom_unit_t;

static const fab_prom_unit_t fab_prom_units[] = {
    {"us", FAB_PROM "time_seconds", NULL, "_us", 1e-6,
     "per-iteration time of a row in seconds (latency: one way for ping-pongs, whole for "
     "one-sided operations and atomics; bw, bibw, msgrate: one window; "
     "collectives: one call, its slowest rank); statistic: the result file's column without "
     "_us (p50_us: p50)"},
    {"MB/s", FAB_PROM "bandwidth_bytes_per_second", NULL, "MBps", 1e6,
     "bandwidth of a row in bytes per second; statistic: the result file's column without its "
     "unit (MBps: total, all pairs; pair_MBps: pair; algbw_GBps, busbw_GBps: algbw, busbw)"},
    {"GB/s", FAB_PROM "bandwidth_bytes_per_second", NULL, "GBps", 1e9, NULL},
    {"msg/s", FAB_PROM "messages_per_second", NULL, "msgps", 1,
     "message rate of a row; statistic: the result file's column without its unit (msgps: "
     "total, all pairs; pair_msgps: pair)"},
    {"Gb/s", NULL, NULL, NULL, 0, NULL}, /* the same rate as MB/s: one base unit */
    {"%", NULL, "_ratio", "_pct", 0.01, NULL},
    {"fraction", NULL, "_ratio", "", 1, NULL},
    {"s", NULL, "_seconds", "_s", 1, NULL},
};

/* ------------------------------------------------------------------ text */

void fab_prom_label_value(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        size_t n = c >= 0x80 ? fab_utf8_seq((const unsigned char *)s) : 1;

        if (n > 1) {
            fwrite(s, 1, n, f);
            s += n - 1;
        } else if (c == '\\' || c == '"')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (n == 0 || c < 0x20 || c == 0x7f)
            fprintf(f, "\\\\x%02X", c); /* the text \xNN, its backslash escaped */
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void fab_prom_value(FILE *f, double v)
{
    char buf[40];

    if (isnan(v)) {
        fputs("NaN", f);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "+Inf" : "-Inf", f);
        return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof(buf), "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}

/* HELP text: \\ and \n escaped. */
void fab_prom_help(FILE *f, const char *name, const char *help)
{
    fprintf(f, "# HELP %s ", name);
    for (const char *s = help; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
    fprintf(f, "\n# TYPE %s gauge\n", name);
}

/* ------------------------------------------------------------------ names */

static const fab_prom_unit_t *fab_prom_unit(const char *unit)
{
    for (size_t i = 0; i < sizeof(fab_prom_units) / sizeof(fab_prom_units[0]); i++)
        if (strcmp(fab_prom_units[i].unit, unit) == 0)
            return &fab_prom_units[i];
    return NULL;
}

/* The column's name without the unit's token at its end, and without '_' at either end. */
static void fab_prom_stem(const char *name, const char *token, char *out, size_t len)
{
    size_t n = strlen(name), t = token ? strlen(token) : 0;

    if (t > 0 && n >= t && strcmp(name + n - t, token) == 0)
        n -= t;
    while (n > 0 && name[n - 1] == '_')
        n--;
    while (n > 0 && *name == '_')
        name++, n--;
    snprintf(out, len, "%.*s", (int)n, name);
}

/* Column c's family name, its scale and (shared family) its statistic; false when it is not
 * exported (the label bytes, a unit said twice, a name the format does not allow). */
bool fab_prom_column(int c, char *family, size_t flen, char *stat, size_t slen, double *scale,
                     const char **help)
{
    const fab_column_t *col = &fab_columns[c];
    const fab_prom_unit_t *u = fab_prom_unit(col->unit);
    char stem[64];

    stat[0] = '\0';
    *help = NULL;
    if (strcmp(col->name, "bytes") == 0 || (u && !u->family && !u->suffix))
        return false;
    fab_prom_stem(col->name, u ? u->token : NULL, stem, sizeof(stem));
    *scale = u ? u->scale : 1;
    if (u && u->family) {
        snprintf(family, flen, "%s", u->family);
        snprintf(stat, slen, "%s", stem[0] ? stem : "total");
        for (const fab_prom_unit_t *v = fab_prom_units; !*help; v++)
            if (v->family && strcmp(v->family, u->family) == 0)
                *help = v->help; /* the family's first unit has its HELP */
    } else {
        snprintf(family, flen, FAB_PROM "%s%s", stem, u ? u->suffix : "");
    }
    for (const char *s = family; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return stem[0] || (u && u->family);
}
