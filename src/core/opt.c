/* SPDX-License-Identifier: BSD-3-Clause */
/* Option values from text (core/opt.h): one parser per type, with messages that name the
 * option and what it accepts. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/opt.h"
#include "core/sizes.h"

void fab_rate_text(double gbps, char *buf, size_t len)
{
    if (gbps >= 1000)
        snprintf(buf, len, "%gT", gbps / 1000);
    else if (gbps >= 1)
        snprintf(buf, len, "%gG", gbps);
    else if (gbps >= 1e-3)
        snprintf(buf, len, "%gM", gbps * 1e3);
    else
        snprintf(buf, len, "%gK", gbps * 1e6);
}

bool fab_opt_takes_value(const fab_opt_t *d)
{
    return d->type != FAB_OPT_FLAG && d->type != FAB_OPT_COUNT;
}

static fab_status_t fab_parse_number(const fab_opt_t *d, const char *val, double *out, char *err,
                                     size_t errlen)
{
    char *end = NULL;
    double v;
    bool integer = d->type != FAB_OPT_DOUBLE;

    errno = 0;
    v = integer ? (double)strtoll(val, &end, 10) : strtod(val, &end);
    if (end == val || *end || errno == ERANGE || isnan(v)) {
        snprintf(err, errlen, "--%s: '%s' is not %s", d->name, val,
                 integer ? "a whole number" : "a number");
        return FAB_ERR_USAGE;
    }
    if (integer ? (v < d->min || v > d->max) : (v <= d->min || v > d->max)) {
        if (integer)
            snprintf(err, errlen, "--%s: %s is out of range (%.0f to %.0f %s)", d->name, val,
                     d->min, d->max, d->unit ? d->unit : "");
        else
            snprintf(err, errlen, "--%s: %s is out of range (more than %g, at most %g %s)", d->name,
                     val, d->min, d->max, d->unit ? d->unit : "");
        return FAB_ERR_USAGE;
    }
    *out = v;
    return FAB_OK;
}

/* `arg` lists the choices in the order of their enum values: "ucx|ob1|env". */
static fab_status_t fab_parse_choice(const fab_opt_t *d, const char *val, int *out, char *err,
                                     size_t errlen)
{
    size_t n = strlen(val);
    int i = 0;

    for (const char *p = d->arg; *p; i++) {
        size_t len = strcspn(p, "|");

        if (len == n && strncmp(p, val, n) == 0) {
            *out = i;
            return FAB_OK;
        }
        p += len + (p[len] == '|');
    }
    snprintf(err, errlen, "--%s: '%s' is not one of %s", d->name, val, d->arg);
    return FAB_ERR_USAGE;
}

/* A rate: a number with an optional unit K, M, G, T (10^3..10^12 bit/s), optionally followed
 * by b/s, bit or bps; plain: Gb/s. */
static fab_status_t fab_parse_rate(const fab_opt_t *d, const char *val, double *out, char *err,
                                   size_t errlen)
{
    static const char units[] = "kKmMgGtT";
    static const double scales[] = {1e-6, 1e-6, 1e-3, 1e-3, 1, 1, 1e3, 1e3};
    char *end = NULL;
    const char *u;
    double v, scale = 1.0;

    errno = 0;
    v = strtod(val, &end);
    if (end != val && errno == 0) {
        if (*end && (u = strchr(units, *end)) != NULL) {
            scale = scales[u - units];
            end++;
        }
        if (strcmp(end, "b/s") == 0 || strcmp(end, "bit") == 0 || strcmp(end, "bps") == 0)
            end += strlen(end);
    }
    if (end == val || *end || errno || !(v > 0) || !isfinite(v)) {
        snprintf(err, errlen,
                 "--%s: '%s' is not a rate (a positive number of Gb/s, or with a unit: 100G, "
                 "25Gb/s, 800M, 500K)",
                 d->name, val);
        return FAB_ERR_USAGE;
    }
    if (v * scale > d->max || v * scale <= d->min) {
        snprintf(err, errlen, "--%s: %s is out of range (more than %g, at most %g Gb/s)", d->name,
                 val, d->min, d->max);
        return FAB_ERR_USAGE;
    }
    *out = v * scale;
    return FAB_OK;
}

