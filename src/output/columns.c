/* SPDX-License-Identifier: BSD-3-Clause */
/* The columns of a result row, shared by every file format (HDF5, JSON Lines, CSV) and by
 * `fabricbench show`, so names and units are the same everywhere. Names are file-safe
 * ("MBps" for MB/s); units are decimal, as docs/METRICS.md defines them. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "kernel/dtype.h"
#include "kernel/registry.h"
#include "kernel/traits.h"
#include "measure/adaptive.h"
#include "measure/row.h"
#include "measure/stats.h"
#include "output/columns.h"
#include "pairs/locate.h"

#define ROW(field) offsetof(fab_row_t, field)
#define US         1e6 /* seconds in the row, microseconds in the column */

/* A collective's row with data: barrier's one row of 0 bytes moves none (it has no type). */
static bool fab_col_typed(const fab_kernel_t *k, const fab_row_t *r)
{
    return r->dtype >= 0 && k && k->kind == FAB_KIND_COLLECTIVE &&
           !(fab_kcoll(k)->no_sizes && r->bytes == 0);
}

static void fab_col_count(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    if (fab_col_typed(k, r))
        v->i = (int64_t)(r->bytes / fab_dtype_size(r->dtype));
    else
        v->i = r->dtype >= 0 && k && k->kind == FAB_KIND_COLLECTIVE ? 0 : -1;
}

static void fab_col_type(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    if (fab_col_typed(k, r))
        v->s = fab_dtype_nccl_name(r->dtype);
    else
        v->s = r->dtype >= 0 && k && k->kind == FAB_KIND_COLLECTIVE ? "none" : "";
}

static void fab_col_redop(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    if (r->op >= 0 && k && k->kind == FAB_KIND_COLLECTIVE)
        v->s = fab_kcoll(k)->uses_op ? fab_op_name(r->op) : "none";
    else
        v->s = "";
}

static void fab_col_quality(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    (void)k;
    v->s = fab_quality_name((fab_quality_t)r->quality);
}

static void fab_col_quality_reason(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    (void)k;
    v->s = r->quality_reason; /* the row's own text, valid while the row is */
}

static void fab_col_component(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    (void)k;
    v->s = r->component; /* the row's own text, valid while the row is */
}

static void fab_col_group(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    (void)k;
    v->s = r->group; /* the row's own text, valid while the row is */
}

static void fab_col_group_ranks(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    (void)k;
    v->s = r->group_ranks;
}

static void fab_col_error_port(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    (void)k;
    v->s = r->fab.err_port; /* the row's own text, valid while the row is */
}

static void fab_col_signals(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v)
{
    (void)k;
    v->s = r->fab.signals;
}

