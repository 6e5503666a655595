/* The human table on stdout: '#' header lines, then one row per message size. Column names
 * carry decimal units: us = 10^-6 s, MB/s = 10^6 B/s, Gb/s = 10^9 bit/s. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fab.h"
#include "fab_version.h"

static void fab_out_hosts(FILE *f, const fab_world_t *w)
{
    int shown = 0;

    fprintf(f, "# ranks: %d on %d host%s:", w->size, w->nhosts, w->nhosts == 1 ? "" : "s");
    for (int i = 0; i < w->size && shown < 8; i++) {
        int count = 0;
        bool first = true;

        for (int j = 0; j < w->size; j++) {
            if (strcmp(w->hosts[j], w->hosts[i]) != 0)
                continue;
            first = first && j >= i;
            count++;
        }
        if (!first)
            continue;
        fprintf(f, "%s %s (%d)", shown ? "," : "", w->hosts[i], count);
        shown++;
    }
    fprintf(f, "%s\n", w->nhosts > shown ? ", ..." : "");
}

void fab_out_header(FILE *f, const fab_world_t *w, const fab_transport_t *t, int argc, char **argv)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "# fabricbench %s (git %s)\n", FAB_VERSION, FAB_GIT_COMMIT);
    fprintf(f, "# date: %s\n", date);
    fprintf(f, "# command:");
    for (int i = 0; i < argc; i++)
        fprintf(f, " %s", argv[i]);
    fprintf(f, "\n");
    fab_out_hosts(f, w);
    fprintf(f, "# mpi: %s\n", t->mpi_library);
    fprintf(f, "# pml: %s (%s)\n", t->pml, t->pml_how);
    fprintf(f, "# ucx: %s; transports: %s\n", t->ucx_version, t->ucx_tls);
    fprintf(f, "# timer: %s; %.1f ns per reading (measured now, rank 0)\n", fab_timer_describe(),
            fab_timer_cost_ns(11));
    fflush(f);
}

void fab_out_trailer(FILE *f, const fab_transport_t *t, int a, int b)
{
    fprintf(f,
            "#\n# ucx transports (probe endpoint rank %d -> rank %d, after the measurements): "
            "%s\n",
            a, b, t->ucx_tls);
    fflush(f);
}

static void fab_text_kernel_begin(void *arg, const fab_kernel_t *k, const fab_opts_t *o,
                                  const int *pair, const fab_world_t *w)
{
    FILE *f = arg;

    fprintf(f, "#\n# kernel: %s: %s\n", k->name, k->summary);
    if (pair)
        fprintf(f, "# ranks: %d (%s) <-> %d (%s)%s\n", pair[0], w->hosts[pair[0]], pair[1],
                w->hosts[pair[1]], w->size > 2 ? "; other ranks wait idle" : "");
    else
        fprintf(f, "# ranks: %d (%d pairs: rank i sends to rank i+%d)\n", w->size, w->size / 2,
                w->size / 2);
    if (o->iters > 0)
        fprintf(f, "# iterations: %ld per size, warm-up %ld\n", o->iters,
                o->warmup >= 0 ? o->warmup : (o->iters + 9) / 10);
    else
        fprintf(f,
                "# iterations: chosen per size to last about %.3g s (at least %ld, at most %ld); "
                "warm-up includes calibration\n",
                o->time_s, o->min_iters, o->max_iters);
    if (k->uses_window)
        fprintf(f, "# window: %d messages per iteration; *_us columns time one iteration\n",
                o->window);
    if (k->kind == FAB_KIND_LATENCY)
        fprintf(f, "# lat_us = loop mean (total time / iterations), one way; the other time "
                   "columns are per iteration, one way\n");
    fprintf(f,
            "# percentiles: exact up to %ld samples per size, then from a histogram "
            "(error <= 0.2%%); column pct\n",
            o->max_samples);
    if (k->kind == FAB_KIND_LATENCY)
        fprintf(f, "# %10s %10s %9s %9s %9s %9s %9s %9s %9s %9s %9s %12s %10s %9s %6s %6s\n",
                "bytes", "lat_us", "min_us", "p50_us", "p90_us", "p99_us", "p99.9_us", "max_us",
                "mean_us", "stddev_us", "loop_us", "MB/s", "iters", "warmup", "pct", "errors");
    else
        fprintf(f,
                "# %10s %12s %9s %12s %12s %12s %9s %9s %9s %9s %9s %9s %9s %9s %9s %10s "
                "%9s %6s %6s\n",
                "bytes", "MB/s", "Gb/s", "msg/s", "pair_MB/s", "pair_msg/s", "min_us", "p50_us",
                "p90_us", "p99_us", "p99.9_us", "max_us", "mean_us", "stddev_us", "loop_us",
                "iters", "warmup", "pct", "errors");
    fflush(f);
}

static void fab_text_row(void *arg, const fab_kernel_t *k, const fab_row_t *r)
{
    FILE *f = arg;
    const fab_stats_t *s = &r->t;
    char errors[32];
    const double us = 1e6;

    if (r->validation_errors < 0)
        snprintf(errors, sizeof(errors), "-");
    else
        snprintf(errors, sizeof(errors), "%ld", r->validation_errors);
    if (k->kind == FAB_KIND_LATENCY)
        fprintf(f,
                "  %10llu %10.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %12.2f "
                "%10llu %9llu %6s %6s\n",
                (unsigned long long)r->bytes, s->loop_mean * us, s->min * us, s->p50 * us,
                s->p90 * us, s->p99 * us, s->p999 * us, s->max * us, s->mean * us, s->stddev * us,
                s->loop_mean * us, r->mbps, (unsigned long long)r->iters,
                (unsigned long long)r->warmup, s->exact ? "exact" : "hist", errors);
    else
        fprintf(f,
                "  %10llu %12.2f %9.3f %12.0f %12.2f %12.0f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f "
                "%9.3f %9.3f %9.3f %10llu %9llu %6s %6s\n",
                (unsigned long long)r->bytes, r->mbps, r->gbps, r->msgps, r->mbps_stream,
                r->msgps_stream, s->min * us, s->p50 * us, s->p90 * us, s->p99 * us, s->p999 * us,
                s->max * us, s->mean * us, s->stddev * us, s->loop_mean * us,
                (unsigned long long)r->iters, (unsigned long long)r->warmup,
                s->exact ? "exact" : "hist", errors);
    fflush(f);
}

fab_sink_t fab_out_text_sink(FILE *f)
{
    fab_sink_t sink = {fab_text_kernel_begin, fab_text_row, f};

    return sink;
}