/* One value of a list option (INTS: a whole number; RATES: a rate). */
static fab_status_t fab_parse_item(const fab_opt_t *d, const char *val, double *out, char *err,
                                   size_t errlen)
{
    fab_opt_t one = *d;

    one.type = d->type == FAB_OPT_RATES ? FAB_OPT_RATE : FAB_OPT_LONG;
    return one.type == FAB_OPT_RATE ? fab_parse_rate(&one, val, out, err, errlen)
                                    : fab_parse_number(&one, val, out, err, errlen);
}

/* "1,4,8", "1:8" (1,2,4,8), "100M:1G,2G": values in order, each once. */
static fab_status_t fab_parse_list(const fab_opt_t *d, const char *val, fab_list_t *out, char *err,
                                   size_t errlen)
{
    char buf[512], *save = NULL;
    fab_list_t l = {0};

    if (!*val || strlen(val) >= sizeof(buf) || val[0] == ',' || val[strlen(val) - 1] == ',' ||
        strstr(val, ",,")) {
        snprintf(err, errlen, "--%s: '%s' is not a list of values (e.g. %s)", d->name, val,
                 d->type == FAB_OPT_RATES ? "1G,2.5G,5G or 1G:8G" : "1,4,8 or 1:8");
        return FAB_ERR_USAGE;
    }
    strcpy(buf, val);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        double a, b;
        fab_status_t st;

        if (colon)
            *colon = '\0';
        st = fab_parse_item(d, tok, &a, err, errlen);
        b = a;
        if (st == FAB_OK && colon)
            st = fab_parse_item(d, colon + 1, &b, err, errlen);
        if (st != FAB_OK)
            return st;
        if (b < a) {
            snprintf(err, errlen, "--%s: the range %s:%s runs backwards", d->name, tok, colon + 1);
            return FAB_ERR_USAGE;
        }
        for (double x = a;; x *= 2) {
            double v = x < b ? x : b;

            for (int i = 0; i < l.n; i++)
                if (l.v[i] == v) {
                    snprintf(err, errlen, "--%s: '%s' gives %g twice", d->name, val, v);
                    return FAB_ERR_USAGE;
                }
            if (l.n >= FAB_LIST_MAX) {
                snprintf(err, errlen, "--%s: '%s' has more than %d values", d->name, val,
                         FAB_LIST_MAX);
                return FAB_ERR_USAGE;
            }
            l.v[l.n++] = v;
            if (v >= b)
                break;
        }
    }
    *out = l;
    return FAB_OK;
}

static fab_status_t fab_parse_pair(const fab_opt_t *d, const char *val, fab_pair_t *out, char *err,
                                   size_t errlen)
{
    int a, b, n = -1;

    if (sscanf(val, "%d,%d%n", &a, &b, &n) != 2 || n < 0 || val[n] != '\0' || a < 0 || b < 0) {
        snprintf(err, errlen, "--%s: '%s' is not two rank numbers A,B", d->name, val);
        return FAB_ERR_USAGE;
    }
    if (a == b) {
        snprintf(err, errlen, "--%s: %s names rank %d twice; give two different ranks", d->name,
                 val, a);
        return FAB_ERR_USAGE;
    }
    out->a = a;
    out->b = b;
    return FAB_OK;
}

