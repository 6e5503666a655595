/* Row metrics: from a size's statistics to the rates, bus bandwidth, overlap, slowest rank,
 * CPU cost and line-rate efficiency of its row (docs/METRICS.md defines each). */
#include <math.h>
#include <string.h>

#include "core/mpi_call.h"
#include "measure/row.h"

int fab_comm_world_rank(MPI_Comm comm, int r)
{
    MPI_Group g, world;
    int out = r;

    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(g, 1, &r, world, &out);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    return out;
}

fab_status_t fab_row_cpu(fab_row_t *row, const fab_kctx_t *ctx, const fab_cpu_mark_t *a,
                         const fab_cpu_mark_t *b)
{
    /* The window's CPU cost: rank shares averaged over the ranks, node shares over the nodes
     * (one sampler each). */
    double w[4], in[5], out[5] = {0};
    struct {
        double v;
        int rank;
    } ext[2], extout[2] = {{-INFINITY, -1}, {-INFINITY, -1}};
    fab_status_t st;

    fab_cpu_window(a, b, w);
    in[0] = w[0];
    in[4] = isnan(w[1]) ? 0.0 : 1.0;
    for (int i = 1; i < 4; i++)
        in[i] = isnan(w[i]) ? 0.0 : w[i];
    ext[0].v = isnan(w[0]) ? -INFINITY : w[0];
    ext[1].v = isnan(w[0]) ? -INFINITY : -w[0];
    ext[0].rank = ext[1].rank = ctx->rank;
    st = FAB_MPI(MPI_Reduce(in, out, 5, MPI_DOUBLE, MPI_SUM, 0, ctx->comm));
    /* each rank's own share: the busiest (MAXLOC) and the least busy (MAXLOC of -v) */
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Reduce(ext, extout, 2, MPI_DOUBLE_INT, MPI_MAXLOC, 0, ctx->comm));
    row->cpu_rank_max_pct = isinf(extout[0].v) ? NAN : extout[0].v;
    row->cpu_rank_min_pct = isinf(extout[1].v) ? NAN : -extout[1].v;
    row->cpu_rank_max_rank =
        isinf(extout[0].v) ? -1 : fab_comm_world_rank(ctx->comm, extout[0].rank);
    row->cpu_rank_pct = out[0] / ctx->size;
    row->cpu_user_pct = out[4] > 0 ? out[1] / out[4] : NAN;
    row->cpu_sys_pct = out[4] > 0 ? out[2] / out[4] : NAN;
    row->cpu_softirq_pct = out[4] > 0 ? out[3] / out[4] : NAN;
    return st;
}

void fab_row_rates(fab_row_t *row, const fab_kernel_t *k, const fab_kctx_t *ctx, double comm_mean)
{
    row->streams = ctx->streams > 0 ? ctx->streams : 1;
    row->msgps = ctx->msgs_per_iter / row->iter_time;
    row->mbps = (double)row->bytes * row->msgps / 1e6;
    row->gbps = row->mbps * 8.0 / 1e3;
    row->msgps_stream = row->msgps / row->streams;
    row->mbps_stream = row->mbps / row->streams;
    row->algbw = NAN;
    row->busbw = NAN;
    if (k->bus_factor) {
        /* The time of a call is its slowest rank's (the per-iteration maximum), so algbw comes
         * from the mean of those maxima; with --overlap-compute, of the call without compute. */
        row->algbw = (double)row->bytes / (isnan(comm_mean) ? row->t.mean : comm_mean) / 1e9;
        row->busbw = row->algbw * k->bus_factor(ctx->size);
    }
    row->comm_time = comm_mean;
    row->overlap_pct = NAN;
    if (!isnan(comm_mean) && comm_mean > 0) {
        /* OSU's definition: the share of the call's own time that the compute hid. */
        double hidden = 1.0 - (row->t.mean - ctx->compute_s) / comm_mean;

        row->overlap_pct = 100.0 * (hidden < 0 ? 0 : hidden > 1 ? 1 : hidden);
    }
    row->line_pct = NAN; /* rank 0 of the world knows the hosts: fab_row_line_pct */
}

void fab_row_slowest(fab_row_t *row, const fab_kctx_t *ctx, const uint64_t *slow_count)
{
    int r = 0;

    row->slowest_rank = -1;
    row->slowest_share = NAN;
    if (!slow_count)
        return;
    for (int i = 1; i < ctx->size; i++)
        if (slow_count[i] > slow_count[r])
            r = i;
    row->slowest_rank = fab_comm_world_rank(ctx->comm, r);
    row->slowest_share = (double)slow_count[r] / (double)row->iters;
}

double fab_row_line_pct(const fab_world_t *w, const fab_opts_t *o, const fab_kernel_t *k,
                        const fab_row_t *r)
{
    double gbps, rate = o->line_rate_gbps * (k->duplex ? 2.0 : 1.0);
    bool crosses = false;

    if (rate <= 0 || k->kind == FAB_KIND_LATENCY || !w->hosts)
        return NAN;
    if (k->ranks == FAB_RANKS_PAIR)
        crosses = strcmp(w->hosts[o->pair.a], w->hosts[o->pair.b]) != 0;
    else
        crosses = w->nhosts > 1;
    if (!crosses && !o->line_rate_given)
        return NAN;
    gbps = k->kind == FAB_KIND_COLLECTIVE ? r->busbw * 8.0 : r->gbps;
    return isnan(gbps) ? NAN : 100.0 * gbps / rate;
}
