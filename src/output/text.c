/* SPDX-License-Identifier: BSD-3-Clause */
/* The human table on stdout: '#' header lines, then one row per message size (output/table.c),
 * a collective's average busbw. Column names carry decimal units: us = 10^-6 s, MB/s = 10^6
 * B/s, Gb/s = 10^9 bit/s. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/outopts.h"
#include "core/status.h"
#include "core/text.h"
#include "core/world.h"
#include "fab_version.h"
#include "kernel/dtype.h"
#include "kernel/fab_kernel.h"
#include "kernel/traits.h"
#include "measure/adaptive.h"
#include "measure/plan.h"
#include "measure/quality.h"
#include "measure/rounds.h"
#include "measure/row.h"
#include "measure/sink.h"
#include "net/fabric.h"
#include "net/runinfo.h"
#include "output/columns.h"
#include "output/kernelmeta.h"
#include "output/table.h"
#include "output/text.h"
#include "pairs/locate.h"
#include "pairs/pairs.h"

/* The text sink: where it prints, the run's options (--wide, --columns) and the kernel's
 * table, with the busbw of its rows so far. */
/* A kernel's instances so far, for its knee line (fab_kaxis_t.knee_col). */
#define FAB_KNEE_MAX 256
typedef struct fab_knee {
    const char *kernel; /* NULL: none */
    int n;
    double axis[FAB_KNEE_MAX], bytes[FAB_KNEE_MAX], value[FAB_KNEE_MAX];
} fab_knee_t;

typedef struct fab_text {
    FILE *f;
    const fab_launchopts_t *lopt; /* the run's kernels */
    const fab_measopts_t *mopt;   /* the policy, a collective's type and reduction */
    const fab_outopts_t *oopt;    /* --wide, --columns */
    bool begun;                   /* run_begin has run */
    fab_text_table_t table;
    double busbw_sum;
    int busbw_n;
    fab_knee_t knee;
    fab_text_marks_t marks; /* the kernel's rows' quality marks */
    char **hosts;           /* per rank (the run's), for a straggler's host */
    int nranks;
} fab_text_t;

/* ------------------------------------------------------------------ '#' lines */

void fab_out_text_line(FILE *f, const char *fmt, ...)
{
    char small[1024], *buf = small;
    const char *p;
    va_list ap;
    int n, indent = 0;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(small) && (buf = malloc((size_t)n + 1)) != NULL) {
        va_start(ap, fmt);
        vsnprintf(buf, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    if (!buf)
        buf = small; /* out of memory: the line as far as it fitted */
    p = buf;
    while ((int)strlen(p) + indent > FAB_TEXT_COLS) {
        int room = FAB_TEXT_COLS - indent, at = room;

        while (at > 2 && p[at] != ' ')
            at--;
        if (at <= 2) { /* one word longer than the line: kept whole */
            const char *sp = strchr(p + room, ' ');

            if (!sp)
                break;
            at = (int)(sp - p);
        }
        fprintf(f, "%s%.*s\n", indent ? "#   " : "", at, p);
        p += at + 1;
        indent = 4;
    }
    fprintf(f, "%s%s\n", indent ? "#   " : "", p);
    if (buf != small)
        free(buf);
}

/* Whether the table shows column name (a legend names only what is there). */
static bool fab_text_shows(const fab_text_table_t *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->cell[i].col, name) == 0)
            return true;
    return false;
}

/* The adaptive measurement's budget and estimated end (the policy: each kernel's header),
 * and what ci% says. */