/* In file order: the HDF5 table's datasets, JSON Lines' and CSV's fields follow it. */
static const fab_column_t fab_columns_base[] = {
    {"bytes", "bytes", FAB_COL_U64, "message size", ROW(bytes), 'u', 1, NULL},
    {"iterations", "count", FAB_COL_U64, "timed iterations", ROW(iters), 'u', 1, NULL},
    {"warmup", "count", FAB_COL_U64, "untimed iterations before, calibration included", ROW(warmup),
     'u', 1, NULL},
    {"min_us", "us", FAB_COL_F64, "minimum time", ROW(t.min), 'd', US, NULL},
    {"p50_us", "us", FAB_COL_F64, "median time", ROW(t.p50), 'd', US, NULL},
    {"mean_us", "us", FAB_COL_F64, "mean of the per-iteration times", ROW(t.mean), 'd', US, NULL},
    {"p90_us", "us", FAB_COL_F64, "90th percentile time", ROW(t.p90), 'd', US, NULL},
    {"p99_us", "us", FAB_COL_F64, "99th percentile time", ROW(t.p99), 'd', US, NULL},
    {"p999_us", "us", FAB_COL_F64, "99.9th percentile time", ROW(t.p999), 'd', US, NULL},
    {"max_us", "us", FAB_COL_F64, "maximum time", ROW(t.max), 'd', US, NULL},
    {"stddev_us", "us", FAB_COL_F64, "sample standard deviation (n - 1)", ROW(t.stddev), 'd', US,
     NULL},
    {"loop_us", "us", FAB_COL_F64, "loop mean: timed blocks' total / iterations", ROW(t.loop_mean),
     'd', US, NULL},
    {"MBps", "MB/s", FAB_COL_F64, "10^6 bytes per second, all pairs", ROW(mbps), 'd', 1, NULL},
    {"Gbps", "Gb/s", FAB_COL_F64, "10^9 bits per second, all pairs", ROW(gbps), 'd', 1, NULL},
    {"msgps", "msg/s", FAB_COL_F64, "messages per second, all pairs", ROW(msgps), 'd', 1, NULL},
    {"pair_MBps", "MB/s", FAB_COL_F64,
     "MBps per stream (a pair of ranks; a TCP connection of a socket kernel)", ROW(mbps_stream),
     'd', 1, NULL},
    {"pair_msgps", "msg/s", FAB_COL_F64, "msgps per stream (as pair_MBps)", ROW(msgps_stream), 'd',
     1, NULL},
    {"validation_errors", "bytes", FAB_COL_I64,
     "bytes (point to point) or elements (collectives) received wrong; -1: not validated",
     ROW(validation_errors), 'l', 1, NULL},
    {"percentiles_exact", "flag", FAB_COL_I64,
     "1: percentiles from every sample; 0: from the histogram (<= 0.2% off)", ROW(t.exact), 'b', 1,
     NULL},
    {"algbw_GBps", "GB/s", FAB_COL_F64,
     "collectives: bytes / mean_us (nccl-tests algbw); NaN otherwise", ROW(algbw), 'd', 1, NULL},
    {"busbw_GBps", "GB/s", FAB_COL_F64,
     "collectives: algbw x the kernel's bus factor (nccl-tests busbw)", ROW(busbw), 'd', 1, NULL},
    {"slowest_rank", "rank", FAB_COL_I64,
     "the rank slowest in most iterations; -1 when one rank times", ROW(slowest_rank), 'i', 1,
     NULL},
    {"slowest_share", "fraction", FAB_COL_F64,
     "the share of iterations slowest_rank was the slowest in", ROW(slowest_share), 'd', 1, NULL},
    {"comm_us", "us", FAB_COL_F64, "--overlap-compute: mean time of the same call without compute",
     ROW(comm_time), 'd', US, NULL},
    {"overlap_pct", "%", FAB_COL_F64, "--overlap-compute: share of comm_us hidden by the compute",
     ROW(overlap_pct), 'd', 1, NULL},
    {"line_rate_pct", "%", FAB_COL_F64,
     "Gbps (collectives: busbw) / data rate of the port in use (bibw: 2 x); "
     "NaN unknown",
     ROW(line_pct), 'd', 1, NULL},
    {"cpu_rank_pct", "%", FAB_COL_F64,
     "CPU time / wall time of the ranks taking part, mean (100: one core)", ROW(cpu_rank_pct), 'd',
     1, NULL},
    {"cpu_node_user_pct", "%", FAB_COL_F64,
     "node-wide user share of all CPUs (/proc/stat), mean over nodes", ROW(cpu_user_pct), 'd', 1,
     NULL},
    {"cpu_node_sys_pct", "%", FAB_COL_F64, "node-wide system share of all CPUs, mean over nodes",
     ROW(cpu_sys_pct), 'd', 1, NULL},
    {"cpu_node_softirq_pct", "%", FAB_COL_F64,
     "node-wide softirq share of all CPUs, mean over nodes", ROW(cpu_softirq_pct), 'd', 1, NULL},
    {"cpu_rank_min_pct", "%", FAB_COL_F64,
     "CPU time / wall time of the least busy rank taking part", ROW(cpu_rank_min_pct), 'd', 1,
     NULL},
    {"cpu_rank_max_pct", "%", FAB_COL_F64, "CPU time / wall time of the busiest rank taking part",
     ROW(cpu_rank_max_pct), 'd', 1, NULL},
    {"cpu_rank_max_rank", "rank", FAB_COL_I64, "world rank of the busiest rank; -1 unknown",
     ROW(cpu_rank_max_rank), 'i', 1, NULL},
    {"p9999_us", "us", FAB_COL_F64, "99.99th percentile time", ROW(t.p9999), 'd', US, NULL},
    {"stall_s", "s", FAB_COL_F64,
     "longest wait of a rank beyond what its step allowed (10 x the expected step + 1 s): a stall "
     "that resumed; 0 none",
     ROW(stall_s), 'd', 1, NULL},
    {"ci_pct", "%", FAB_COL_F64,
     "half-width of the 95% confidence interval of the median (order statistics), % of p50; "
     "NaN below 6 samples (no such interval)",
     ROW(ci_pct), 'd', 1, NULL},
    {"blocks", "count", FAB_COL_U64,
     "adaptive: blocks measured, one per round the size took part in; 0 for -i and --time",
     ROW(blocks), 'u', 1, NULL},
    {"blocks_ci_pct", "%", FAB_COL_F64,
     "adaptive: ci_pct over the block medians (the spread across time); NaN otherwise",
     ROW(blocks_ci_pct), 'd', 1, NULL},
    {"target_met", "flag", FAB_COL_I64,
     "adaptive: 1 met --precision (ci_pct and blocks_ci_pct within it, no regimes), 0 stopped "
     "by the budget; -1 no target (-i, --time)",
     ROW(target_met), 'i', 1, NULL},
    {"regimes", "count", FAB_COL_I64,
     "adaptive: separate levels in the block medians over time (1: one; 2-3: regimes, see "
     "the blocks group); 0 not assessed",
     ROW(regimes), 'i', 1, NULL},
    {"count", "elements", FAB_COL_I64,
     "collectives: elements of the type in bytes (nccl-tests count); -1 for other kernels", 0, 'f',
     1, fab_col_count},
    {"type", "name", FAB_COL_STR,
     "collectives: the element type as nccl-tests names it (float, half, ...), none for barrier; "
     "\"\" for other kernels",
     0, 'f', 1, fab_col_type},
    {"redop", "name", FAB_COL_STR,
     "collectives: the reduction (sum, max, min, prod, avg), none for those without one; \"\" "
     "for other kernels",
     0, 'f', 1, fab_col_redop},
};
#define FAB_NBASE ((int)(sizeof(fab_columns_base) / sizeof(fab_columns_base[0])))

