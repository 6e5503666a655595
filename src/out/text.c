/* The human table on stdout: '#' header lines, then one row per message size. Column names
 * carry decimal units: us = 10^-6 s, MB/s = 10^6 B/s, Gb/s = 10^9 bit/s. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/opts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/dtype.h"
#include "kernel/fab_kernel.h"
#include "measure/row.h"
#include "net/fabric.h"
#include "measure/locate.h"
#include "measure/pairs.h"
#include "measure/plan.h"
#include "measure/rounds.h"
#include "out/columns.h"
#include "out/runinfo.h"
#include "out/sink.h"
#include "out/text.h"
#include "fab_version.h"

/* The adaptive measurement's budget and estimated end (the policy: each kernel's header). */
static void fab_out_text_measurement(FILE *f, const fab_opts_t *o)
{
    int rows;
    double budget = fab_rounds_budget(o, &rows);
    time_t end = time(NULL) + (time_t)ceil(budget);
    char at[32] = "";

    if (!o->adaptive || rows == 0)
        return;
    strftime(at, sizeof(at), "%H:%M:%S", localtime(&end));
    fprintf(f,
            "# budget: %.3g s for %d rows (%s), ends about %s; ci%% = the median's 95%% interval "
            "(+-%% of p50), marked * where a size missed --precision %g%%\n",
            budget, rows,
            o->budget_s > 0 ? "--budget" : "auto: " FAB_STR(FAB_BUDGET_PER_ROW) " s per row", at,
            o->precision_pct);
}

static fab_status_t fab_text_run_begin(void *arg, const fab_run_info_t *info, const fab_opts_t *o)
{
    FILE *f = arg;
    const char *rpn = info->ranks_per_node;
    int shown = 0;

    (void)o;
    fprintf(f, "# fabricbench %s (git %s)\n", FAB_VERSION, FAB_GIT_COMMIT);
    if (info->simulated[0])
        fprintf(f, "# SIMULATED: %s\n", info->simulated);
    fprintf(f, "# date: %s\n", info->start_time);
    fprintf(f, "# command: %s\n", info->command_line);
    /* "host:n,host:n" -> "host (n), host (n)", at most 8 hosts */
    fprintf(f, "# ranks: %d on %d host%s:", info->nranks, info->nhosts,
            info->nhosts == 1 ? "" : "s");
    while (*rpn && shown < 8) {
        size_t len = strcspn(rpn, ",");
        const char *colon = memchr(rpn, ':', len);

        if (colon)
            fprintf(f, "%s %.*s (%.*s)", shown ? "," : "", (int)(colon - rpn), rpn,
                    (int)(len - (size_t)(colon - rpn) - 1), colon + 1);
        shown++;
        rpn += len + (rpn[len] == ',');
    }
    fprintf(f, "%s\n", *rpn ? ", ..." : "");
    fprintf(f, "# mpi: %s\n", info->mpi_library);
    fprintf(f, "# pml: %s (%s)\n", info->pml, info->pml_how);
    fprintf(f, "# ucx: %s; transports: %s\n", info->ucx_version, info->ucx_tls);
    if (info->fabric && info->fabric->name[0]) {
        const fab_fabric_t *fb = info->fabric;

        fprintf(f, "# fabric: %s (asked: %s; %s)", fb->name, fb->requested, fb->description);
        if (fb->device[0])
            fprintf(f, "; device %s%s%.0d (%s)", fb->device, fb->port ? ":" : "", fb->port,
                    fb->why);
        fprintf(f, "\n# fabric environment: %s\n", fb->env[0] ? fb->env : "none");
    } else {
        fprintf(f,
                "# fabric: any (UCX chooses; --fabric ib|roce|erdma|tcp|shm|auto selects one)\n");
    }
    if (info->line_rate_gbps > 0)
        fprintf(f, "# line rate: %g Gb/s (%s); line%% = Gb/s (collectives: busbw) / line rate\n",
                info->line_rate_gbps, info->line_rate_from);
    else
        fprintf(f, "# line rate: unknown (%s); line%% is n/a (--line-rate sets it)\n",
                info->line_rate_from[0] ? info->line_rate_from : "no port chosen");
    for (int r = 0; info->placement && r < info->nranks; r++) {
        if (r == 8 && info->nranks > 9) {
            fprintf(f, "# placement: ... %d more ranks in the result file\n", info->nranks - 8);
            break;
        }
        fprintf(f, "# placement: %s\n", info->placement[r]);
    }
    fprintf(f, "# cpu%%: the ranks' own CPU time / wall time (100 = one core busy); usr%% sys%% "
               "si%%: node-wide shares of all CPUs (/proc/stat)\n");
    fprintf(f, "# timer: %s; %.1f ns per reading (measured now, rank 0)\n", info->timer,
            info->timer_cost_ns);
    if (info->slurm_job[0])
        fprintf(f, "# slurm: job %s, step %s, nodes %s\n", info->slurm_job,
                info->slurm_step[0] ? info->slurm_step : "-", info->slurm_nodelist);
    fab_out_text_measurement(f, o);
    fprintf(f, "# results: %s\n", info->results_file[0] ? info->results_file : "no file (-o none)");
    fflush(f);
    return ferror(f) ? FAB_ERR_IO : FAB_OK;
}

