/* SPDX-License-Identifier: BSD-3-Clause */
/* How much does the harness cost? One MPI job alternates (A B A B ..., the order swapped
 * every other round) between fabricbench's harness, called through its library, and a plain
 * loop written here that makes the same MPI calls and is timed only around the whole loop:
 *   latency, 8 B: harness loop mean (lat_us) vs plain loop; harness p50 vs its loop mean
 *   bw, 1 MiB:    harness MB/s vs plain MB/s
 * Both sides run in the same processes on the same buffer pages (the harness's pool), so
 * process-level luck (memory layout, UCX state) is shared and only the loops differ.
 *
 * usage: mpirun -np 2 fab_bench_overhead [ROUNDS [LAT_ITERS [BW_ITERS [auto|tsc|clock]]]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { LAT_BYTES = 8, BW_BYTES = 1 << 20, WINDOW = 64 };

/* ---- the plain loops: no harness, no per-iteration timestamps */
static void plain_iter(int rank, char *s, char *r, int n, int bw, MPI_Request *q)
{
    if (!bw) {
        if (rank == 0) {
            MPI_Send(s, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(r, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
        return;
    }
    for (int j = 0; j < WINDOW; j++) {
        if (rank == 0)
            MPI_Isend(s, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &q[j]);
        else
            MPI_Irecv(r, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &q[j]);
    }
    MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE);
    if (rank == 0)
        MPI_Recv(r, 4, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(s, 4, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
}

/* Returns one-way latency (us) or MB/s, as fabricbench reports them. */
static double plain_run(int rank, int n, long iters, int bw)
{
    size_t len = (size_t)n < 64 ? 64 : (size_t)n;
    char *s, *r;
    MPI_Request q[WINDOW];
    double t;

    /* The same pages the harness uses (its buffer pool), so only the loops differ. */
    if (fab_buffers_get(len, &s, &r) != FAB_OK)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (long i = 0; i < iters / 10; i++)
        plain_iter(rank, s, r, n, bw, q);
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (long i = 0; i < iters; i++)
        plain_iter(rank, s, r, n, bw, q);
    t = MPI_Wtime() - t;
    return bw ? (double)n * WINDOW * iters / t / 1e6 : t / iters / 2 * 1e6;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    long lat_iters = argc > 2 ? atol(argv[2]) : 200000, bw_iters = argc > 3 ? atol(argv[3]) : 100;
    double *v[5];
    const char *timer = argc > 4 ? argv[4] : "auto";
    fab_timer_kind_t tk = strcmp(timer, "tsc") == 0     ? FAB_TIMER_TSC
                          : strcmp(timer, "clock") == 0 ? FAB_TIMER_CLOCK
                                                        : FAB_TIMER_AUTO;
    char err[256];
    fab_world_t w;
    fab_opts_t defaults;

    fab_opts_defaults(&defaults);
    fab_transport_prepare(&defaults.net); /* pml ucx, as the tool selects it */
    MPI_Init(&argc, &argv);
    if (fab_world_init(&w) != FAB_OK || w.size != 2 || rounds < 1 ||
        fab_timer_init(tk, err, sizeof(err)) != FAB_OK) {
        if (w.rank == 0)
            fprintf(stderr, "usage: mpirun -np 2 %s [ROUNDS [LAT_ITERS [BW_ITERS [TIMER]]]]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    for (int i = 0; i < 5; i++)
        v[i] = calloc((size_t)rounds, sizeof(double));
    if (w.rank == 0)
        printf("# round fb_lat_us plain_lat_us fb_p50_us fb_bw_MBps plain_bw_MBps\n");
    for (int r = 0; r < rounds; r++) {
        fab_row_t lat, bw;
        double plat, pbw;

        if (r % 2 == 0) {
            lat = harness_run(&w, "latency", LAT_BYTES, lat_iters, FAB_DT_FLOAT32);
            plat = plain_run(w.rank, LAT_BYTES, lat_iters, 0);
            bw = harness_run(&w, "bw", BW_BYTES, bw_iters, FAB_DT_FLOAT32);
            pbw = plain_run(w.rank, BW_BYTES, bw_iters, 1);
        } else {
            plat = plain_run(w.rank, LAT_BYTES, lat_iters, 0);
            lat = harness_run(&w, "latency", LAT_BYTES, lat_iters, FAB_DT_FLOAT32);
            pbw = plain_run(w.rank, BW_BYTES, bw_iters, 1);
            bw = harness_run(&w, "bw", BW_BYTES, bw_iters, FAB_DT_FLOAT32);
        }
        v[0][r] = lat.t.loop_mean * 1e6;
        v[1][r] = plat;
        v[2][r] = lat.t.p50 * 1e6;
        v[3][r] = bw.mbps;
        v[4][r] = pbw;
        if (w.rank == 0) {
            printf("%7d %9.4f %12.4f %9.4f %10.1f %13.1f\n", r + 1, v[0][r], v[1][r], v[2][r],
                   v[3][r], v[4][r]);
            fflush(stdout);
        }
    }
    if (w.rank == 0) {
        double m[5];

        for (int i = 0; i < 5; i++)
            m[i] = median(v[i], rounds);
        printf("medians over %d rounds (%ld latency, %ld bw iterations per round and side)\n",
               rounds, lat_iters, bw_iters);
        printf("timer: %s\n", fab_timer_describe());
        printf("latency 8 B: fabricbench lat_us %.4f, plain %.4f, ratio %.4f\n", m[0], m[1],
               m[0] / m[1]);
        printf("latency 8 B: fabricbench p50_us %.4f, lat_us %.4f, ratio p50/loop %.4f\n", m[2],
               m[0], m[2] / m[0]);
        printf("bw 1 MiB:    fabricbench MB/s %.1f, plain %.1f, ratio %.4f\n", m[3], m[4],
               m[3] / m[4]);
    }
    for (int i = 0; i < 5; i++)
        free(v[i]);
    fab_buffers_free();
    fab_world_free(&w);
    MPI_Finalize();
    return 0;
}