static void fab_out_text_measurement(FILE *f, const fab_launchopts_t *lopt,
                                     const fab_measopts_t *mopt, const fab_outopts_t *oopt)
{
    int rows;
    double budget = fab_rounds_budget(lopt, mopt, &rows);
    time_t end = time(NULL) + (time_t)ceil(budget);
    char at[32] = "", how[256] = "";

    if (!mopt->adaptive || rows == 0)
        return;
    strftime(at, sizeof(at), "%H:%M:%S", localtime(&end));
    if (!fab_rounds_budget_auto(lopt, mopt)) { /* kernels that ask for more per row: name them */
        size_t n = 0;

        fab_appendf(how, sizeof(how), &n, "%s",
                    mopt->budget_s > 0 ? "--budget, shared as" : "auto:");
        for (int i = 0; i < lopt->nkernels; i++) {
            const fab_kernel_t *k = lopt->kernels[i].k;
            double row_s = fab_kbudget(k)->row_s;

            if (row_s > 0 && (i == 0 || strcmp(lopt->kernels[i - 1].k->name, k->name) != 0))
                fab_appendf(how, sizeof(how), &n, " %s %g s,", k->name, row_s);
        }
        fab_appendf(how, sizeof(how), &n, " others " FAB_STR(FAB_BUDGET_PER_ROW) " s per row");
    }
    fab_out_text_line(f, "# budget: %.3g s for %d rows (%s), ends about %s", budget, rows,
                      how[0]               ? how
                      : mopt->budget_s > 0 ? "--budget"
                                           : "auto: " FAB_STR(FAB_BUDGET_PER_ROW) " s per row",
                      at);
    fab_out_text_line(f,
                      "# floor: a row needs %d timed iterations in %d blocks; a size short of them "
                      "when its share is spent goes on, the run up to %.3g s in all (the cap: "
                      "the larger of %g x the budget and the budget + %g s); a row still short "
                      "then is INVALID, its numbers in ( )",
                      FAB_FLOOR_SAMPLES, FAB_ADAPT_MIN_BLOCKS, fab_quality_cap(budget),
                      FAB_CAP_FACTOR, FAB_CAP_MIN_S);
    fab_out_text_line(
        f,
        "# ci%%: the median's 95%% interval (+-%% of p50); * missed --precision %g%%%s; ! the "
        "machine disturbed the row",
        mopt->precision_pct, oopt->wide || oopt->columns ? "" : ", rN: N regimes over time");
}