fab_status_t fab_opt_apply(const fab_opt_t *d, void *base, const char *val, char *err,
                           size_t errlen)
{
    char *at = (char *)base + d->offset, suberr[256];
    double v;
    fab_status_t st = FAB_OK;

    switch (d->type) {
    case FAB_OPT_FLAG:
        *(bool *)at = true;
        break;
    case FAB_OPT_COUNT:
        (*(int *)at)++;
        break;
    case FAB_OPT_LONG:
    case FAB_OPT_INT:
    case FAB_OPT_DOUBLE:
        st = fab_parse_number(d, val, &v, err, errlen);
        if (st == FAB_OK && d->type == FAB_OPT_LONG)
            *(long *)at = (long)v;
        else if (st == FAB_OK && d->type == FAB_OPT_INT)
            *(int *)at = (int)v;
        else if (st == FAB_OK)
            *(double *)at = v;
        break;
    case FAB_OPT_SIZES:
    case FAB_OPT_SIZE:
        st = d->type == FAB_OPT_SIZES
                 ? fab_sizes_parse(val, (fab_sizes_t *)at, suberr, sizeof(suberr))
                 : fab_size_parse(val, (size_t *)at, suberr, sizeof(suberr));
        if (st != FAB_OK && d->shortname)
            snprintf(err, errlen, "-%c/--%s: %s", d->shortname, d->name, suberr);
        else if (st != FAB_OK)
            snprintf(err, errlen, "--%s: %s", d->name, suberr);
        break;
    case FAB_OPT_PAIR:
        st = fab_parse_pair(d, val, (fab_pair_t *)at, err, errlen);
        break;
    case FAB_OPT_STRING:
        if (!*val) {
            snprintf(err, errlen, "--%s needs a value (%s)", d->name, d->arg);
            st = FAB_ERR_USAGE;
        } else {
            *(const char **)at = val;
        }
        break;
    case FAB_OPT_CHOICE:
        st = fab_parse_choice(d, val, (int *)at, err, errlen);
        break;
    case FAB_OPT_RATE:
        st = fab_parse_rate(d, val, (double *)at, err, errlen);
        break;
    case FAB_OPT_INTS:
    case FAB_OPT_RATES:
        st = fab_parse_list(d, val, (fab_list_t *)at, err, errlen);
        break;
    }
    return st;
}

void fab_opt_default(const fab_opt_t *d, void *base)
{
    char *at = (char *)base + d->offset, err[256];
    double v;

    switch (d->type) {
    case FAB_OPT_FLAG:
        *(bool *)at = false;
        break;
    case FAB_OPT_COUNT:
        *(int *)at = d->def ? atoi(d->def) : 0;
        break;
    case FAB_OPT_LONG:
    case FAB_OPT_INT:
    case FAB_OPT_DOUBLE:
    case FAB_OPT_RATE:
        v = d->unset;
        if (d->def && d->type != FAB_OPT_RATE &&
            fab_parse_number(d, d->def, &v, err, 256) != FAB_OK)
            v = d->unset;
        else if (d->def && d->type == FAB_OPT_RATE &&
                 fab_parse_rate(d, d->def, &v, err, 256) != FAB_OK)
            v = d->unset;
        if (d->type == FAB_OPT_LONG)
            *(long *)at = (long)v;
        else if (d->type == FAB_OPT_INT)
            *(int *)at = (int)v;
        else
            *(double *)at = v;
        break;
    case FAB_OPT_SIZES:
        memset(at, 0, sizeof(fab_sizes_t));
        if (d->def && fab_sizes_parse(d->def, (fab_sizes_t *)at, err, sizeof(err)) != FAB_OK)
            memset(at, 0, sizeof(fab_sizes_t));
        break;
    case FAB_OPT_SIZE:
        *(size_t *)at = 0;
        if (d->def && fab_size_parse(d->def, (size_t *)at, err, sizeof(err)) != FAB_OK)
            *(size_t *)at = 0;
        break;
    case FAB_OPT_PAIR:
        memset(at, 0, sizeof(fab_pair_t));
        if (d->def)
            fab_parse_pair(d, d->def, (fab_pair_t *)at, err, sizeof(err));
        break;
    case FAB_OPT_STRING:
        *(const char **)at = NULL;
        break;
    case FAB_OPT_CHOICE:
        *(int *)at = 0;
        if (d->def)
            fab_parse_choice(d, d->def, (int *)at, err, sizeof(err));
        break;
    case FAB_OPT_INTS:
    case FAB_OPT_RATES:
        memset(at, 0, sizeof(fab_list_t));
        if (d->def && fab_parse_list(d, d->def, (fab_list_t *)at, err, sizeof(err)) != FAB_OK)
            memset(at, 0, sizeof(fab_list_t));
        break;
    }
}

