/* SPDX-License-Identifier: BSD-3-Clause */
/* The Prometheus textfile (output/prom.h), text format 0.0.4 as node-exporter's textfile
 * collector reads it: "# HELP" and "# TYPE" once per metric family, its samples together,
 * no timestamps. Every column of output/columns.c becomes a gauge by its unit (output/promtext.c),
 * so a column added there appears here by itself. The file holds the latest run; it is put
 * together in memory and replaced atomically (core/file.c) in its directory. */
#define _DEFAULT_SOURCE 1 /* timegm */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/file.h"
#include "core/log.h"
#include "core/text.h"
#include "net/fabric.h"
#include "output/claim.h"
#include "output/columns.h"
#include "output/kernelmeta.h"
#include "output/outputs.h"
#include "output/prom.h"
#include "output/promtext.h"
#include "pairs/matrix.h"

#include "fab_version.h"

/* The run statuses (fab_status_done), each a series of fabricbench_run_status. */
static const char *const fab_prom_statuses[] = {
    "complete", "complete, validation failed", "complete, suspects named", "interrupted", "failed"};

typedef struct fab_prom_kernel {
    char name[64];
    char variant[96]; /* an instance's axis value ("streams=4"), else "" */
    char host_a[FAB_HOST_MAX], host_b[FAB_HOST_MAX]; /* a pair kernel's hosts, else "" */
    bool verdict;                                    /* a pairs kernel's verdict is known */
    int nsuspects, nslow, npairs;
} fab_prom_kernel_t;

typedef struct fab_prom_row {
    int kernel;
    double v[FAB_MAX_COLUMNS];
} fab_prom_row_t;

typedef struct fab_prom {
    char path[1024];
    bool is_stdout, failed, printed;
    int repeat, nruns;
    const fab_run_info_t *info; /* the run's, from run_begin (it outlives the sink's use) */
    char kernels[512];          /* the run's kernels, comma-separated */
    fab_prom_kernel_t *k;
    int nk, capk;
    fab_prom_row_t *r;
    int nr, capr;
    fab_claim_t claim;
    const fab_launchopts_t *lopt; /* the run's kernels (run_begin) */
} fab_prom_t;

/* ------------------------------------------------------------------ the file */

/* ,key="value" */
static void fab_prom_label(FILE *f, const char *key, const char *value)
{
    fprintf(f, ",%s=", key);
    fab_prom_label_value(f, value);
}

/* The labels every series has: the fabric, the device, the run's kernels (no braces). */
static void fab_prom_run_labels(FILE *f, const fab_prom_t *p)
{
    const fab_fabric_t *fb = p->info->fabric;
    char dev[128] = "";

    if (fb && fb->device[0])
        snprintf(dev, sizeof(dev), "%s", fb->device);
    else if (!fab_lanes_device(p->info->ucx_tls, dev, sizeof(dev)))
        dev[0] = '\0';
    fputs("fabric=", f);
    fab_prom_label_value(f, fb && fb->name[0] ? fb->name : "any");
    fab_prom_label(f, "device", dev);
    fab_prom_label(f, "kernels", p->kernels);
}

static void fab_prom_run_gauge(FILE *f, const fab_prom_t *p, const char *name, const char *help,
                               double v)
{
    if (isnan(v))
        return;
    fab_prom_help(f, name, help);
    fprintf(f, "%s{", name);
    fab_prom_run_labels(f, p);
    fputs("} ", f);
    fab_prom_value(f, v);
    fputc('\n', f);
}

