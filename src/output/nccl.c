/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl-tests' layout of the collectives' rows (output/nccl.h). A line is one size of one
 * collective: its out-of-place row and, when the run measures it (--inplace), its in-place
 * row, which comes from the instance right after; a half not measured is N/A. The text
 * prints a kernel's lines at its end (an out-of-place instance waits for its in-place one);
 * the JSON document is written at the run's end. Only collectives: other kernels get a '#'
 * line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "fab_version.h"
#include "kernel/traits.h"
#include "net/runinfo.h"
#include "output/columns.h"
#include "output/nccl.h"

#define FAB_NCCL_MAX_LINES (FAB_MAX_KERNELS * FAB_MAX_SIZES)

typedef struct fab_nccl_half {
    bool have;
    double time_us, algbw, busbw;
    long wrong; /* -1: not checked */
} fab_nccl_half_t;

typedef struct fab_nccl_line {
    const char *kernel;
    uint64_t bytes, iters;
    long long count;
    char type[16], redop[16];
    int root;
    fab_nccl_half_t h[2]; /* out of place, in place */
} fab_nccl_line_t;

typedef struct fab_nccl {
    FILE *f;
    bool json;
    int average;
    const fab_launchopts_t *lopt;
    const fab_measopts_t *mopt;
    int nranks;
    fab_nccl_line_t *lines;
    int n, printed;
    long wrong;     /* every line's wrong elements */
    double bus_sum; /* busbw of the lines, out of place where measured, else in place */
    int bus_n;      /* how many */
    char start[32]; /* the run's start, for the JSON document */
} fab_nccl_t;

double fab_nccl_time(const fab_row_t *r, int average)
{
    return average == FAB_AVERAGE_RANK0 ? r->rank0_avg
           : average == FAB_AVERAGE_MIN ? r->imb_tmin
           : average == FAB_AVERAGE_MAX ? r->imb_tmax
                                        : r->osu_avg;
}

void fab_nccl_num(char *buf, size_t len, double v, int w)
{
    double a = fabs(v);

    if (!isfinite(v))
        snprintf(buf, len, "%*s", w, "N/A");
    else if (a < pow(10, w - 3))
        snprintf(buf, len, "%*.2f", w, v);
    else if (a < pow(10, w - 2))
        snprintf(buf, len, "%*.1f", w, v);
    else if (a < pow(10, w))
        snprintf(buf, len, "%*.0f", w, v);
    else
        snprintf(buf, len, "%*.1e", w, v);
}

static const char *fab_nccl_str(const fab_kinst_t *ki, const fab_row_t *r, const char *col)
{
    fab_value_t v = {0, NAN, ""};
    int c = fab_column_find(col);

    if (c >= 0)
        fab_column_value(c, ki, r, &v);
    return v.s && *v.s ? v.s : "none";
}

/* The line of ki's kernel at r's size among those not printed yet, a new one if none. */
static fab_nccl_line_t *fab_nccl_line(fab_nccl_t *t, const fab_kinst_t *ki, const fab_row_t *r)
{
    fab_value_t v = {-1, NAN, ""};
    fab_nccl_line_t *l;
    int c = fab_column_find("count");

    for (int i = t->printed; i < t->n; i++)
        if (t->lines[i].kernel == ki->k->name && t->lines[i].bytes == r->bytes)
            return &t->lines[i];
    if (t->n == FAB_NCCL_MAX_LINES)
        return NULL;
    l = &t->lines[t->n++];
    memset(l, 0, sizeof(*l));
    l->kernel = ki->k->name;
    l->bytes = r->bytes;
    l->iters = r->iters;
    if (c >= 0)
        fab_column_value(c, ki, r, &v);
    l->count = (long long)v.i;
    snprintf(l->type, sizeof(l->type), "%s", fab_nccl_str(ki, r, "type"));
    snprintf(l->redop, sizeof(l->redop), "%s", fab_nccl_str(ki, r, "redop"));
    l->root = fab_kcoll(ki->k)->uses_root ? t->mopt->root : -1;
    return l;
}

static fab_status_t fab_nccl_row(void *arg, const fab_kinst_t *ki, const fab_row_t *r,
                                 const double *samples, size_t nsamples)
{
    fab_nccl_t *t = arg;
    fab_nccl_line_t *l;
    fab_nccl_half_t *h;
    double s = fab_nccl_time(r, t->average);

    (void)samples;
    (void)nsamples;
    if (ki->k->kind != FAB_KIND_COLLECTIVE || !(l = fab_nccl_line(t, ki, r)))
        return FAB_OK;
    h = &l->h[ki->inplace ? 1 : 0];
    h->have = true;
    h->time_us = s * 1e6;
    h->algbw = r->bytes > 0 && s > 0 ? (double)r->bytes / s / 1e9 : NAN;
    /* the kernel's bus factor, as the row applied it */
    h->busbw = h->algbw * (r->algbw > 0 ? r->busbw / r->algbw : NAN);
    h->wrong = r->validation_errors;
    return FAB_OK;
}