/* After the kernels' own columns (so that every earlier column keeps its place): the row's
 * quality and the machine's disturbance during it (measure/quality.h). */
static const fab_column_t fab_columns_tail[] = {
    {"quality", "name", FAB_COL_STR,
     "ok, noisy (regimes, --precision missed), disturbed (the machine took time from the ranks) "
     "or invalid (below the floor of " FAB_STR(
         FAB_FLOOR_SAMPLES) " timed iterations and, "
                            "adaptive, " FAB_STR(
                                FAB_ADAPT_MIN_BLOCKS) " blocks: not a measurement)",
     0, 'f', 1, fab_col_quality},
    {"quality_reason", "words", FAB_COL_STR,
     "why, ';'-separated: samples, blocks (below the floor), cpu, steal, runnable, ctxsw "
     "(disturbed), regimes, precision (noisy); \"\" for ok",
     0, 'f', 1, fab_col_quality_reason},
    {"cpu_steal_pct", "%", FAB_COL_F64,
     "the node's steal share of all CPUs' time (/proc/stat: taken by the hypervisor), the most "
     "of the nodes; NaN where the kernel reports none",
     ROW(cpu_steal_pct), 'd', 1, NULL},
    {"ctx_invol_per_s", "1/s", FAB_COL_F64,
     "involuntary context switches per second of the most preempted rank taking part "
     "(getrusage ru_nivcsw)",
     ROW(ctxsw_per_s), 'd', 1, NULL},
    {"runnable_per_cpu", "count", FAB_COL_F64,
     "runnable tasks per online CPU of the node (/proc/loadavg, the ranks included), mean of the "
     "row's block ends, the most of the nodes",
     ROW(runnable_per_cpu), 'd', 1, NULL},
    /* The peers' definitions (docs/METRICS.md "Collectives: the peers' definitions") */
    {"osu_avg_us", "us", FAB_COL_F64,
     "mean over the timing ranks of each rank's own mean time per iteration (OSU's avg latency, "
     "IMB's t_avg); NaN where no rank timed",
     ROW(osu_avg), 'd', US, NULL},
    {"imb_tmin_us", "us", FAB_COL_F64,
     "least of the timing ranks' own mean times per iteration (IMB's t_min)", ROW(imb_tmin), 'd',
     US, NULL},
    {"imb_tmax_us", "us", FAB_COL_F64,
     "largest of the timing ranks' own mean times per iteration (IMB's t_max)", ROW(imb_tmax), 'd',
     US, NULL},
    {"component", "name", FAB_COL_STR,
     "the MPI component under the measurement as its kernel names it: the one-sided kernels' osc "
     "component of their window (ucx, rdma, pt2pt, sm; unknown when Open MPI does not say); \"\" "
     "for other kernels",
     0, 'f', 1, fab_col_component},
    {"group", "name", FAB_COL_STR,
     "--split: the group of ranks the row measured, by its rule and its lowest rank's value "
     "(mod2=1, div4=0, node=HOST, rail=0); every group runs the collective at once on its own "
     "communicator; \"\" without --split",
     0, 'f', 1, fab_col_group},
    {"group_ranks", "ranks", FAB_COL_STR,
     "--split: the group's members, world ranks ascending, comma-separated (\"0,2\"); \"\" "
     "without --split",
     0, 'f', 1, fab_col_group_ranks},
    /* The fabric's counters over the row (net/fabcount.h, docs/METRICS.md "Fabric counters") */
    {"fabric_ports", "count", FAB_COL_I64,
     "RDMA ports and Ethernet interfaces whose counters were read, summed over the nodes (0: "
     "none, the fabric columns NaN)",
     ROW(fab.ports), 'i', 1, NULL},
    {"fabric_pause_frames", "count", FAB_COL_F64,
     "pause frames (802.3x and PFC, received and sent) the nodes' Ethernet ports counted during "
     "the row, summed over nodes (the driver's ethtool statistics); NaN none",
     ROW(fab.grew[FAB_FC_PAUSE]), 'd', 1, NULL},
    {"fabric_cnp", "count", FAB_COL_F64,
     "RoCE congestion notification packets sent and handled during the row (hw_counters "
     "np_cnp_sent + rp_cnp_handled), summed over nodes; NaN none",
     ROW(fab.grew[FAB_FC_CNP]), 'd', 1, NULL},
    {"fabric_ecn_marked", "count", FAB_COL_F64,
     "packets received ECN-marked during the row (np_ecn_marked_roce_packets, rx_ecn_mark), "
     "summed over nodes; NaN none",
     ROW(fab.grew[FAB_FC_ECN]), 'd', 1, NULL},
    {"fabric_xmit_wait", "count", FAB_COL_F64,
     "InfiniBand port_xmit_wait ticks during the row (data to send, no credit), summed over "
     "nodes; NaN none",
     ROW(fab.grew[FAB_FC_XMIT_WAIT]), 'd', 1, NULL},
    {"fabric_seq_err", "count", FAB_COL_F64,
     "RDMA out_of_sequence, packet_seq_err and local_ack_timeout_err during the row, summed over "
     "nodes; NaN none",
     ROW(fab.grew[FAB_FC_SEQ]), 'd', 1, NULL},
    {"fabric_port_errors", "count", FAB_COL_F64,
     "link and packet errors during the row (symbol_error, link_downed, port_rcv_errors, CRC "
     "...), summed over nodes; NaN none",
     ROW(fab.grew[FAB_FC_ERRORS]), 'd', 1, NULL},
    {"fabric_error_port", "name", FAB_COL_STR,
     "host:port whose error counters grew most during the row; \"\" none", 0, 'f', 1,
     fab_col_error_port},
    {"fabric_signals", "name", FAB_COL_STR,
     "what grew during the row: pause, cnp, ecn, seq, errors (comma-separated); \"\" none", 0, 'f',
     1, fab_col_signals},
    {"netrx_top_cpu_pct", "%", FAB_COL_F64,
     "share of the receive softirqs (/proc/softirqs NET_RX) the busiest CPU handled, the node "
     "where it is highest, %; NaN below 1000 softirqs",
     ROW(fab.netrx_pct), 'd', 1, NULL},
    {"netrx_top_cpu", "cpu", FAB_COL_I64, "that CPU's number; -1 unknown", ROW(fab.netrx_cpu), 'i',
     1, NULL},
    /* Arrivals (docs/METRICS.md "Stragglers: arrival skew") */
    {"late_rank", "rank", FAB_COL_I64,
     "collectives: the rank that entered the call last in most iterations (the arrival "
     "skew, docs/METRICS.md); -1 when not measured",
     ROW(late.rank), 'i', 1, NULL},
    {"late_share", "fraction", FAB_COL_F64, "the share of iterations late_rank entered last in",
     ROW(late.share), 'd', 1, NULL},
    {"late_p50_us", "us", FAB_COL_F64,
     "median lateness of late_rank in the iterations it entered last in: its entry minus the "
     "second-to-last rank's",
     ROW(late.p50), 'd', US, NULL},
    {"late_p99_us", "us", FAB_COL_F64, "99th percentile of that lateness", ROW(late.p99), 'd', US,
     NULL},
    {"late_explains", "fraction", FAB_COL_F64,
     "late_rank's lateness summed over the row's summed call time (time_us x iterations)",
     ROW(late.explains), 'd', 1, NULL},
    {"straggler_rank", "rank", FAB_COL_I64,
     "late_rank when it entered last in at least half the iterations and its lateness explains "
     "at least half the time (the table's warning names it); -1 none",
     ROW(late.straggler), 'i', 1, NULL},
};
#define FAB_NTAIL ((int)(sizeof(fab_columns_tail) / sizeof(fab_columns_tail[0])))