/* "2026-12-02T16:09:08Z" as Unix seconds; NaN when it is not one. */
static double fab_prom_time(const char *iso)
{
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    if (!iso || sscanf(iso, "%d-%d-%dT%d:%d:%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                       &tm.tm_min, &tm.tm_sec) != 6)
        return NAN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm);
}

static void fab_prom_run_metrics(FILE *f, const fab_prom_t *p, const char *status,
                                 const char *end_time, int exit_code)
{
    const fab_run_info_t *in = p->info;
    const char *name = FAB_PROM "run_status";

    fab_prom_help(f, FAB_PROM "run_info",
                  "1, with what the run was: tool version and commit, host of rank 0, UCX "
                  "transports in use");
    fputs(FAB_PROM "run_info{", f);
    fab_prom_run_labels(f, p);
    fab_prom_label(f, "version", FAB_VERSION);
    fab_prom_label(f, "git_commit", FAB_GIT_COMMIT);
    fab_prom_label(f, "host", in->hosts && in->nranks > 0 ? in->hosts[0] : "");
    fab_prom_label(f, "transports", in->ucx_tls);
    fputs("} 1\n", f);
    fab_prom_help(f, name,
                  "1 for the run's status (as the result file's status attribute), 0 for the "
                  "others");
    for (size_t i = 0; i < sizeof(fab_prom_statuses) / sizeof(fab_prom_statuses[0]); i++) {
        fprintf(f, "%s{", name);
        fab_prom_run_labels(f, p);
        fab_prom_label(f, "status", fab_prom_statuses[i]);
        fprintf(f, "} %d\n", strcmp(status, fab_prom_statuses[i]) == 0);
    }
    fab_prom_run_gauge(f, p, FAB_PROM "healthy",
                       "1: the run completed and every check passed (exit code 0: --validate, a "
                       "pairs kernel's verdict); 0 otherwise",
                       exit_code == 0);
    fab_prom_run_gauge(f, p, FAB_PROM "exit_code",
                       "what the run exits with: 0 ok, 1 a check failed, 3 environment error, "
                       "4 interrupted",
                       exit_code);
    fab_prom_run_gauge(f, p, FAB_PROM "run_start_timestamp_seconds",
                       "when the run started, Unix time", fab_prom_time(in->start_time));
    fab_prom_run_gauge(f, p, FAB_PROM "run_end_timestamp_seconds",
                       "when the run ended, Unix time: alert on time() minus this for a stale "
                       "file",
                       fab_prom_time(end_time));
    fab_prom_run_gauge(f, p, FAB_PROM "ranks", "MPI ranks of the run", in->nranks);
    fab_prom_run_gauge(f, p, FAB_PROM "hosts", "distinct hosts of the run", in->nhosts);
    fab_prom_run_gauge(f, p, FAB_PROM "line_rate_bytes_per_second",
                       "the data rate line_rate_pct compares with (absent: unknown)",
                       in->line_rate_gbps > 0 ? in->line_rate_gbps * 1e9 / 8 : NAN);
}

/* A row series' labels: kernel, bytes, fabric, device, the pair's hosts, statistic. */
static void fab_prom_row_labels(FILE *f, const fab_prom_t *p, const fab_prom_row_t *r,
                                const char *stat)
{
    const fab_prom_kernel_t *k = &p->k[r->kernel];
    int bc = fab_column_find("bytes");

    fputs("{kernel=", f);
    fab_prom_label_value(f, k->name);
    fprintf(f, ",bytes=\"%.0f\",", bc >= 0 ? r->v[bc] : NAN);
    if (k->variant[0]) { /* an instance of a kernel with an axis: its value */
        fputs("variant=", f);
        fab_prom_label_value(f, k->variant);
        fputc(',', f);
    }
    fab_prom_run_labels(f, p);
    fab_prom_label(f, "host_a", k->host_a);
    fab_prom_label(f, "host_b", k->host_b);
    if (stat[0])
        fab_prom_label(f, "statistic", stat);
    fputc('}', f);
}

/* The pairs kernels' verdicts. */
static void fab_prom_verdicts(FILE *f, const fab_prom_t *p)
{
    static const char *const names[] = {FAB_PROM "pairs_suspects", FAB_PROM "pairs_slow",
                                        FAB_PROM "pairs_measured"};
    static const char *const helps[] = {
        "a pairs kernel's verdict: suspects named (nodes, paths, switch groups, pairs)",
        "a pairs kernel's verdict: pairs judged slow", "a pairs kernel: pairs measured"};
    bool any = false;

    for (int i = 0; i < p->nk; i++)
        any = any || p->k[i].verdict;
    for (int m = 0; any && m < 3; m++) {
        fab_prom_help(f, names[m], helps[m]);
        for (int i = 0; i < p->nk; i++) {
            const fab_prom_kernel_t *k = &p->k[i];

            if (!k->verdict)
                continue;
            fprintf(f, "%s{", names[m]);
            fab_prom_run_labels(f, p);
            fab_prom_label(f, "kernel", k->name);
            fprintf(f, "} %d\n", m == 0 ? k->nsuspects : m == 1 ? k->nslow : k->npairs);
        }
    }
}

/* Every column's family, in column order of each family's first column. */
static void fab_prom_rows(FILE *f, const fab_prom_t *p)
{
    for (int c = 0; c < fab_ncolumns; c++) {
        char fam[128], stat[64];
        double scale;
        const char *help;
        bool seen = false;

        if (!fab_prom_column(c, fam, sizeof(fam), stat, sizeof(stat), &scale, &help))
            continue;
        for (int e = 0; e < c && !seen; e++) { /* written with an earlier column */
            char fam2[128], stat2[64];
            double s2;
            const char *h2;

            seen = fab_prom_column(e, fam2, sizeof(fam2), stat2, sizeof(stat2), &s2, &h2) &&
                   strcmp(fam, fam2) == 0;
        }
        if (seen)
            continue;
        if (help)
            fab_prom_help(f, fam, help);
        else {
            char h[512];

            snprintf(h, sizeof(h), "%s (the result file's column %s, %s%s)", fab_columns[c].doc,
                     fab_columns[c].name, fab_columns[c].unit,
                     scale != 1 ? ", here in base units" : "");
            fab_prom_help(f, fam, h);
        }
        for (int e = c; e < fab_ncolumns; e++) {
            char fam2[128];

            if (!fab_prom_column(e, fam2, sizeof(fam2), stat, sizeof(stat), &scale, &help) ||
                strcmp(fam, fam2) != 0)
                continue;
            for (int i = 0; i < p->nr; i++) {
                double v = p->r[i].v[e];

                if (isnan(v)) /* not available: no sample */
                    continue;
                fputs(fam, f);
                fab_prom_row_labels(f, p, &p->r[i], stat);
                fputc(' ', f);
                if (fab_columns[e].type != FAB_COL_F64 && scale == 1)
                    fprintf(f, "%.0f", v);
                else
                    fab_prom_value(f, v * scale);
                fputc('\n', f);
            }
        }
    }
}

/* Put the file together and write it (replace it, or print it to stdout). */
static fab_status_t fab_prom_write(fab_prom_t *p, const char *status, const char *end_time,
                                   int exit_code)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    const char *what = "write";
    int err = 0;

    if (p->failed || !p->info || (p->is_stdout && p->printed))
        return p->failed ? FAB_ERR_IO : FAB_OK;
    f = open_memstream(&buf, &len);
    if (!f)
        return FAB_ERR_NOMEM;
    fab_prom_run_metrics(f, p, status, end_time, exit_code);
    fab_prom_verdicts(f, p);
    fab_prom_rows(f, p);
    if (fclose(f) != 0) {
        free(buf);
        return FAB_ERR_NOMEM;
    }
    if (p->is_stdout) {
        p->printed = true;
        if (!fab_outputs_stdout() || fwrite(buf, 1, len, fab_outputs_stdout()) != len ||
            fflush(fab_outputs_stdout()) != 0)
            err = errno ? errno : EIO;
    } else
        err = fab_file_replace(&p->claim, buf, len, &what);
    free(buf);
    if (err) {
        FAB_ERROR("cannot %s the Prometheus textfile %s: %s", what,
                  p->is_stdout ? "to standard output" : p->claim.tmp, strerror(err));
        p->failed = true;
        return FAB_ERR_IO;
    }
    return FAB_OK;
}

