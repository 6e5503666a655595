/* SPDX-License-Identifier: BSD-3-Clause */
/* How much does the harness cost for a collective? One MPI job alternates (the order swapped
 * every other round) between fabricbench's allreduce, called through its library, and a
 * plain MPI_Allreduce loop written here, timed only around the whole loop, on the same
 * buffer pages, at 8 B, 64 KiB and 1 MiB (float32, sum). It also times the harness's
 * allreduce with bfloat16 against float32 at 1 MiB: the cost of the emulated 16-bit sum.
 *
 * Compared: fabricbench's loop_us (the slowest rank's loop / calls) with the plain loop's
 * (the slowest rank's loop / calls) and with the plain loop that also stores one timer reading
 * per call (plain_t: what the timer itself costs, which every rank pays on every call), and
 * fabricbench's time_us (the mean of per-call maxima, its headline) and time_p50 (the median of
 * per-call maxima) with the same plain figure.
 *
 * usage: mpirun -np 2 fab_bench_coll [ROUNDS [auto|tsc|clock]] */
#include <stdio.h>

#include "bench_util.h"

static const size_t sizes[] = {8, 65536, 1 << 20};
static const long iters[] = {20000, 2000, 200};
#define NSIZES 3

/* The slowest rank's loop time per call, us. With `stamps`, the loop also stores one timer
 * reading per call (as the harness does): what the timer costs, apart from the harness. */
static double plain_allreduce(size_t bytes, long n, uint64_t *stamps)
{
    char *s, *r;
    int count = (int)(bytes / sizeof(float));
    double t, tmax;

    if (fab_buffers_get(bytes < 64 ? 64 : bytes, &s, &r) != FAB_OK)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (long i = 0; i < n / 10; i++)
        MPI_Allreduce(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    if (stamps) {
        stamps[0] = fab_ticks();
        for (long i = 0; i < n; i++) {
            MPI_Allreduce(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            stamps[i + 1] = fab_ticks();
        }
    } else {
        for (long i = 0; i < n; i++)
            MPI_Allreduce(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    t = MPI_Wtime() - t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax / (double)n * 1e6;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    const char *timer = argc > 2 ? argv[2] : "auto";
    fab_timer_kind_t tk = strcmp(timer, "tsc") == 0     ? FAB_TIMER_TSC
                          : strcmp(timer, "clock") == 0 ? FAB_TIMER_CLOCK
                                                        : FAB_TIMER_AUTO;
    double *loop[NSIZES], *mean[NSIZES], *p50[NSIZES], *plain[NSIZES], *plain_t[NSIZES], *bf16,
        *f32;
    uint64_t *stamps;
    fab_world_t w;
    fab_opts_t defaults;
    char err[256];

    fab_opts_defaults(&defaults);
    fab_transport_prepare(&defaults.net);
    MPI_Init(&argc, &argv);
    if (fab_world_init(&w) != FAB_OK || rounds < 1 ||
        fab_timer_init(tk, err, sizeof(err)) != FAB_OK) {
        MPI_Finalize();
        return 2;
    }
    for (int i = 0; i < NSIZES; i++) {
        loop[i] = calloc((size_t)rounds, sizeof(double));
        mean[i] = calloc((size_t)rounds, sizeof(double));
        p50[i] = calloc((size_t)rounds, sizeof(double));
        plain[i] = calloc((size_t)rounds, sizeof(double));
        plain_t[i] = calloc((size_t)rounds, sizeof(double));
    }
    stamps = calloc((size_t)iters[0] + 1, sizeof(uint64_t));
    bf16 = calloc((size_t)rounds, sizeof(double));
    f32 = calloc((size_t)rounds, sizeof(double));
    bool ok = stamps && bf16 && f32;
    for (int i = 0; i < NSIZES; i++)
        ok = ok && loop[i] && mean[i] && p50[i] && plain[i] && plain_t[i];
    if (!ok) {
        fprintf(stderr, "fab_bench_coll: out of memory for %d rounds; use fewer\n", rounds);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < NSIZES; i++) {
            fab_row_t row;

            if (r % 2) {
                plain[i][r] = plain_allreduce(sizes[i], iters[i], NULL);
                plain_t[i][r] = plain_allreduce(sizes[i], iters[i], stamps);
            }
            row = harness_run(&w, "allreduce", sizes[i], iters[i], FAB_DT_FLOAT32);
            if (r % 2 == 0) {
                plain_t[i][r] = plain_allreduce(sizes[i], iters[i], stamps);
                plain[i][r] = plain_allreduce(sizes[i], iters[i], NULL);
            }
            loop[i][r] = row.t.loop_mean * 1e6;
            mean[i][r] = row.t.mean * 1e6;
            p50[i][r] = row.t.p50 * 1e6;
        }
        f32[r] = harness_run(&w, "allreduce", 1 << 20, 200, FAB_DT_FLOAT32).t.mean * 1e6;
        bf16[r] = harness_run(&w, "allreduce", 1 << 20, 200, FAB_DT_BFLOAT16).t.mean * 1e6;
        if (w.rank == 0)
            fprintf(stderr, "round %d/%d done\n", r + 1, rounds);
    }
    if (w.rank == 0) {
        printf("medians over %d rounds, allreduce float32 sum, %d ranks, timer: %s\n", rounds,
               w.size, fab_timer_describe());
        printf("%9s %11s %11s %11s %11s %11s %11s %11s %11s %13s\n", "bytes", "fb_loop_us",
               "fb_time_us", "fb_p50_us", "plain_us", "plain_t_us", "loop/plain", "time/plain",
               "p50/plain", "loop/plain_t");
        for (int i = 0; i < NSIZES; i++) {
            double l = median(loop[i], rounds), m = median(mean[i], rounds),
                   q = median(p50[i], rounds), p = median(plain[i], rounds),
                   pt = median(plain_t[i], rounds);

            printf("%9zu %11.3f %11.3f %11.3f %11.3f %11.3f %11.4f %11.4f %11.4f %13.4f\n",
                   sizes[i], l, m, q, p, pt, l / p, m / p, q / p, l / pt);
        }
        printf("plain_t: the plain loop storing one timer reading per call, as the harness "
               "does; timer cost %.1f ns per reading\n",
               fab_timer_cost_ns(101));
        printf("1 MiB: bfloat16 %.1f us, float32 %.1f us per call (time_us), bfloat16/float32 "
               "%.3f\n",
               median(bf16, rounds), median(f32, rounds),
               median(bf16, rounds) / median(f32, rounds));
    }
    for (int i = 0; i < NSIZES; i++) {
        free(loop[i]);
        free(mean[i]);
        free(p50[i]);
        free(plain[i]);
        free(plain_t[i]);
    }
    free(bf16);
    free(f32);
    free(stamps);
    fab_buffers_free();
    fab_world_free(&w);
    MPI_Finalize();
    return 0;
}