static fab_status_t fab_text_run_end(void *arg, const fab_run_info_t *info)
{
    FILE *f = arg;

    fprintf(f, "#\n");
    if (strcmp(info->pml, "ucx") == 0)
        fprintf(f, "# ucx transports (probe endpoint%s): %s\n",
                info->probed_early ? ", before the measurements" : ", after the measurements",
                info->ucx_tls);
    if (info->ucx_pairs[0])
        fprintf(f, "# ucx transports by probed pair: %s\n", info->ucx_pairs);
    if (info->fabric && !info->fabric->name[0] && !(info->line_rate_gbps > 0) && info->nhosts > 1) {
        char dev[80];

        /* any probed pair's network device (the first pair may be within a host) */
        if (fab_lanes_device(info->ucx_pairs[0] ? info->ucx_pairs : info->ucx_tls, dev,
                             sizeof(dev)))
            fprintf(f,
                    "# line%%: n/a: with --fabric any UCX chose the device (%s); name it with "
                    "--fabric KIND --device %s, or give --line-rate RATE, for line%%\n",
                    dev, dev);
    }
    if (info->fabric && info->fabric->name[0])
        fprintf(f, "# fabric check: %s%s%s\n", info->fabric->verdict,
                info->fabric->verdict_why[0] ? ": " : "", info->fabric->verdict_why);
    fprintf(f, "# run %s at %s%s%s\n", info->status, info->end_time,
            info->stop_reason[0] ? ": " : "", info->stop_reason);
    fflush(f);
    return ferror(f) ? FAB_ERR_IO : FAB_OK;
}

static fab_status_t fab_text_matrix(void *arg, const fab_kernel_t *k, const fab_matrix_t *m)
{
    FILE *f = arg;

    if (!m->verdict)
        return FAB_OK;
    fab_out_text_verdict(f, k, m);
    fflush(f);
    return ferror(f) ? FAB_ERR_IO : FAB_OK;
}