/* ------------------------------------------------------------------ sink callbacks */

static fab_status_t fab_prom_run_begin(void *arg, const fab_run_info_t *info)
{
    fab_prom_t *p = arg;
    size_t at = 0;

    p->info = info;
    p->nk = p->nr = 0;
    p->nruns++;
    p->kernels[0] = '\0';
    for (int i = 0; i < p->lopt->nkernels; i++)
        fab_appendf(p->kernels, sizeof(p->kernels), &at, "%s%s", i ? "," : "",
                    p->lopt->kernels[i].k->name);
    return FAB_OK;
}

static fab_status_t fab_prom_kernel_begin(void *arg, const fab_kinst_t *ki, const int *pair,
                                          const fab_world_t *w, const char *detail,
                                          const char *policy)
{
    const fab_kernel_t *k = ki->k;
    fab_prom_t *p = arg;
    fab_prom_kernel_t *pk;

    (void)detail;
    (void)policy;
    if (p->nk == p->capk) {
        int cap = p->capk ? 2 * p->capk : 8;
        fab_prom_kernel_t *grown = realloc(p->k, sizeof(*grown) * (size_t)cap);

        if (!grown)
            return FAB_ERR_NOMEM;
        p->k = grown;
        p->capk = cap;
    }
    pk = &p->k[p->nk++];
    memset(pk, 0, sizeof(*pk));
    snprintf(pk->name, sizeof(pk->name), "%s", k->name);
    if (k->axis) {
        char v[64];

        fab_kernel_variant(k, ki->axis, v, sizeof(v), false);
        snprintf(pk->variant, sizeof(pk->variant), "%s=%s", k->axis->option, v);
    }
    if (pair && w->hosts) {
        snprintf(pk->host_a, sizeof(pk->host_a), "%s", w->hosts[pair[0]]);
        snprintf(pk->host_b, sizeof(pk->host_b), "%s", w->hosts[pair[1]]);
    }
    return FAB_OK;
}