static void fab_nccl_text_half(FILE *f, const fab_nccl_half_t *h)
{
    char tm[16], alg[16], bus[16];

    fab_nccl_num(tm, sizeof(tm), h->have ? h->time_us : NAN, 7);
    fab_nccl_num(alg, sizeof(alg), h->have ? h->algbw : NAN, 6);
    fab_nccl_num(bus, sizeof(bus), h->have ? h->busbw : NAN, 6);
    if (h->have && h->wrong >= 0)
        fprintf(f, "  %7s  %6s  %6s  %6ld", tm, alg, bus, h->wrong);
    else
        fprintf(f, "  %7s  %6s  %6s  %6s", tm, alg, bus, "N/A");
}

/* The lines not printed yet: their totals, and the text table (not the JSON document). */
static void fab_nccl_flush(fab_nccl_t *t)
{
    long wrong = 0;
    double sum = 0;
    int nbus = 0;

    if (!t->json && t->printed < t->n) {
        fprintf(t->f, "#\n# %s: %d ranks (fabricbench %s); time: %s\n", t->lines[t->printed].kernel,
                t->nranks, FAB_VERSION,
                t->average == FAB_AVERAGE_RANK0 ? "rank 0's mean per call (-a 0)"
                : t->average == FAB_AVERAGE_MIN ? "the least rank's mean per call (-a 2)"
                : t->average == FAB_AVERAGE_MAX ? "the largest rank's mean per call (-a 3)"
                                                : "the mean over ranks of their means (-a 1)");
        fprintf(t->f,
                "# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
                "in-place          \n",
                "", "", "", "", "");
        fprintf(t->f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
                "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                "time", "algbw", "busbw", "#wrong");
        fprintf(t->f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
                "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                "(GB/s)", "");
    }
    for (; t->printed < t->n; t->printed++) {
        const fab_nccl_line_t *l = &t->lines[t->printed];
        const fab_nccl_half_t *b = l->h[0].have ? &l->h[0] : &l->h[1];

        for (int i = 0; i < 2; i++)
            wrong += l->h[i].have && l->h[i].wrong > 0 ? l->h[i].wrong : 0;
        if (isfinite(b->busbw)) {
            sum += b->busbw;
            nbus++;
        }
        if (t->json)
            continue;
        fprintf(t->f, "%12llu  %12lld  %8s  %6s  %6d", (unsigned long long)l->bytes, l->count,
                l->type, l->redop, l->root);
        fab_nccl_text_half(t->f, &l->h[0]);
        fab_nccl_text_half(t->f, &l->h[1]);
        fputc('\n', t->f);
    }
    t->wrong += wrong;
    t->bus_sum += sum;
    t->bus_n += nbus;
    if (!t->json && nbus > 0) {
        fprintf(t->f, "# Out of bounds values : %ld %s\n", wrong, wrong ? "FAILED" : "OK");
        fprintf(t->f, "# Avg bus bandwidth    : %g\n#\n", sum / nbus);
    }
    fflush(t->f);
}

static fab_status_t fab_nccl_kernel_begin(void *arg, const fab_kinst_t *ki, const int *pair,
                                          const fab_world_t *w, const char *detail,
                                          const char *policy)
{
    fab_nccl_t *t = arg;

    (void)pair;
    (void)detail;
    (void)policy;
    t->nranks = w->size;
    if (ki->k->kind != FAB_KIND_COLLECTIVE && !t->json)
        fprintf(t->f, "# %s: not a collective, not in nccl-tests' format (see the result file)\n",
                ki->k->name);
    return FAB_OK;
}

/* Whether instance ki's in-place twin comes right after it (its lines wait for it). */
static bool fab_nccl_twin_next(const fab_nccl_t *t, const fab_kinst_t *ki)
{
    for (int j = 0; j + 1 < t->lopt->nkernels; j++)
        if (&t->lopt->kernels[j] == ki)
            return t->lopt->kernels[j + 1].k == ki->k && t->lopt->kernels[j + 1].inplace &&
                   !ki->inplace;
    return false;
}

static fab_status_t fab_nccl_kernel_end(void *arg, const fab_kinst_t *ki, fab_status_t st)
{
    fab_nccl_t *t = arg;

    (void)st;
    if (!fab_nccl_twin_next(t, ki))
        fab_nccl_flush(t);
    return FAB_OK;
}

static fab_status_t fab_nccl_run_begin(void *arg, const fab_run_info_t *info)
{
    fab_nccl_t *t = arg;

    (void)info;
    t->n = t->printed = t->bus_n = 0; /* --repeat: each run its own */
    t->wrong = 0;
    t->bus_sum = 0;
    fab_utc_now(t->start, sizeof(t->start), "%Y-%m-%d %H:%M:%S");
    if (t->json)
        return FAB_OK;
    fprintf(t->f, "# fabricbench %s in nccl-tests' format: warmup iters: ", FAB_VERSION);
    if (t->mopt->warmup >= 0)
        fprintf(t->f, "%ld", t->mopt->warmup);
    else
        fputs("auto", t->f);
    if (t->mopt->iters > 0)
        fprintf(t->f, " iters: %ld", t->mopt->iters);
    else
        fputs(" iters: auto (adaptive; each row's count in the result file)", t->f);
    fprintf(t->f, " validation: %d\n", t->mopt->validate ? 1 : 0);
    return FAB_OK;
}

static void fab_nccl_json_half(FILE *f, const fab_nccl_half_t *h)
{
    if (!h->have) {
        fputs("null", f);
        return;
    }
    fputs("{\"time\":", f);
    fab_json_num(f, h->time_us);
    fputs(",\"alg_bw\":", f);
    fab_json_num(f, h->algbw);
    fputs(",\"bus_bw\":", f);
    fab_json_num(f, h->busbw);
    fputs(",\"nwrong\":", f);
    fab_json_num(f, h->wrong >= 0 ? (double)h->wrong : NAN);
    fputc('}', f);
}

static void fab_nccl_json_config(const fab_nccl_t *t)
{
    const fab_sizes_t *s = &t->mopt->sizes;
    size_t lo = s->n ? s->v[0] : 0, hi = s->n ? s->v[s->n - 1] : 0;

    fprintf(t->f,
            "\"config\":{\"nthreads\":1,\"ngpus\":1,\"minimum_bytes\":%zu,\"maximum_bytes\":%zu,"
            "\"warmup_iters\":%ld,\"iterations\":%ld,\"aggregated_iterations\":1,"
            "\"validation\":%d,\"graph\":0,\"blocking_collectives\":\"%s\"},\n",
            lo, hi, t->mopt->warmup, t->mopt->iters, t->mopt->validate ? 1 : 0,
            t->mopt->sync ? "true" : "false");
}

static fab_status_t fab_nccl_run_end(void *arg, const fab_run_info_t *info)
{
    fab_nccl_t *t = arg;
    char end[32];

    (void)info;
    fab_nccl_flush(t);
    if (!t->json)
        return ferror(t->f) ? FAB_ERR_IO : FAB_OK;
    fab_utc_now(end, sizeof(end), "%Y-%m-%d %H:%M:%S");
    fprintf(t->f, "{\"version\":2,\"generator\":\"fabricbench %s\",\"start_time\":", FAB_VERSION);
    fab_json_str(t->f, t->start);
    fputs(",\n", t->f);
    fab_nccl_json_config(t);
    fputs("\"results\":[", t->f);
    for (int i = 0; i < t->n; i++) {
        const fab_nccl_line_t *l = &t->lines[i];

        fprintf(t->f, "%s\n{\"size\":%llu,\"count\":%lld,\"type\":", i ? "," : "",
                (unsigned long long)l->bytes, l->count);
        fab_json_str(t->f, l->type);
        fputs(",\"redop\":", t->f);
        fab_json_str(t->f, l->redop);
        fprintf(t->f, ",\"root\":\"%d\",\"out_of_place\":", l->root);
        fab_nccl_json_half(t->f, &l->h[0]);
        fputs(",\"in_place\":", t->f);
        fab_nccl_json_half(t->f, &l->h[1]);
        fprintf(t->f,
                ",\"actual_iterations\":%llu,\"experiment_name\":", (unsigned long long)l->iters);
        fab_json_str(t->f, l->kernel);
        fputc('}', t->f);
    }
    fprintf(t->f, "],\n\"out_of_bounds\":{\"count\":%ld,\"okay\":\"%s\"},\n", t->wrong,
            t->wrong ? "false" : "true");
    fputs("\"average_bus_bandwidth\":{\"bandwidth\":", t->f);
    fab_json_num(t->f, t->bus_n ? t->bus_sum / t->bus_n : NAN);
    fputs(",\"okay\":\"unchecked\"},\n\"end_time\":", t->f);
    fab_json_str(t->f, end);
    fputs("}\n", t->f);
    fflush(t->f);
    return ferror(t->f) ? FAB_ERR_IO : FAB_OK;
}

static void fab_nccl_close(void *arg)
{
    fab_nccl_t *t = arg;

    free(t->lines);
    free(t);
}

fab_status_t fab_out_nccl_sink(FILE *f, const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                               const fab_outopts_t *oopt, fab_sink_t *sink)
{
    fab_nccl_t *t = calloc(1, sizeof(*t));

    if (t)
        t->lines = calloc(FAB_NCCL_MAX_LINES, sizeof(fab_nccl_line_t));
    if (!t || !t->lines) {
        free(t);
        return FAB_ERR_NOMEM;
    }
    t->f = f;
    t->json = oopt->format == FAB_FORMAT_NCCL_JSON;
    t->average = oopt->average;
    t->lopt = lopt;
    t->mopt = mopt;
    *sink = (fab_sink_t){.name = t->json ? "nccl-json" : "nccl-tests",
                         .run_begin = fab_nccl_run_begin,
                         .kernel_begin = fab_nccl_kernel_begin,
                         .row = fab_nccl_row,
                         .kernel_end = fab_nccl_kernel_end,
                         .run_end = fab_nccl_run_end,
                         .close = fab_nccl_close,
                         .arg = t};
    return FAB_OK;
}
