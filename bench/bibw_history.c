/* SPDX-License-Identifier: BSD-3-Clause */
/* Does a bibw exchange's speed depend on what the pair exchanged before it? One job: a
 * communicator from MPI_Comm_split (as the kernels have), 255 warm-up iterations of the
 * exchange of kernels/bibw.c at SIZE bytes (a window of 64 receives and 64 sends, one
 * MPI_Waitall, one tag both ways; here on one send and one receive buffer, where the kernel
 * cycles through its slots), then EXTRA MPI_Sendrecv of 8 bytes with another tag on the same
 * communicator (what an agreement between timed blocks costs the pair), one MPI_Allreduce,
 * then ITERS timed iterations with a clock reading each. Rank 0 prints EXTRA, SIZE, and the
 * median and the 10th percentile of its own iterations in microseconds. No fabricbench code:
 * a fresh job per EXTRA, since what it measures is the state the job leaves behind. Not a
 * test: docs/PERFORMANCE.md, "A second quiet stretch" ("Adaptive bibw at 8 B: explained").
 *
 * build: mpicc -O2 -o bibw_history bench/bibw_history.c
 * usage: mpirun -np 2 ./bibw_history EXTRA [SIZE [ITERS]]   (defaults 8 and 3000)
 *        for e in 0 1 2 4 8 16 24 32 40 48 64; do
 *            mpirun -np 2 --bind-to core --mca pml ucx ./bibw_history $e; done */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WINDOW = 64, MAX_SIZE = 1 << 20, MAX_ITERS = 1 << 20 };

static char sbuf[MAX_SIZE], rbuf[MAX_SIZE];
static MPI_Request reqs[2 * WINDOW];

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void exchange(MPI_Comm comm, int n, int peer)
{
    for (int j = 0; j < WINDOW; j++)
        MPI_Irecv(rbuf, n, MPI_CHAR, peer, 1, comm, &reqs[j]);
    for (int j = 0; j < WINDOW; j++)
        MPI_Isend(sbuf, n, MPI_CHAR, peer, 1, comm, &reqs[WINDOW + j]);
    MPI_Waitall(2 * WINDOW, reqs, MPI_STATUSES_IGNORE);
}

/* A whole number in lo..hi, else -1. */
static int arg_int(const char *a, long lo, long hi)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(a, &end, 10);
    return errno || end == a || *end || v < lo || v > hi ? -1 : (int)v;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rank, size, extra, n, iters;
    double t = 0.0, got = 0.0, *s;
    MPI_Comm comm;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* EXTRA is the variable measured: a typo must not run as 0 */
    extra = argc > 1 ? arg_int(argv[1], 0, INT_MAX) : -1;
    n = argc > 2 ? arg_int(argv[2], 0, MAX_SIZE) : 8;
    iters = argc > 3 ? arg_int(argv[3], 1, MAX_ITERS) : 3000;
    if (size != 2 || argc < 2 || argc > 4 || extra < 0 || n < 0 || iters < 0) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: mpirun -np 2 %s EXTRA [SIZE [ITERS]]\n"
                    "       (2 ranks; EXTRA >= 0, SIZE 0..%d bytes (8), ITERS 1..%d (3000);"
                    " whole numbers)\n",
                    argv[0], MAX_SIZE, MAX_ITERS);
        MPI_Finalize();
        return 2;
    }
    s = malloc(sizeof(double) * (size_t)iters);
    if (!s)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &comm);
    for (int i = 0; i < 255; i++)
        exchange(comm, n, 1 - rank);
    for (int k = 0; k < extra; k++)
        MPI_Sendrecv(&t, 1, MPI_DOUBLE, 1 - rank, 5, &got, 1, MPI_DOUBLE, 1 - rank, 5, comm,
                     MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    t = now();
    for (int i = 0; i < iters; i++) {
        double u;

        exchange(comm, n, 1 - rank);
        u = now();
        s[i] = (u - t) * 1e6;
        t = u;
    }
    qsort(s, (size_t)iters, sizeof(double), cmp);
    if (rank == 0)
        printf("extra %d size %d: p50 %.2f us, p10 %.2f us\n", extra, n, s[iters / 2],
               s[iters / 10]);
    free(s);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