fab_status_t fab_opt_apply_env_flag(const fab_opt_t *d, void *base, const char *val, bool *on,
                                    char *err, size_t errlen)
{
    static const char *const yes[] = {"1", "yes", "true", "on"}, *const no[] = {"0", "no", "false",
                                                                                "off"};
    char *end = NULL;
    long n;

    *on = false;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(val, no[i]) == 0)
            return FAB_OK;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(val, yes[i]) == 0) {
            *on = true;
            return fab_opt_apply(d, base, NULL, err, errlen);
        }
    n = strtol(val, &end, 10);
    if (d->type == FAB_OPT_COUNT && *end == '\0' && n >= 0 && n <= 9) {
        *(int *)((char *)base + d->offset) = (int)n;
        *on = n > 0;
        return FAB_OK;
    }
    snprintf(err, errlen, "--%s: '%s' is not one of 1, yes, true, on, 0, no, false, off%s", d->name,
             val, d->type == FAB_OPT_COUNT ? " or a count" : "");
    return FAB_ERR_USAGE;
}

void fab_opt_env_name(const fab_opt_t *d, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "FABRICBENCH_");

    for (const char *p = d->name; *p && n + 1 < len; p++)
        buf[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    if (n < len)
        buf[n] = '\0';
}

void fab_opt_format(const fab_opt_t *d, const void *base, char *buf, size_t len)
{
    const char *at = (const char *)base + d->offset;
    size_t n = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    switch (d->type) {
    case FAB_OPT_FLAG:
        snprintf(buf, len, "%s", *(const bool *)at ? "on" : "off");
        break;
    case FAB_OPT_COUNT:
    case FAB_OPT_INT:
        snprintf(buf, len, "%d", *(const int *)at);
        break;
    case FAB_OPT_LONG:
        snprintf(buf, len, "%ld", *(const long *)at);
        break;
    case FAB_OPT_DOUBLE:
    case FAB_OPT_RATE:
        snprintf(buf, len, "%g", *(const double *)at);
        break;
    case FAB_OPT_SIZE:
        snprintf(buf, len, "%zu", *(const size_t *)at);
        break;
    case FAB_OPT_SIZES: {
        const fab_sizes_t *sz = (const fab_sizes_t *)at;

        for (int i = 0; i < sz->n && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s%zu", i ? "," : "", sz->v[i]);
        break;
    }
    case FAB_OPT_PAIR:
        snprintf(buf, len, "%d,%d", ((const fab_pair_t *)at)->a, ((const fab_pair_t *)at)->b);
        break;
    case FAB_OPT_STRING:
        snprintf(buf, len, "%s", *(const char *const *)at ? *(const char *const *)at : "");
        break;
    case FAB_OPT_INTS:
    case FAB_OPT_RATES: {
        const fab_list_t *l = (const fab_list_t *)at;

        for (int i = 0; i < l->n && n + 1 < len; i++) {
            char one[32];

            if (d->type == FAB_OPT_RATES)
                fab_rate_text(l->v[i], one, sizeof(one));
            else
                snprintf(one, sizeof(one), "%g", l->v[i]);
            snprintf(buf + n, len - n, "%s%s", i ? "," : "", one); /* truncated at len */
            n += strlen(buf + n);
        }
        break;
    }
    case FAB_OPT_CHOICE: {
        int want = *(const int *)at, i = 0;

        for (const char *p = d->arg; *p; i++) {
            size_t l = strcspn(p, "|");

            if (i == want) {
                snprintf(buf, len, "%.*s", (int)l, p);
                break;
            }
            p += l + (p[l] == '|');
        }
        break;
    }
    }
}