/* The harness's columns, then every registered kernel's own (fab_kcolumns_t.kcols), each name
 * once, in registry order: filled before main (fab_columns_build). */
static fab_column_t fab_columns_all[FAB_MAX_COLUMNS];
const fab_column_t *const fab_columns = fab_columns_all;
int fab_ncolumns;

static void fab_columns_build(void) __attribute__((constructor));
static void fab_columns_build(void)
{
    int n = 0;

    for (int c = 0; c < FAB_NBASE; c++)
        fab_columns_all[n++] = fab_columns_base[c];
    for (int i = 0; i < fab_nkernels; i++) {
        const fab_kcolumns_t *kcs = fab_kcolumns(fab_kernels[i]);

        for (int j = 0; j < kcs->nkcols && j < FAB_KCOL_MAX; j++) {
            const fab_kcol_t *kc = &kcs->kcols[j];
            bool seen = false;

            for (int c = FAB_NBASE; c < n && !seen; c++)
                seen = strcmp(fab_columns_all[c].name, kc->name) == 0;
            if (seen || n >= FAB_MAX_COLUMNS)
                continue; /* shared by kernels (one table); unit.columns checks the room */
            fab_columns_all[n++] = (fab_column_t){
                .name = kc->name,
                .unit = kc->unit,
                .type = kc->kind == FAB_KCOL_AXIS_WORD ? FAB_COL_STR : FAB_COL_F64,
                .doc = kc->doc,
                .ctype = 'k',
                .scale = 1,
            };
        }
    }
    for (int c = 0; c < FAB_NTAIL && n < FAB_MAX_COLUMNS; c++)
        fab_columns_all[n++] = fab_columns_tail[c];
    fab_ncolumns = n;
}