/* The same kernel, hosts and size measured twice in one run (a kernel named twice): the
 * later row, so that no series appears twice. */
static fab_prom_row_t *fab_prom_slot(fab_prom_t *p, int kernel, double bytes)
{
    const fab_prom_kernel_t *k = &p->k[kernel];
    int bc = fab_column_find("bytes");

    for (int i = 0; i < p->nr; i++) {
        const fab_prom_kernel_t *o = &p->k[p->r[i].kernel];

        if (p->r[i].v[bc] == bytes && strcmp(o->name, k->name) == 0 &&
            strcmp(o->variant, k->variant) == 0 && strcmp(o->host_a, k->host_a) == 0 &&
            strcmp(o->host_b, k->host_b) == 0)
            return &p->r[i];
    }
    if (p->nr == p->capr) {
        int cap = p->capr ? 2 * p->capr : 64;
        fab_prom_row_t *grown = realloc(p->r, sizeof(*grown) * (size_t)cap);

        if (!grown)
            return NULL;
        p->r = grown;
        p->capr = cap;
    }
    return &p->r[p->nr++];
}

static fab_status_t fab_prom_row(void *arg, const fab_kinst_t *ki, const fab_row_t *r,
                                 const double *samples, size_t nsamples)
{
    fab_prom_t *p = arg;
    fab_prom_row_t *slot;
    const char *text[FAB_MAX_COLUMNS];

    (void)samples;
    (void)nsamples;
    if (p->nk == 0)
        return FAB_OK;
    slot = fab_prom_slot(p, p->nk - 1, (double)r->bytes);
    if (!slot)
        return FAB_ERR_NOMEM;
    slot->kernel = p->nk - 1;
    /* text columns (type, redop) come out NaN: they make no series */
    fab_column_values(ki, r, slot->v, text);
    return FAB_OK;
}

