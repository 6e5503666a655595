/* SPDX-License-Identifier: BSD-3-Clause */
/* Is fabricbench's bibw exchange slower than osu_bibw's? Both in one job, on the same two
 * ranks, alternating blocks, so that the machine's slow and fast stretches fall on both:
 *   fb   kernels/bibw.c: a window of receives, a window of sends, one MPI_Waitall over both
 *        (one tag both ways)
 *   osu  osu_bibw 7.4: the same windows with a tag per direction, then rank 0 waits for its
 *        sends and then its receives, rank 1 the other way round
 * Each round runs a block of ITERS iterations of each (the order swapped every round), with a
 * barrier before each block; a block's MB/s is SIZE x 2 x window x ITERS / its time (OSU's
 * definition). Printed on rank 0: the median MB/s of each and the median (10th-90th
 * percentile) of the rounds' own ratios fb / osu. With a fourth argument every iteration also
 * reads the clock twice, as fabricbench's harness does. Not a test: docs/PERFORMANCE.md,
 * "Issue 16: the open gaps measured again".
 *
 * build: mpicc -O2 -o bibw_pattern bench/bibw_pattern.c
 * usage: mpirun -np 2 bibw_pattern SIZE [ROUNDS [ITERS [clock]]]   (defaults 41 100) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WINDOW = 64, MAX_ROUNDS = 4096, MAX_SIZE = 1 << 22 };

static char *sbuf, *rbuf;
static MPI_Request both[2 * WINDOW], sends[WINDOW], recvs[WINDOW];

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fb_exchange(int n, int peer)
{
    for (int j = 0; j < WINDOW; j++)
        MPI_Irecv(rbuf, n, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &both[j]);
    for (int j = 0; j < WINDOW; j++)
        MPI_Isend(sbuf, n, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &both[WINDOW + j]);
    MPI_Waitall(2 * WINDOW, both, MPI_STATUSES_IGNORE);
}

static void osu_exchange(int n, int peer, int me)
{
    int rtag = me == 0 ? 10 : 100, stag = me == 0 ? 100 : 10;

    for (int j = 0; j < WINDOW; j++)
        MPI_Irecv(rbuf, n, MPI_CHAR, peer, rtag, MPI_COMM_WORLD, &recvs[j]);
    for (int j = 0; j < WINDOW; j++)
        MPI_Isend(sbuf, n, MPI_CHAR, peer, stag, MPI_COMM_WORLD, &sends[j]);
    MPI_Waitall(WINDOW, me == 0 ? sends : recvs, MPI_STATUSES_IGNORE);
    MPI_Waitall(WINDOW, me == 0 ? recvs : sends, MPI_STATUSES_IGNORE);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int me = 0, n, rounds, iters, clock_reads;
    static double mbps[2][MAX_ROUNDS], ratio[MAX_ROUNDS];
    volatile double sink = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    n = argc > 1 ? atoi(argv[1]) : 8;
    rounds = argc > 2 ? atoi(argv[2]) : 41;
    iters = argc > 3 ? atoi(argv[3]) : 100;
    clock_reads = argc > 4;
    if (n < 1 || n > MAX_SIZE || rounds < 1 || rounds > MAX_ROUNDS || iters < 1) {
        if (me == 0)
            fprintf(stderr, "usage: bibw_pattern SIZE (1..%d) [ROUNDS (1..%d) [ITERS [clock]]]\n",
                    MAX_SIZE, MAX_ROUNDS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (posix_memalign((void **)&sbuf, 4096, (size_t)n) ||
        posix_memalign((void **)&rbuf, 4096, (size_t)n))
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int w = 0; w < 20; w++) { /* warm-up, both ways */
        fb_exchange(n, 1 - me);
        osu_exchange(n, 1 - me, me);
    }
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            int way = (r & 1) ? 1 - k : k; /* 0 fb, 1 osu */
            double t0;

            MPI_Barrier(MPI_COMM_WORLD);
            t0 = now();
            for (int i = 0; i < iters; i++) {
                double s = clock_reads ? now() : 0;

                if (way == 0)
                    fb_exchange(n, 1 - me);
                else
                    osu_exchange(n, 1 - me, me);
                if (clock_reads)
                    sink += now() - s;
            }
            mbps[way][r] = (double)n * 2 * WINDOW * iters / (now() - t0) / 1e6;
        }
    if (me == 0) {
        for (int r = 0; r < rounds; r++)
            ratio[r] = mbps[0][r] / mbps[1][r];
        qsort(ratio, (size_t)rounds, sizeof(double), cmp);
        qsort(mbps[0], (size_t)rounds, sizeof(double), cmp);
        qsort(mbps[1], (size_t)rounds, sizeof(double), cmp);
        printf("%d B%s: fb %.0f MB/s, osu %.0f MB/s (medians of %d blocks of %d); fb / osu %.3f "
               "(%.3f-%.3f)\n",
               n, clock_reads ? ", clock read per iteration" : "", mbps[0][rounds / 2],
               mbps[1][rounds / 2], rounds, iters, ratio[rounds / 2], ratio[rounds / 10],
               ratio[rounds * 9 / 10]);
    }
    MPI_Finalize();
    return 0;
}
