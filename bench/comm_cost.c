/* SPDX-License-Identifier: BSD-3-Clause */
/* What a second communicator costs small messages, in a plain MPI program (no harness).
 * In Open MPI 4.1 a communicator made by MPI_Comm_split, _split_type, _dup or _create agrees
 * on its context id with a non-blocking allreduce on the parent (ompi/communicator/
 * comm_cid.c, ompi_comm_allreduce_intra_nb: the parent's coll_iallreduce, libnbc's); libnbc's
 * first non-blocking collective on a communicator registers ompi_coll_libnbc_progress with
 * opal_progress (ompi/mca/coll/libnbc/nbc.c, NBC_Init_handle), and it stays registered until
 * that communicator (here MPI_COMM_WORLD) is freed. MPI_Comm_create_group agrees through the
 * pml instead (OMPI_COMM_CID_GROUP). MODE picks what the process does before measuring:
 *   world   nothing; the exchange on MPI_COMM_WORLD
 *   dup     an MPI_Comm_dup of the world, unused; the exchange on MPI_COMM_WORLD
 *   split   the exchange on a communicator from MPI_Comm_split (as fabricbench did)
 *   group   the exchange on a communicator from MPI_Comm_create_group
 *   nbc     one MPI_Ibarrier on the world, waited for; the exchange on MPI_COMM_WORLD
 *   nbcfree one MPI_Ibarrier on a communicator from MPI_Comm_create_group, waited for, and
 *           that communicator freed (libnbc unregisters its progress when the last
 *           communicator that used it is freed); the exchange on MPI_COMM_WORLD
 * KERNEL is bibw (osu_bibw's windows of 64 both ways, one MPI_Waitall), bw (a window of 64
 * one way and a 4-byte acknowledgement), latency (a ping-pong) or progress (rank 0 calls
 * MPI_Test ITERS times on a receive that is not there yet: one opal_progress each; count its
 * instructions with valgrind --tool=callgrind --toggle-collect=progress_calls, which the
 * machine's load does not change). Rank 0 prints one line: MODE KERNEL SIZE and the median
 * over BLOCKS blocks of ITERS iterations of MB/s (bibw, bw: OSU's definition), the one-way
 * latency in us, or ns per MPI_Test. Not a test: docs/PERFORMANCE.md, "Issue 29: small
 * messages and the kernel's communicator" (fabricbench's harness now makes its communicators
 * as `group` does, src/core/comm.h).
 *
 * build: mpicc -O2 -g -o comm_cost bench/comm_cost.c
 * usage: mpirun -np 2 comm_cost MODE KERNEL [SIZE [ITERS [BLOCKS]]]   (8 20000 9) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 64, MAX_BLOCKS = 1024, MAX_SIZE = 1 << 22 };

static char *sbuf, *rbuf;
static MPI_Request reqs[2 * WINDOW];

static void bibw(MPI_Comm c, int n, int peer)
{
    for (int j = 0; j < WINDOW; j++)
        MPI_Irecv(rbuf, n, MPI_CHAR, peer, 7, c, &reqs[j]);
    for (int j = 0; j < WINDOW; j++)
        MPI_Isend(sbuf, n, MPI_CHAR, peer, 7, c, &reqs[WINDOW + j]);
    MPI_Waitall(2 * WINDOW, reqs, MPI_STATUSES_IGNORE);
}

static void bw(MPI_Comm c, int n, int me)
{
    for (int j = 0; j < WINDOW; j++) {
        if (me == 0)
            MPI_Isend(sbuf, n, MPI_CHAR, 1, 7, c, &reqs[j]);
        else
            MPI_Irecv(rbuf, n, MPI_CHAR, 0, 7, c, &reqs[j]);
    }
    MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
    if (me == 0)
        MPI_Recv(rbuf, 4, MPI_CHAR, 1, 8, c, MPI_STATUS_IGNORE);
    else
        MPI_Send(sbuf, 4, MPI_CHAR, 0, 8, c);
}

static void pingpong(MPI_Comm c, int n, int me)
{
    if (me == 0) {
        MPI_Send(sbuf, n, MPI_CHAR, 1, 7, c);
        MPI_Recv(rbuf, n, MPI_CHAR, 1, 7, c, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, n, MPI_CHAR, 0, 7, c, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, n, MPI_CHAR, 0, 7, c);
    }
}

/* Rank 0 tests a receive that cannot complete yet: each MPI_Test is one opal_progress, so the
 * time per call is what every registered progress callback costs a waiting rank. */