static fab_status_t fab_text_run_begin(void *arg, const fab_run_info_t *info)
{
    fab_text_t *t = arg;
    const fab_outopts_t *oopt = t->oopt;
    FILE *f = t->f;
    const char *rpn = info->ranks_per_node;
    char hosts[1024] = "";
    size_t at = 0;
    int shown = 0;

    t->begun = true;
    t->hosts = info->hosts;
    t->nranks = info->nranks;
    fprintf(f, "# fabricbench %s (git %s)\n", FAB_VERSION, FAB_GIT_COMMIT);
    if (info->simulated[0])
        fab_out_text_line(f, "# SIMULATED: %s", info->simulated);
    fprintf(f, "# date: %s\n", info->start_time);
    fprintf(f, "# command: %s\n", info->command_line);
    /* "host:n,host:n" -> "host (n), host (n)", at most 8 hosts */
    while (*rpn && shown < 8) {
        size_t len = strcspn(rpn, ",");
        const char *colon = memchr(rpn, ':', len);

        if (colon)
            fab_appendf(hosts, sizeof(hosts), &at, "%s %.*s (%.*s)", shown ? "," : "",
                        (int)(colon - rpn), rpn, (int)(len - (size_t)(colon - rpn) - 1), colon + 1);
        shown++;
        rpn += len + (rpn[len] == ',');
    }
    fab_out_text_line(f, "# ranks: %d on %d host%s:%s%s", info->nranks, info->nhosts,
                      info->nhosts == 1 ? "" : "s", hosts, *rpn ? ", ..." : "");
    fab_out_text_line(f, "# mpi: %s", info->mpi_library);
    fab_out_text_line(f, "# pml: %s (%s)", info->pml, info->pml_how);
    fab_out_text_line(f, "# ucx: %s; transports: %s", info->ucx_version, info->ucx_tls);
    if (info->fabric && info->fabric->name[0]) {
        const fab_fabric_t *fb = info->fabric;
        char dev[512] = "";

        if (fb->device[0])
            snprintf(dev, sizeof(dev), "; device %s%s%.0d (%s)", fb->device, fb->port ? ":" : "",
                     fb->port, fb->why);
        fab_out_text_line(f, "# fabric: %s (asked: %s; %s)%s", fb->name, fb->requested,
                          fb->description, dev);
        fab_out_text_line(f, "# fabric environment: %s", fb->env[0] ? fb->env : "none");
    } else {
        fab_out_text_line(f, "# fabric: any (UCX chooses; --fabric ib|roce|erdma|tcp|shm|auto "
                             "selects one)");
    }
    if (info->line_rate_gbps > 0)
        fab_out_text_line(f,
                          "# line rate: %g Gb/s (%s); line%% = Gb/s (collectives: busbw) / "
                          "line rate",
                          info->line_rate_gbps, info->line_rate_from);
    else
        fab_out_text_line(f, "# line rate: unknown (%s); line%% is n/a (--line-rate sets it)",
                          info->line_rate_from[0] ? info->line_rate_from : "no port chosen");
    for (int r = 0; info->placement && r < info->nranks; r++) {
        if (r == 8 && info->nranks > 9) {
            fprintf(f, "# placement: ... %d more ranks in the result file\n", info->nranks - 8);
            break;
        }
        fab_out_text_line(f, "# placement: %s", info->placement[r]);
    }
    fab_out_text_line(f, "# cpu%%: the ranks' own CPU time / wall time (100 = one core busy)");
    if (oopt->wide)
        fab_out_text_line(f, "# usr%% sys%% si%%: node-wide shares of all CPUs' time (/proc/stat)");
    fab_out_text_line(f, "# timer: %s", info->timer);
    fab_out_text_line(f, "# timer cost: %.1f ns per reading (measured now, rank 0)",
                      info->timer_cost_ns);
    if (info->slurm_job[0])
        fab_out_text_line(f, "# slurm: job %s, step %s, nodes %s", info->slurm_job,
                          info->slurm_step[0] ? info->slurm_step : "-", info->slurm_nodelist);
    fab_out_text_measurement(f, t->lopt, t->mopt, oopt);
    fprintf(f, "# results: %s\n", info->results_file[0] ? info->results_file : "no file (-o none)");
    fflush(f);
    return ferror(f) ? FAB_ERR_IO : FAB_OK;
}

/* What the measurement took against its budget, and why when it took longer. */
static void fab_text_measured(FILE *f, const fab_run_info_t *info)
{
    char cause[400] = "";

    /* busy: a quarter of the rows or more disturbed (or invalid on a busy machine); a few
     * disturbed rows do not explain an overrun, the floor of long iterations does */
    bool busy = strncmp(info->disturbance, "busy", 4) == 0 &&
                4 * (info->rows_disturbed + info->rows_invalid) >= info->rows;

    if (info->measure_s > FAB_BUDGET_SLACK * info->budget_s) {
        if (busy)
            snprintf(cause, sizeof(cause), ": the machine was busy");
        else
            snprintf(cause, sizeof(cause),
                     ": rows short of the floor (%d timed iterations in %d blocks) took longer "
                     "(long iterations, or a slow machine)",
                     FAB_FLOOR_SAMPLES, FAB_ADAPT_MIN_BLOCKS);
    }
    fab_out_text_line(f,
                      "# measured: budget %.3g s, took %.2f s%s%s (rounds, from the start of the "
                      "first kernel's set-up)",
                      info->budget_s, info->measure_s, cause,
                      info->capped && info->rows_invalid
                          ? "; the cap was reached, rows still below the floor are "
                            "INVALID"
                          : "");
}