const fab_kcol_t *fab_column_kcol(int col)
{
    if (col < 0 || col >= fab_ncolumns || fab_columns[col].ctype != 'k')
        return NULL;
    for (int i = 0; i < fab_nkernels; i++) {
        const fab_kcolumns_t *kcs = fab_kcolumns(fab_kernels[i]);

        for (int j = 0; j < kcs->nkcols; j++)
            if (strcmp(kcs->kcols[j].name, fab_columns[col].name) == 0)
                return &kcs->kcols[j];
    }
    return NULL;
}

int fab_columns_wanted(void)
{
    const char *names[FAB_MAX_COLUMNS * 4];
    int n = 0;

    for (int i = 0; i < fab_nkernels; i++)
        for (int j = 0; j < fab_kcolumns(fab_kernels[i])->nkcols; j++) {
            const char *name = fab_kernels[i]->columns->kcols[j].name;
            bool seen = false;

            for (int c = 0; c < n && !seen; c++)
                seen = strcmp(names[c], name) == 0;
            if (!seen && n < FAB_MAX_COLUMNS * 4)
                names[n++] = name;
        }
    return FAB_NBASE + n + FAB_NTAIL;
}

/* The index of the column called name in kernel k's own columns, or -1. */
static int fab_kcol_index(const fab_kernel_t *k, const char *name)
{
    for (int j = 0; k && j < fab_kcolumns(k)->nkcols && j < FAB_KCOL_MAX; j++)
        if (strcmp(k->columns->kcols[j].name, name) == 0)
            return j;
    return -1;
}