static fab_status_t fab_text_kernel_begin(void *arg, const fab_kernel_t *k, const fab_opts_t *o,
                                          const int *pair, const fab_world_t *w, const char *detail)
{
    FILE *f = arg;

    fprintf(f, "#\n# kernel: %s: %s\n", k->name, k->summary);
    if (k->ranks == FAB_RANKS_NODES) {
        fprintf(f, "# ranks: every pair of members, as the line below says; the row sums up the "
                   "pairs: one sample per pair (latency: its median; bandwidth: its mean), so "
                   "min/p50/max are the best, median and worst pair\n");
        fprintf(f, "# iterations: %llu per pair and direction, warm-up %llu\n",
                (unsigned long long)fab_pairs_iters(k, o),
                (unsigned long long)fab_pairs_warmup(k, o));
    } else if (pair)
        fprintf(f, "# ranks: %d (%s) <-> %d (%s)%s\n", pair[0], w->hosts[pair[0]], pair[1],
                w->hosts[pair[1]], w->size > 2 ? "; other ranks wait idle" : "");
    else if (k->kind == FAB_KIND_COLLECTIVE)
        fprintf(f, "# ranks: all %d\n", w->size);
    else
        fprintf(f, "# ranks: %d (%d pairs: rank i sends to rank i+%d)\n", w->size, w->size / 2,
                w->size / 2);
    if (k->ranks == FAB_RANKS_NODES)
        ;
    else {
        char policy[512];

        fab_rounds_policy(o, k, policy, sizeof(policy));
        fprintf(f, "# iterations: %s\n", policy);
    }
    if (k->uses_window)
        fprintf(f, "# window: %d messages per iteration; *_us columns time one iteration\n",
                o->window);
    if (k->kind == FAB_KIND_COLLECTIVE && !k->no_sizes)
        fprintf(f,
                "# dtype: %s%s%s; time_us = mean time per call, a call timed as its slowest "
                "rank; loop_us = slowest rank's loop / calls; algbw from %s; slowest = "
                "rank:share of calls\n",
                fab_dtype_name(o->dtype), k->uses_op ? ", op " : "",
                k->uses_op ? fab_op_name(o->op) : "",
                o->nonblocking && o->overlap_us > 0 ? "comm_us (the call alone)" : "time_us");
    if (k->kind == FAB_KIND_COLLECTIVE && k->uses_op &&
        (o->dtype == FAB_DT_BFLOAT16 || o->dtype == FAB_DT_FLOAT16))
        fprintf(f, "# %s: %s; compare with --dtype float32 for the cost\n",
                fab_dtype_name(o->dtype), fab_dtype_arithmetic(o->dtype));
    if (k->kind == FAB_KIND_COLLECTIVE && o->nonblocking)
        fprintf(f, "# non-blocking: start, %s, wait%s\n",
                o->overlap_us > 0 ? "synthetic compute (no MPI calls)" : "nothing",
                o->overlap_us > 0 ? "; comm_us = the call alone, overlap = share of it the "
                                    "compute hid"
                                  : "");
    if (detail && *detail)
        fprintf(f, "# %s: %s\n", k->name, detail);
    if (k->kind == FAB_KIND_COLLECTIVE && k->uses_root)
        fprintf(f, "# root: %s\n",
                o->root < 0 ? "rotates (iteration i uses rank i mod ranks)" : "fixed (--root)");
    if (k->kind == FAB_KIND_LATENCY)
        fprintf(f, "# lat_us = loop mean (total time / iterations), one way; the other time "
                   "columns are per iteration, one way\n");
    fprintf(f,
            "# percentiles: exact up to %ld samples per size, then from a histogram "
            "(error <= 0.2%%); column pct\n",
            o->max_samples);
    fab_out_text_columns(f, k->kind);
    fflush(f);
    return ferror(f) ? FAB_ERR_IO : FAB_OK;
}

/* ------------------------------------------------------------------ the table */

/* The heading line: "#", then each cell's heading right-aligned in its width. */
void fab_out_text_columns(FILE *f, fab_kind_t kind)
{
    int n;
    const fab_text_cell_t *cells = fab_text_layout(kind, &n);

    fputc('#', f);
    for (int i = 0; i < n; i++)
        fprintf(f, " %*s", cells[i].head_width ? cells[i].head_width : cells[i].width,
                cells[i].head);
    fputc('\n', f);
}