static fab_status_t fab_text_run_end(void *arg, const fab_run_info_t *info)
{
    fab_text_t *t = arg;
    FILE *f = t->f;

    fprintf(f, "#\n");
    if (strcmp(info->pml, "ucx") == 0)
        fab_out_text_line(f, "# ucx transports (probe endpoint%s): %s",
                          info->probed_early ? ", before the measurements"
                                             : ", after the measurements",
                          info->ucx_tls);
    if (info->ucx_pairs[0])
        fab_out_text_line(f, "# ucx transports by probed pair: %s", info->ucx_pairs);
    if (info->fabric && !info->fabric->name[0] && !(info->line_rate_gbps > 0) && info->nhosts > 1) {
        char dev[80];

        /* any probed pair's network device (the first pair may be within a host) */
        if (fab_lanes_device(info->ucx_pairs[0] ? info->ucx_pairs : info->ucx_tls, dev,
                             sizeof(dev)))
            fab_out_text_line(f,
                              "# line%%: n/a: with --fabric any UCX chose the device (%s); name "
                              "it with --fabric KIND --device %s, or give --line-rate RATE, for "
                              "line%%",
                              dev, dev);
    }
    if (info->fabric && info->fabric->name[0])
        fab_out_text_line(f, "# fabric check: %s%s%s", info->fabric->verdict,
                          info->fabric->verdict_why[0] ? ": " : "", info->fabric->verdict_why);
    if (t->begun && t->mopt->adaptive && info->measure_s > 0)
        fab_text_measured(f, info);
    if (info->rows > 0 && (info->rows_invalid || info->rows_disturbed))
        fab_out_text_line(f, "# machine: %s", info->disturbance);
    fab_out_text_line(f, "# run %s at %s%s%s", info->status, info->end_time,
                      info->stop_reason[0] ? ": " : "", info->stop_reason);
    fflush(f);
    return ferror(f) ? FAB_ERR_IO : FAB_OK;
}

static fab_status_t fab_text_matrix(void *arg, const fab_kinst_t *ki, const fab_matrix_t *m)
{
    FILE *f = ((fab_text_t *)arg)->f;

    if (!m->verdict)
        return FAB_OK;
    fab_out_text_verdict(f, ki->k, m);
    fflush(f);
    return ferror(f) ? FAB_ERR_IO : FAB_OK;
}

/* A collective's header: its type and reduction (nccl-tests' words too), what the times are. */
static void fab_text_collective(FILE *f, const fab_kernel_t *k, const fab_measopts_t *mopt,
                                const fab_text_table_t *t)
{
    const fab_kcoll_t *coll = fab_kcoll(k);

    if (!coll->no_sizes || coll->uses_op) /* barrier moves no data */
        fab_out_text_line(
            f, "# dtype: %s%s%s (nccl-tests: type %s, redop %s)", fab_dtype_name(mopt->dtype),
            coll->uses_op ? ", op " : "", coll->uses_op ? fab_op_name(mopt->op) : "",
            fab_dtype_nccl_name(mopt->dtype), coll->uses_op ? fab_op_name(mopt->op) : "none");
    fab_out_text_line(f,
                      "# time_us = mean time per call, a call timed as its slowest rank (the "
                      "fabric's completion time)%s; algbw from %s%s",
                      fab_text_shows(t, "loop_us") ? "; loop_us = slowest rank's loop / calls" : "",
                      mopt->nonblocking && mopt->overlap_us > 0 ? "comm_us (the call alone)"
                                                                : "time_us",
                      fab_text_shows(t, "slowest_rank") ? "; slowest = rank:share of calls" : "");
    if (fab_text_shows(t, "osu_avg_us") || fab_text_shows(t, "imb_tmin_us") ||
        fab_text_shows(t, "imb_tmax_us"))
        fab_out_text_line(f,
                          "# osu_avg_us = the mean over ranks of each rank's own mean time per "
                          "call (OSU's avg, IMB's t_avg); imb_tmin_us, imb_tmax_us = the "
                          "least and largest of them (IMB's t_min, t_max)%s",
                          mopt->sync == FAB_SYNC_BARRIER ? "" : "; OSU's loop: --sync barrier");
    if (coll->uses_op && (mopt->dtype == FAB_DT_BFLOAT16 || mopt->dtype == FAB_DT_FLOAT16))
        fab_out_text_line(f, "# %s: %s; compare with --dtype float32 for the cost",
                          fab_dtype_name(mopt->dtype), fab_dtype_arithmetic(mopt->dtype));
    if (mopt->straggle)
        fab_out_text_line(f, "# straggle: %s injected (--straggle: RANK computes DELAY per call)",
                          mopt->straggle);
    if (mopt->nonblocking)
        fab_out_text_line(f, "# non-blocking: start, %s, wait%s",
                          mopt->overlap_us > 0 ? "synthetic compute (no MPI calls)" : "nothing",
                          mopt->overlap_us > 0 ? "; comm_us = the call alone, overlap = share of "
                                                 "it the compute hid"
                                               : "");
}