int fab_column_word_width(int col, int min)
{
    int w = min;

    for (int i = 0; col >= 0 && col < fab_ncolumns && i < fab_nkernels; i++) {
        const fab_kernel_t *k = fab_kernels[i];
        const char *name = fab_kaxis_option(k);
        const fab_kopts_t *ko = fab_kopts(k);
        int j = fab_kcol_index(k, fab_columns[col].name);

        if (j < 0 || !name || !ko || fab_kcolumns(k)->kcols[j].kind != FAB_KCOL_AXIS_WORD)
            continue;
        for (int r = 0; r < ko->n; r++)
            for (const char *p = ko->rows[r].arg; strcmp(ko->rows[r].name, name) == 0 &&
                                                  ko->rows[r].type == FAB_OPT_WORDS && p && *p;) {
                size_t l = strcspn(p, "|");

                w = (int)l > w ? (int)l : w;
                p += l + (p[l] == '|');
            }
    }
    return w;
}

/* A kernel's word column (FAB_KCOL_AXIS_WORD): the word of instance ki's axis value, in a
 * buffer of the column's own (valid until the column's next value); "" where ki's kernel has
 * no such column or axis. */
static const char *fab_column_word(int col, const fab_kinst_t *ki, int j)
{
    static char words[FAB_MAX_COLUMNS][48];
    const fab_kernel_t *k = ki ? ki->k : NULL;
    const char *name = k ? fab_kaxis_option(k) : NULL;
    const fab_kopts_t *ko = k ? fab_kopts(k) : NULL;

    words[col][0] = '\0';
    if (j < 0 || !name || isnan(ki->axis) || fab_kcolumns(k)->kcols[j].kind != FAB_KCOL_AXIS_WORD)
        return words[col];
    for (int i = 0; i < ko->n; i++)
        if (strcmp(ko->rows[i].name, name) == 0 && ko->rows[i].type == FAB_OPT_WORDS)
            fab_opt_word(&ko->rows[i], (int)ki->axis, words[col], sizeof(words[col]));
    return words[col];
}

void fab_column_value(int col, const fab_kinst_t *ki, const fab_row_t *r, fab_value_t *v)
{
    const fab_kernel_t *k = ki ? ki->k : NULL;
    const fab_column_t *c = &fab_columns[col];
    const char *at = (const char *)r + c->offset;

    v->i = 0;
    v->d = NAN;
    v->s = NULL;
    switch (c->ctype) {
    case 'k':
        if (c->type == FAB_COL_STR)
            v->s = fab_column_word(col, ki, fab_kcol_index(k, c->name));
        else
            v->d = fab_row_kcol(ki, r, fab_kcol_index(k, c->name));
        break;
    case 'f':
        v->s = c->type == FAB_COL_STR ? "" : NULL;
        c->fn(k, r, v);
        break;
    case 'u':
        v->i = (int64_t) * (const uint64_t *)at;
        break;
    case 'l':
        v->i = *(const long *)at;
        break;
    case 'i':
        v->i = *(const int *)at;
        break;
    case 'b':
        v->i = *(const bool *)at;
        break;
    default:
        v->d = *(const double *)at * c->scale;
        break;
    }
}

void fab_column_values(const fab_kinst_t *ki, const fab_row_t *r, double *d, const char **s)
{
    for (int c = 0; c < fab_ncolumns; c++) {
        fab_value_t v;

        fab_column_value(c, ki, r, &v);
        d[c] = fab_columns[c].type == FAB_COL_F64   ? v.d
               : fab_columns[c].type == FAB_COL_STR ? NAN
                                                    : (double)v.i;
        s[c] = fab_columns[c].type == FAB_COL_STR ? v.s : NULL;
    }
}

int fab_column_find(const char *name)
{
    for (int c = 0; c < fab_ncolumns; c++)
        if (strcmp(fab_columns[c].name, name) == 0)
            return c;
    return -1;
}