/* One cell's text, from the row's column values. */
static void fab_text_cell(const fab_text_cell_t *c, const double *v, char *buf, size_t len)
{
    int col = fab_column_find(c->col);
    double x = col >= 0 ? v[col] : NAN;
    int w = c->width;

    switch (c->fmt) {
    case FAB_TXT_F0:
    case FAB_TXT_F2:
    case FAB_TXT_F3:
        if (isnan(x)) /* a quantile with too few samples to mean anything (stats.h) */
            snprintf(buf, len, "%*s", w, "-");
        else
            snprintf(buf, len, "%*.*f", w,
                     c->fmt == FAB_TXT_F0   ? 0
                     : c->fmt == FAB_TXT_F2 ? 2
                                            : 3,
                     x);
        break;
    case FAB_TXT_CI: {
        int c2 = c->col2 ? fab_column_find(c->col2) : -1;
        char s[48];

        if (isnan(x)) /* no interval (too few samples): a missed target is still marked */
            snprintf(s, sizeof(s), "-%s", c2 >= 0 && v[c2] == 0 ? "*" : "");
        else
            snprintf(s, sizeof(s), "%.2f%s", x, c2 >= 0 && v[c2] == 0 ? "*" : "");
        snprintf(buf, len, "%*s", w, s);
        break;
    }
    case FAB_TXT_REGIMES:
        if (!(x > 0))
            snprintf(buf, len, "%*s", w, "-");
        else
            snprintf(buf, len, "%*.0f", w, x);
        break;
    case FAB_TXT_PCT:
        if (isnan(x))
            snprintf(buf, len, "%*s", w, "n/a");
        else
            snprintf(buf, len, "%*.1f", w, x);
        break;
    case FAB_TXT_ERRORS:
        if (x < 0)
            snprintf(buf, len, "%*s", w, "-");
        else
            snprintf(buf, len, "%*.0f", w, x);
        break;
    case FAB_TXT_EXACT:
        snprintf(buf, len, "%*s", w, x != 0 ? "exact" : "hist");
        break;
    case FAB_TXT_SLOWEST: {
        int c2 = c->col2 ? fab_column_find(c->col2) : -1;
        char s[48];

        if (x < 0)
            snprintf(s, sizeof(s), "-");
        else
            snprintf(s, sizeof(s), "%.0f:%.0f%%", x, 100.0 * (c2 >= 0 ? v[c2] : NAN));
        snprintf(buf, len, "%*s", w, s);
        break;
    }
    case FAB_TXT_OVERLAP: {
        char s[48];

        if (isnan(x))
            snprintf(s, sizeof(s), "-");
        else
            snprintf(s, sizeof(s), "%.1f%%", x);
        snprintf(buf, len, "%*s", w, s);
        break;
    }
    }
}

/* One row from its column values (v[i]: column i of out/columns.c, as stored in the files),
 * so a row read back from a file prints exactly as it did live. */
void fab_out_text_values(FILE *f, fab_kind_t kind, const double *v)
{
    int n;
    const fab_text_cell_t *cells = fab_text_layout(kind, &n);

    fputc(' ', f);
    for (int i = 0; i < n; i++) {
        char buf[64];

        fab_text_cell(&cells[i], v, buf, sizeof(buf));
        fprintf(f, " %s", buf);
    }
    fputc('\n', f);
    fflush(f);
}

static fab_status_t fab_text_row(void *arg, const fab_kernel_t *k, const fab_row_t *r,
                                 const double *samples, size_t nsamples)
{
    double v[FAB_MAX_COLUMNS];

    (void)samples;
    (void)nsamples;
    fab_column_values(r, v);
    fab_out_text_values(arg, k->kind, v);
    if (r->regimes > 1) {
        fprintf(arg, "#   ^ %d regimes over time (block medians):", r->regimes);
        for (int g = 0; g < r->regimes && g < FAB_REGIME_MAX; g++)
            fprintf(arg, "%s %.3f us (%.0f%%)", g ? "," : "", r->regime_level[g] * 1e6,
                    100.0 * r->regime_share[g]);
        fprintf(arg, "; the median depends on how long each lasted\n");
    }
    return ferror((FILE *)arg) ? FAB_ERR_IO : FAB_OK;
}

static void fab_text_mark(void *arg, const char *status, const char *reason, bool final)
{
    FILE *f = arg;
    char now[32];

    if (!final)
        return;
    fab_utc_now(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ");
    fprintf(f, "#\n# run %s at %s: %s\n", status, now, reason);
    fflush(f);
}

fab_sink_t fab_out_text_sink(FILE *f)
{
    fab_sink_t sink = {.name = "text",
                       .run_begin = fab_text_run_begin,
                       .kernel_begin = fab_text_kernel_begin,
                       .row = fab_text_row,
                       .matrix = fab_text_matrix,
                       .run_end = fab_text_run_end,
                       .mark = fab_text_mark,
                       .arg = f};

    return sink;
}