static fab_status_t fab_text_kernel_begin(void *arg, const fab_kinst_t *ki, const int *pair,
                                          const fab_world_t *w, const char *detail,
                                          const char *policy)
{
    const fab_kernel_t *k = ki->k;
    fab_text_t *t = arg;
    const fab_measopts_t *mopt = t->mopt;
    const fab_outopts_t *oopt = t->oopt;
    FILE *f = t->f;
    char variant[96];

    fab_text_table(k->kind, k, oopt->wide, oopt->columns, &t->table);
    fab_text_table_overlap(&t->table, !oopt->wide && !oopt->columns,
                           &(double){mopt->nonblocking && mopt->overlap_us > 0 ? 0.0 : NAN}, 1);
    fab_text_table_group(&t->table, mopt->split.kind != FAB_SPLIT_NONE && !oopt->columns);
    fab_text_marks_init(&t->marks);
    t->busbw_sum = 0;
    t->busbw_n = 0;
    fprintf(f, "#\n");
    fab_kernel_variant(k, ki->axis, variant, sizeof(variant), true);
    fab_out_text_line(f, "# kernel: %s%s%s: %s", k->name, variant[0] ? " " : "", variant,
                      k->summary);
    if (fab_kranks(k) == FAB_RANKS_NODES) {
        fab_out_text_line(f, "# ranks: every pair of members, as the line below says; the row "
                             "sums up the pairs: one sample per pair (latency: its median; "
                             "bandwidth: its mean), so min/p50/max are the best, median and "
                             "worst pair");
        fab_out_text_line(f, "# iterations: %s", policy);
    } else if (pair)
        fab_out_text_line(f, "# ranks: %d (%s) <-> %d (%s)%s", pair[0], w->hosts[pair[0]], pair[1],
                          w->hosts[pair[1]], w->size > 2 ? "; other ranks wait idle" : "");
    else if (k->kind == FAB_KIND_COLLECTIVE)
        fab_out_text_line(f, "# ranks: all %d", w->size);
    else if (k->rank_multiple == 2) /* else its own line says how its ranks pair (--pattern) */
        fab_out_text_line(f, "# ranks: %d (%d pairs: rank i sends to rank i+%d)", w->size,
                          w->size / 2, w->size / 2);
    if (fab_kranks(k) != FAB_RANKS_NODES)
        fab_out_text_line(f, "# iterations: %s", policy);
    if (fab_kp2p(k)->uses_window)
        fab_out_text_line(f,
                          "# window: %d messages per iteration; *_us columns time one "
                          "iteration",
                          fab_plan_window(k, mopt));
    if (k->kind == FAB_KIND_COLLECTIVE)
        fab_text_collective(f, k, mopt, &t->table);
    if (detail && *detail)
        fab_out_text_line(f, "# %s: %s", k->name, detail);
    if (k->kind == FAB_KIND_COLLECTIVE && fab_kcoll(k)->uses_root)
        fab_out_text_line(f, "# root: %s",
                          mopt->root < 0 ? "rotates (iteration i uses rank i mod ranks)"
                                         : "fixed (--root)");
    if (k->kind == FAB_KIND_LATENCY) /* a ping-pong halves its round trip, one-sided ops do not */
        fab_out_text_line(
            f, "# lat_us = loop mean (total time / iterations)%s",
            fab_ktime_divisor(k) == 2.0
                ? ", one way; other *_us columns: per iteration, one way (half the round trip)"
                : "; other *_us columns: per iteration, whole (an operation and its completion, "
                  "not halved)");
    fab_out_text_line(f,
                      "# percentiles: exact up to %ld samples per size, else from a histogram "
                      "(error <= 0.2%%%s)",
                      mopt->max_samples,
                      fab_text_shows(&t->table, "percentiles_exact") ? "; column pct" : "");
    fab_text_heading(f, &t->table);
    fflush(f);
    return ferror(f) ? FAB_ERR_IO : FAB_OK;
}

