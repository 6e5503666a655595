/* SPDX-License-Identifier: BSD-3-Clause */
/* Columns a kernel adds to its rows (fab_kcol_t), and what its derive hook sees of a row
 * (fab_krow_t). Included by kernel/descriptor.h. */
#ifndef FAB_KERNEL_KCOL_H
#define FAB_KERNEL_KCOL_H

#include <stddef.h>
#include <stdint.h>

/* Columns a kernel adds to its rows (the socket kernels' retransmits, UDP loss and jitter):
 * it lists them in fab_kcolumns_t.kcols, and each becomes a column of every output, named,
 * with its unit and meaning (output/columns.c appends every registered kernel's columns to the
 * harness's; NaN in the rows of kernels without it; numbers but FAB_KCOL_AXIS_WORD's). Kernels that
 * share columns share one definition (a table or a macro); a name has one definition wherever it
 * appears. */
#define FAB_KCOL_MAX 16 /* columns one kernel may add */
typedef enum {
    /* The counters hook gives this rank's cumulative value; the harness reads it at both
     * ends of every timed block (so warm-up and validation do not count) and the row holds
     * the sum of the blocks' differences over the kernel's ranks. */
    FAB_KCOL_COUNTER = 0,
    /* The counters hook gives a value now; the row holds the value at the end of its last
     * block, averaged over the ranks that have one. */
    FAB_KCOL_GAUGE,
    /* The counters hook gives this rank's cumulative value for the size being measured
     * (ctx->bytes); the row holds its change from the start of the row's first timed block
     * to the end of its settle (fab_kcolumns_t.settle) or last block: what that size's traffic
     * did in the row, also when it arrived during another size's block. */
    FAB_KCOL_TOTAL,
    /* The value of the kernel's axis option for this instance (fab_kernel_t.axis). */
    FAB_KCOL_AXIS,
    /* Computed from the row by the kernel's derive hook, after the others. */
    FAB_KCOL_DERIVED,
    /* Computed as DERIVED; a value other than 0 (NaN: not judged) marks the row implausible:
     * the kernel knows the number cannot be true (a one-sided latency below what the pair's
     * two-sided latency allows, data that did not arrive). Its quality is then invalid with
     * the reason implausible: written, never a number a reader may use (measure/quality.h). */
    FAB_KCOL_IMPLAUSIBLE,
    /* The instance's value of the kernel's axis option by its word, where that option takes
     * words (FAB_OPT_WORDS: the congestor pattern `incast`): a text column, the one kind of a
     * kernel's own that is not a number ("" in other kernels' rows). Beside its AXIS column,
     * which holds the word's index, so that a number column keeps its type. */
    FAB_KCOL_AXIS_WORD,
} fab_kcol_kind_t;

typedef struct fab_kcol {
    const char *name; /* as in every output: file-safe, with its unit ("loss_pct") */
    const char *head; /* its heading in the text table ("loss%") */
    const char *unit; /* decimal units as the harness's columns: count, bytes, us, %, Gb/s */
    const char *doc;  /* what it is, for the schema and `--columns` users */
    fab_kcol_kind_t kind;
} fab_kcol_t;

/* What a kernel's derive hook sees of a finished row (on the kernel's first rank). */
typedef struct fab_krow {
    size_t bytes;
    uint64_t iterations;    /* timed */
    double seconds;         /* the timed blocks' time: iterations x the loop mean */
    double axis;            /* the instance's axis value; NaN without an axis */
    long validation_errors; /* wrong bytes or elements --validate found; -1 not validated */
    double median;          /* the time columns' median (p50_us), s */
    double mean;            /* and their mean (mean_us: a collective's time_us), s */
    const double *c;        /* its columns' values so far, in kcols order (derived ones NaN) */
} fab_krow_t;

/* The semantics columns of the one-sided (src/rma/) and UCP (src/ucp/) kernels, in this order:
 * one definition for both tables (a name has one definition wherever it appears). */
#define FAB_KCOL_REMOTE                                                                            \
    {                                                                                              \
        "includes_remote_completion", "remote", "flag",                                            \
            "one-sided and UCP kernels: 1 when the time includes the operation's completion "      \
            "at the target (flush, unlock, fence, pscw, an acknowledgement or answer, or a "       \
            "fetching operation's result), 0 when only local completion (flush_local of a put"     \
            " or accumulate)",                                                                     \
            FAB_KCOL_GAUGE                                                                         \
    }
#define FAB_KCOL_HALVED                                                                            \
    {                                                                                              \
        "halved_round_trip", "halved", "flag",                                                     \
            "one-sided and UCP kernels: 1 when the time is half a round trip (the UCP "            \
            "ping-pongs, as ucx_perftest; OSU's fence and pscw latency); the rma kernels "         \
            "report whole iterations, so 0 there",                                                 \
            FAB_KCOL_GAUGE                                                                         \
    }
#define FAB_KCOL_PINGPONG                                                                          \
    {                                                                                              \
        "ping_pong", "pingpong", "flag",                                                           \
            "one-sided and UCP kernels: 1 when an iteration is a ping-pong, each rank the "        \
            "origin in turn (fence and pscw latency, the UCP latency kernels): two transfers "     \
            "and their synchronisation per iteration",                                             \
            FAB_KCOL_GAUGE                                                                         \
    }
#define FAB_KCOLS_SEMANTICS FAB_KCOL_REMOTE, FAB_KCOL_HALVED, FAB_KCOL_PINGPONG

#endif
