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

#include "core/num.h"
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

/* How the option is named in its messages: --window, or -m/--sizes where it has a letter. */
static void fab_opt_label(const fab_opt_t *d, char *buf, size_t len)
{
    if (d->shortname)
        snprintf(buf, len, "-%c/--%s", d->shortname, d->name);
    else
        snprintf(buf, len, "--%s", d->name);
}

static fab_range_t fab_opt_range(const fab_opt_t *d)
{
    fab_range_t r = {d->min, d->max, d->above_min, true, d->unit};

    r.whole = d->type != FAB_OPT_DOUBLE && d->type != FAB_OPT_RATE && d->type != FAB_OPT_RATES;
    return r;
}

static fab_status_t fab_parse_number(const fab_opt_t *d, const char *val, double *out, char *err,
                                     size_t errlen)
{
    fab_range_t r = fab_opt_range(d);
    char sub[384], label[64];

    if (fab_num_parse(val, &r, out, sub, sizeof(sub)) == FAB_OK)
        return FAB_OK;
    fab_opt_label(d, label, sizeof(label));
    snprintf(err, errlen, "%s: %s", label, sub);
    return FAB_ERR_USAGE;
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

void fab_opt_word(const fab_opt_t *d, int want, char *buf, size_t len)
{
    int i = 0;

    buf[0] = '\0';
    for (const char *p = d->arg; p && *p; i++) {
        size_t l = strcspn(p, "|");

        if (i == want) {
            snprintf(buf, len, "%.*s", (int)l, p);
            return;
        }
        p += l + (p[l] == '|');
    }
}

/* A rate's bounds as a person writes them: 0, 500K, 400G, 1000T. */
static void fab_rate_bound(double gbps, char *buf, size_t len)
{
    if (gbps == 0)
        snprintf(buf, len, "0");
    else
        fab_rate_text(gbps, buf, len);
}

/* A rate: a number with an optional unit K, M, G, T (10^3..10^12 bit/s), optionally followed
 * by b/s, bit or bps; plain: Gb/s. */
static fab_status_t fab_parse_rate(const fab_opt_t *d, const char *val, double *out, char *err,
                                   size_t errlen)
{
    static const char units[] = "kKmMgGtT";
    static const double scales[] = {1e-6, 1e-6, 1e-3, 1e-3, 1, 1, 1e3, 1e3};
    fab_range_t r = fab_opt_range(d);
    char label[64], lo[32], hi[32], range[256], q[64];
    const char *u, *end;
    double v = 0, scale = 1.0;
    size_t n = fab_num_prefix(val, &v);

    fab_opt_label(d, label, sizeof(label));
    fab_rate_bound(d->min, lo, sizeof(lo));
    fab_rate_bound(d->max, hi, sizeof(hi));
    snprintf(range, sizeof(range),
             "a rate %s %s %s %s (Gb/s, or with a unit K, M, G, T: 100G, 25Gb/s, 800M, 2.5G)",
             d->above_min ? "more than" : "from", lo, d->above_min ? "and at most" : "to", hi);
    end = val + n;
    if (n > 0 && *end && (u = strchr(units, *end)) != NULL) {
        scale = scales[u - units];
        end++;
    }
    if (n > 0 && (strcmp(end, "b/s") == 0 || strcmp(end, "bit") == 0 || strcmp(end, "bps") == 0))
        end += strlen(end);
    if (n == 0 || *end) {
        const char *why = n == 0 || val[strcspn(val, " \t\n\v\f\r")] ? fab_num_why(val) : NULL;

        fab_num_quote(val, q, sizeof(q));
        snprintf(err, errlen, "%s: %s is not a rate (%s); give %s", label, q,
                 why ? why : "a unit is K, M, G or T, then optionally b/s, bit or bps", range);
        return FAB_ERR_USAGE;
    }
    r.whole = false;
    if (!fab_num_in(&r, v * scale)) {
        snprintf(err, errlen, "%s: %.40s%s is out of range; give %s", label, val,
                 strlen(val) > 40 ? "..." : "", range);
        return FAB_ERR_USAGE;
    }
    *out = v * scale;
    return FAB_OK;
}

/* One value of a list option (INTS: a whole number; RATES: a rate). */
static fab_status_t fab_parse_item(const fab_opt_t *d, const char *val, double *out, char *err,
                                   size_t errlen)
{
    int c = 0;
    fab_status_t st;

    if (d->type != FAB_OPT_WORDS)
        return d->type == FAB_OPT_RATES ? fab_parse_rate(d, val, out, err, errlen)
                                        : fab_parse_number(d, val, out, err, errlen);
    st = fab_parse_choice(d, val, &c, err, errlen);
    *out = c;
    return st;
}

/* "1,4,8", "1:8" (1,2,4,8), "100M:1G,2G": values in order, each once. */
static fab_status_t fab_parse_list(const fab_opt_t *d, const char *val, fab_list_t *out, char *err,
                                   size_t errlen)
{
    const char *eg = d->type == FAB_OPT_RATES   ? "1G,2.5G,5G or 1G:8G"
                     : d->type == FAB_OPT_WORDS ? d->arg
                                                : "1,4,8 or 1:8";
    char buf[512], label[64], q[64], *save = NULL;
    fab_list_t l = {0};

    fab_opt_label(d, label, sizeof(label));
    fab_num_quote(val, q, sizeof(q));
    if (!*val || strlen(val) >= sizeof(buf) || val[0] == ',' || val[strlen(val) - 1] == ',' ||
        strstr(val, ",,")) {
        snprintf(err, errlen,
                 "%s: %s is not a list of values (%s); give values separated by commas, "
                 "or A:B, e.g. %s",
                 label, q,
                 !*val                        ? "it is empty"
                 : strlen(val) >= sizeof(buf) ? "it is too long"
                                              : "it has an empty entry",
                 eg);
        return FAB_ERR_USAGE;
    }
    strcpy(buf, val);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        double a, b;
        fab_status_t st;

        if (colon &&
            (d->type == FAB_OPT_WORDS || colon == tok || !colon[1] || strchr(colon + 1, ':'))) {
            fab_num_quote(tok, q, sizeof(q));
            snprintf(err, errlen,
                     "%s: %s is not a range A:B (one value on each side of one ':'), "
                     "e.g. %s",
                     label, q, eg);
            return FAB_ERR_USAGE;
        }
        if (colon)
            *colon = '\0';
        st = fab_parse_item(d, tok, &a, err, errlen);
        b = a;
        if (st == FAB_OK && colon)
            st = fab_parse_item(d, colon + 1, &b, err, errlen);
        if (st != FAB_OK)
            return st;
        if (b < a) {
            snprintf(err, errlen, "%s: the range %s:%s runs backwards", label, tok, colon + 1);
            return FAB_ERR_USAGE;
        }
        for (double x = a;; x *= 2) {
            double v = x < b ? x : b;

            for (int i = 0; i < l.n; i++)
                if (l.v[i] == v) {
                    snprintf(err, errlen, "%s: %s gives %g twice", label, q, v);
                    return FAB_ERR_USAGE;
                }
            if (l.n >= FAB_LIST_MAX) {
                snprintf(err, errlen, "%s: %s has more than %d values", label, q, FAB_LIST_MAX);
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

/* A,B: two different ranks, each a whole number in [min, max]. */
static fab_status_t fab_parse_pair(const fab_opt_t *d, const char *val, fab_pair_t *out, char *err,
                                   size_t errlen)
{
    fab_range_t r = {d->min, d->max, false, true, NULL};
    const char *comma = strchr(val, ',');
    char part[2][64], sub[384], q[64];
    double v[2];

    fab_num_quote(val, q, sizeof(q));
    if (!comma || strchr(comma + 1, ',') || (size_t)(comma - val) >= sizeof(part[0]) ||
        strlen(comma + 1) >= sizeof(part[1])) {
        snprintf(err, errlen, "--%s: %s is not two rank numbers A,B (e.g. 0,1)", d->name, q);
        return FAB_ERR_USAGE;
    }
    snprintf(part[0], sizeof(part[0]), "%.*s", (int)(comma - val), val);
    snprintf(part[1], sizeof(part[1]), "%s", comma + 1);
    for (int i = 0; i < 2; i++)
        if (fab_num_parse(part[i], &r, &v[i], sub, sizeof(sub)) != FAB_OK) {
            snprintf(err, errlen, "--%s: %s is not two rank numbers A,B: %s", d->name, q, sub);
            return FAB_ERR_USAGE;
        }
    if (v[0] == v[1]) {
        snprintf(err, errlen, "--%s: %s names rank %.0f twice; give two different ranks", d->name,
                 q, v[0]);
        return FAB_ERR_USAGE;
    }
    out->a = (int)v[0];
    out->b = (int)v[1];
    return FAB_OK;
}

/* One size in the row's range; a row without one (max 0): a message size, 1 to FAB_SIZE_MAX. */
static fab_status_t fab_parse_size(const fab_opt_t *d, const char *val, size_t *out, char *err,
                                   size_t errlen)
{
    return d->max > 0 ? fab_size_parse_in(val, (size_t)d->min, (size_t)d->max, out, err, errlen)
                      : fab_size_parse(val, out, err, errlen);
}

fab_status_t fab_opt_apply(const fab_opt_t *d, void *base, const char *val, char *err,
                           size_t errlen)
{
    char *at = (char *)base + d->offset, suberr[384], label[64];
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
                 : fab_parse_size(d, val, (size_t *)at, suberr, sizeof(suberr));
        if (st != FAB_OK) {
            fab_opt_label(d, label, sizeof(label));
            snprintf(err, errlen, "%s: %s", label, suberr);
        }
        break;
    case FAB_OPT_PAIR:
        st = fab_parse_pair(d, val, (fab_pair_t *)at, err, errlen);
        break;
    case FAB_OPT_STRING:
        fab_opt_label(d, label, sizeof(label));
        if (!*val) {
            snprintf(err, errlen, "%s needs a value (%s)", label, d->arg);
            st = FAB_ERR_USAGE;
        } else if (d->check && (st = d->check(val, suberr, sizeof(suberr))) != FAB_OK) {
            snprintf(err, errlen, "%s: %s", label, suberr);
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
    case FAB_OPT_WORDS:
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
    case FAB_OPT_COUNT: {
        fab_range_t r = {0, 9, false, true, NULL};

        v = 0;
        if (d->def && fab_num_parse(d->def, &r, &v, err, sizeof(err)) != FAB_OK)
            v = 0;
        *(int *)at = (int)v;
        break;
    }
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
        if (d->def && fab_parse_size(d, d->def, (size_t *)at, err, sizeof(err)) != FAB_OK)
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
    case FAB_OPT_WORDS:
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
    fab_range_t count = {0, 9, false, true, NULL};
    char q[64], sub[256];
    double n;

    *on = false;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(val, no[i]) == 0)
            return FAB_OK;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(val, yes[i]) == 0) {
            *on = true;
            return fab_opt_apply(d, base, NULL, err, errlen);
        }
    if (d->type == FAB_OPT_COUNT) {
        if (fab_num_parse(val, &count, &n, sub, sizeof(sub)) != FAB_OK) {
            snprintf(err, errlen, "--%s: %s (or one of 1, yes, true, on, 0, no, false, off)",
                     d->name, sub);
            return FAB_ERR_USAGE;
        }
        *(int *)((char *)base + d->offset) = (int)n;
        *on = n > 0;
        return FAB_OK;
    }
    fab_num_quote(val, q, sizeof(q));
    snprintf(err, errlen, "--%s: %s is not one of 1, yes, true, on, 0, no, false, off", d->name, q);
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
    case FAB_OPT_RATES:
    case FAB_OPT_WORDS: {
        const fab_list_t *l = (const fab_list_t *)at;

        for (int i = 0; i < l->n && n + 1 < len; i++) {
            char one[32];

            if (d->type == FAB_OPT_RATES)
                fab_rate_text(l->v[i], one, sizeof(one));
            else if (d->type == FAB_OPT_WORDS)
                fab_opt_word(d, (int)l->v[i], one, sizeof(one));
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