/* Row r of instance ki: its knee column's value. */
static void fab_text_knee_add(fab_knee_t *kn, const fab_kinst_t *ki, const double *d,
                              const fab_row_t *r)
{
    const fab_kernel_t *k = ki->k;
    int c = fab_column_find(k->axis->knee_col);

    if (kn->kernel != k->name) { /* the first instance of a series */
        kn->kernel = k->name;
        kn->n = 0;
    }
    if (c < 0 || kn->n >= FAB_KNEE_MAX)
        return;
    kn->axis[kn->n] = ki->axis;
    kn->bytes[kn->n] = (double)r->bytes;
    kn->value[kn->n++] = d[c];
}

/* After the last instance of a series: per size, the highest axis value whose column stays
 * within knee_max (the values in axis order), and the first beyond it. */
static void fab_text_knee(FILE *f, fab_knee_t *kn, const fab_kernel_t *k)
{
    const fab_kaxis_t *ax = k->axis;
    int c = fab_column_find(ax->knee_col);
    const fab_kcol_t *kc = fab_column_kcol(c);
    const char *col = kc && kc->head ? kc->head : ax->knee_col;

    for (int i = 0; i < kn->n; i++) {
        int below = -1, above = -1;
        char a[32], b[32];
        bool first = true;

        for (int j = 0; j < i && first; j++)
            first = kn->bytes[j] != kn->bytes[i];
        if (!first)
            continue;
        for (int j = 0; j < kn->n; j++) { /* the axis values of this size, in order */
            if (kn->bytes[j] != kn->bytes[i] || isnan(kn->value[j]))
                continue;
            if (kn->value[j] > ax->knee_max) {
                if (above < 0 || kn->axis[j] < kn->axis[above])
                    above = j;
            }
        }
        for (int j = 0; j < kn->n; j++)
            if (kn->bytes[j] == kn->bytes[i] && !isnan(kn->value[j]) &&
                (above < 0 || kn->axis[j] < kn->axis[above]) &&
                (below < 0 || kn->axis[j] > kn->axis[below]))
                below = j;
        if (below < 0 && above < 0)
            continue;
        /* the axis values as the option is written (2.5G, 4) */
        fab_kernel_variant(k, below >= 0 ? kn->axis[below] : 0, a, sizeof(a), false);
        fab_kernel_variant(k, above >= 0 ? kn->axis[above] : 0, b, sizeof(b), false);
        if (above < 0)
            fab_out_text_line(f, "# knee, %s %.0f bytes: %s <= %g at every --%s up to %s", k->name,
                              kn->bytes[i], col, ax->knee_max, ax->option, a);
        else if (below < 0)
            fab_out_text_line(f, "# knee, %s %.0f bytes: %s %.3g already at the lowest --%s, %s",
                              k->name, kn->bytes[i], col, kn->value[above], ax->option, b);
        else
            fab_out_text_line(f, "# knee, %s %.0f bytes: %s <= %g up to --%s %s (%.3g); %.3g at %s",
                              k->name, kn->bytes[i], col, ax->knee_max, ax->option, a,
                              kn->value[below], kn->value[above], b);
    }
    kn->kernel = NULL;
    kn->n = 0;
}

/* Whether ki is the last of its series of instances in the run. */
static bool fab_text_last_instance(const fab_launchopts_t *lopt, const fab_kinst_t *ki)
{
    for (int i = 0; i < lopt->nkernels; i++)
        if (&lopt->kernels[i] == ki)
            return i + 1 == lopt->nkernels ||
                   strcmp(lopt->kernels[i + 1].k->name, ki->k->name) != 0;
    return true;
}