static fab_status_t fab_prom_matrix(void *arg, const fab_kinst_t *ki, const fab_matrix_t *m)
{
    fab_prom_t *p = arg;
    fab_prom_kernel_t *pk = p->nk > 0 ? &p->k[p->nk - 1] : NULL;

    (void)ki;
    if (!pk || !m->verdict)
        return FAB_OK;
    pk->verdict = true;
    pk->nsuspects = m->verdict->nsuspects;
    pk->nslow = m->verdict->nslow;
    pk->npairs = m->verdict->npairs;
    return FAB_OK;
}

static fab_status_t fab_prom_run_end(void *arg, const fab_run_info_t *info)
{
    fab_prom_t *p = arg;

    /* stdout: once, after the last run (or one that stopped) */
    if (p->is_stdout && p->nruns < p->repeat && strncmp(info->status, "complete", 8) == 0)
        return FAB_OK;
    return fab_prom_write(p, info->status, info->end_time, info->exit_code);
}

/* A stop: the file says so at once, with the rows so far (a job ended from outside may not
 * reach the run's end); on stdout only when the process ends right after. */
static void fab_prom_mark(void *arg, const char *status, const char *reason, bool final)
{
    fab_prom_t *p = arg;
    char now[32];

    (void)reason;
    if (p->is_stdout && !final)
        return;
    fab_utc_now(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ");
    fab_prom_write(p, status, now, strcmp(status, "interrupted") == 0 ? 4 : 3);
}

static void fab_prom_close(void *arg)
{
    fab_prom_t *p = arg;

    fab_claim_release(&p->claim);
    free(p->k);
    free(p->r);
    free(p);
}

/* A name node-exporter reads (*.prom), claimed as the other outputs are; an existing
 * textfile is replaced (--force is implied: it is a snapshot, not a record). */
static fab_status_t fab_prom_claim(fab_prom_t *p, const char *path)
{
    fab_outopts_t replace = {0};
    size_t n = strlen(path);

    if (n < 6 || strcmp(path + n - 5, ".prom") != 0 || path[n - 6] == '/') {
        FAB_ERROR("--prom %s: node-exporter's textfile collector reads only files named "
                  "*.prom",
                  path);
        fprintf(stderr, "hint: --prom DIR/fabricbench.prom (the collector's directory), or "
                        "--prom - for standard output\n");
        return FAB_ERR_USAGE;
    }
    replace.append = false;
    replace.force = true; /* a file or a link there is replaced, never written through */
    return fab_output_claim(path, "Prometheus textfile", &replace, NULL, &p->claim);
}

fab_status_t fab_out_prom_sink(const char *path, const fab_launchopts_t *lopt, fab_sink_t *sink)
{
    fab_prom_t *p = calloc(1, sizeof(*p));
    fab_status_t st = FAB_OK;

    if (!p)
        return FAB_ERR_NOMEM;
    snprintf(p->path, sizeof(p->path), "%s", path);
    p->claim.fd = -1;
    p->lopt = lopt;
    p->repeat = lopt->repeat > 0 ? lopt->repeat : 1;
    p->is_stdout = fab_output_is_stdout(path);
    if (p->is_stdout && !fab_outputs_stdout()) {
        FAB_ERROR("--prom -: standard output is not open");
        st = FAB_ERR_IO;
    } else if (!p->is_stdout)
        st = fab_prom_claim(p, path);
    if (st != FAB_OK) {
        free(p);
        return st;
    }
    memset(sink, 0, sizeof(*sink));
    sink->name = "prom";
    sink->run_begin = fab_prom_run_begin;
    sink->kernel_begin = fab_prom_kernel_begin;
    sink->row = fab_prom_row;
    sink->matrix = fab_prom_matrix;
    sink->run_end = fab_prom_run_end;
    sink->mark = fab_prom_mark;
    sink->close = fab_prom_close;
    sink->arg = p;
    return FAB_OK;
}