static void __attribute__((noinline)) progress_calls(MPI_Request *r, long m)
{
    int done = 0;

    for (long i = 0; i < m; i++)
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
}

static void progress(MPI_Comm c, long m, int me)
{
    MPI_Request r;

    if (me == 0) {
        MPI_Irecv(rbuf, 1, MPI_CHAR, 1, 9, c, &r);
        progress_calls(&r, m);
    }
    MPI_Barrier(c);
    if (me == 1)
        MPI_Send(sbuf, 1, MPI_CHAR, 0, 9, c);
    else
        MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static MPI_Comm make_comm(const char *mode)
{
    MPI_Comm c = MPI_COMM_WORLD, extra;
    MPI_Group g;
    MPI_Request r;

    if (strcmp(mode, "dup") == 0) {
        MPI_Comm_dup(MPI_COMM_WORLD, &extra); /* never freed: it is what is measured */
    } else if (strcmp(mode, "split") == 0) {
        MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c);
    } else if (strcmp(mode, "group") == 0) {
        MPI_Comm_group(MPI_COMM_WORLD, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c);
        MPI_Group_free(&g);
    } else if (strcmp(mode, "nbc") == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "nbcfree") == 0) {
        MPI_Comm_group(MPI_COMM_WORLD, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &extra);
        MPI_Group_free(&g);
        MPI_Ibarrier(extra, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Comm_free(&extra);
    } else if (strcmp(mode, "world") != 0) {
        return MPI_COMM_NULL;
    }
    return c;
}

int main(int argc, char **argv)
{
    static double v[MAX_BLOCKS];
    int me, np;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "world", *kernel = argc > 2 ? argv[2] : "bibw";
    int n = argc > 3 ? atoi(argv[3]) : 8;
    long iters = argc > 4 ? atol(argv[4]) : 20000;
    int blocks = argc > 5 ? atoi(argv[5]) : 9;
    int k = strcmp(kernel, "bibw") == 0       ? 0
            : strcmp(kernel, "bw") == 0       ? 1
            : strcmp(kernel, "latency") == 0  ? 2
            : strcmp(kernel, "progress") == 0 ? 3
                                              : -1;
    MPI_Comm c = make_comm(mode);

    if (np != 2 || c == MPI_COMM_NULL || n < 1 || n > MAX_SIZE || iters < 1 || blocks < 1 ||
        blocks > MAX_BLOCKS || k < 0) {
        if (me == 0)
            fprintf(stderr, "usage: mpirun -np 2 comm_cost world|dup|split|group|nbc|nbcfree "
                            "bibw|bw|latency|progress [SIZE [ITERS [BLOCKS]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    sbuf = calloc(1, (size_t)n);
    rbuf = calloc(1, (size_t)n);
    for (int b = -1; b < blocks; b++) {
        long m = b < 0 ? iters / 10 + 1 : iters; /* block -1: warm-up */

        MPI_Barrier(c);
        double t0 = MPI_Wtime();
        if (k == 3)
            progress(c, m, me);
        for (long i = 0; k < 3 && i < m; i++) {
            if (k == 0)
                bibw(c, n, 1 - me);
            else if (k == 1)
                bw(c, n, me);
            else
                pingpong(c, n, me);
        }
        double t = MPI_Wtime() - t0;
        if (b >= 0)
            v[b] = k == 3   ? t / (double)m * 1e9
                   : k == 2 ? t / (double)m / 2 * 1e6
                            : (double)n * WINDOW * (k == 0 ? 2 : 1) * (double)m / t / 1e6;
    }
    qsort(v, (size_t)blocks, sizeof(v[0]), cmp);
    if (me == 0)
        printf("%s %s %d %.4f %s\n", mode, kernel, n, v[blocks / 2],
               k == 3   ? "ns"
               : k == 2 ? "us"
                        : "MB/s");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