static fab_status_t fab_text_sink_row(void *arg, const fab_kinst_t *ki, const fab_row_t *r,
                                      const double *samples, size_t nsamples)
{
    const fab_kernel_t *k = ki->k;
    fab_text_t *t = arg;
    double d[FAB_MAX_COLUMNS];
    const char *s[FAB_MAX_COLUMNS];

    (void)samples;
    (void)nsamples;
    fab_column_values(ki, r, d, s);
    fab_text_row(t->f, &t->table, d, s);
    fab_text_marks_add(&t->marks, d, s);
    if (k->axis && k->axis->knee_col)
        fab_text_knee_add(&t->knee, ki, d, r);
    if (k->kind == FAB_KIND_COLLECTIVE && isfinite(r->busbw)) {
        t->busbw_sum += r->busbw;
        t->busbw_n++;
    }
    if (r->regimes > 1) {
        char line[512];
        size_t at = 0;

        fab_appendf(line, sizeof(line), &at,
                    "#   ^ %d regimes over time (block medians):", r->regimes);
        for (int g = 0; g < r->regimes && g < FAB_REGIME_MAX; g++)
            fab_appendf(line, sizeof(line), &at, "%s %.3f us (%.0f%%)", g ? "," : "",
                        r->regime_level[g] * 1e6, 100.0 * r->regime_share[g]);
        fab_out_text_line(t->f, "%s; the median depends on how long each lasted", line);
    }
    fab_out_text_straggler(t->f, r, t->hosts, t->nranks);
    return ferror(t->f) ? FAB_ERR_IO : FAB_OK;
}

static fab_status_t fab_text_kernel_end(void *arg, const fab_kinst_t *ki, fab_status_t st)
{
    const fab_kernel_t *k = ki->k;
    fab_text_t *t = arg;

    (void)st;
    if (k->axis && k->axis->knee_col && t->knee.kernel == k->name &&
        fab_text_last_instance(t->lopt, ki))
        fab_text_knee(t->f, &t->knee, k);
    fab_out_text_avg_busbw(t->f, t->busbw_sum, t->busbw_n);
    fab_out_text_marks(t->f, &t->marks);
    t->busbw_n = 0;
    fflush(t->f);
    return ferror(t->f) ? FAB_ERR_IO : FAB_OK;
}

static void fab_text_mark(void *arg, const char *status, const char *reason, bool final)
{
    FILE *f = ((fab_text_t *)arg)->f;
    char now[32];

    if (!final)
        return;
    fab_utc_now(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ");
    fprintf(f, "#\n");
    fab_out_text_line(f, "# run %s at %s: %s", status, now, reason);
    fflush(f);
}

static void fab_text_close(void *arg)
{
    free(arg);
}

/* Without memory for the sink, the run stops before it measures anything (exit 3). */
static fab_status_t fab_text_nomem(void *arg, const fab_run_info_t *info)
{
    (void)arg;
    (void)info;
    return FAB_ERR_NOMEM;
}

fab_sink_t fab_out_text_sink(FILE *f, const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                             const fab_outopts_t *oopt)
{
    fab_text_t *t = calloc(1, sizeof(*t));
    fab_sink_t sink = {.name = "text",
                       .run_begin = fab_text_run_begin,
                       .kernel_begin = fab_text_kernel_begin,
                       .row = fab_text_sink_row,
                       .matrix = fab_text_matrix,
                       .kernel_end = fab_text_kernel_end,
                       .run_end = fab_text_run_end,
                       .mark = fab_text_mark,
                       .close = fab_text_close,
                       .arg = t};

    if (!t)
        return (fab_sink_t){.name = "text", .run_begin = fab_text_nomem};
    t->f = f;
    t->lopt = lopt;
    t->mopt = mopt;
    t->oopt = oopt;
    return sink;
}
