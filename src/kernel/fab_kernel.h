/* The kernel interface: everything a file in kernels/ needs, and nothing more.
 *
 * A kernel is one communication pattern. It fills a fab_kernel_t; the harness owns the
 * buffers, the warm-up, the iteration loop and its timestamps, validation bookkeeping,
 * cross-rank reduction, statistics and every output. */
#ifndef FAB_KERNEL_H
#define FAB_KERNEL_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* What the headline of a row is: a time (latency) or a rate (bandwidth). */
typedef enum {
    FAB_KIND_LATENCY = 0,
    FAB_KIND_BANDWIDTH = 1,
    FAB_KIND_COLLECTIVE = 2, /* time per call, algbw and busbw (nccl-tests) */
} fab_kind_t;

/* How the ranks of a kernel run are chosen. */
typedef enum {
    FAB_RANKS_PAIR = 0, /* two ranks, --pair A,B (default 0,1); the others wait idle */
    FAB_RANKS_ALL = 1,  /* every rank takes part */
} fab_ranks_t;

/* Element types (--dtype, in the order of its choice list) and operations (--op). */
enum { FAB_DT_FLOAT32, FAB_DT_FLOAT64, FAB_DT_INT32, FAB_DT_BFLOAT16, FAB_DT_FLOAT16 };
enum { FAB_OP_SUM, FAB_OP_MAX, FAB_OP_MIN };

typedef struct fab_dtype {
    int id;
    const char *name; /* float32, ... */
    size_t size;      /* bytes per element */
    MPI_Datatype mpi;
    MPI_Op op; /* the reduction for --op on this type */
    int op_id;
    bool emulated; /* bfloat16, float16: 16-bit storage, user-defined operation */
    bool user_op;  /* op was created here and must be freed */
} fab_dtype_t;

/* What the harness hands a kernel. Fields above the line are set by the harness before setup;
 * fields below it are set by the kernel's setup on each rank. */
typedef struct fab_kctx {
    MPI_Comm comm;      /* the ranks taking part, in kernel order (pair: A is 0, B is 1) */
    int rank;           /* this rank in comm */
    int size;           /* ranks in comm */
    int window;         /* messages in flight per iteration (bandwidth kernels) */
    int tag;            /* first tag the kernel may use; it owns tag .. tag+15 */
    size_t max_bytes;   /* largest message of this run (at least 64): the size of a slot */
    char *sbuf, *rbuf;  /* harness-owned, page-aligned, slots * max_bytes each, pages touched */
    int slots;          /* distinct message buffers: 1, or more during --validate */
    MPI_Request *reqs;  /* room for 2 * window requests */
    fab_dtype_t dtype;  /* collectives: --dtype and --op */
    int root;           /* collectives with a root: -1 rotates (iteration i uses i % size) */
    uint64_t iteration; /* counts iterate() calls, for rotating roots */
    bool nonblocking;   /* collectives: --nonblocking (MPI_Iallreduce and friends) */
    double compute_s;   /* seconds of synthetic compute between start and wait */
    double params;      /* gradsync: --params, --bucket (bytes), --inflight */
    size_t bucket;
    int inflight;
    /* ---- set by setup ---- */
    bool timer;           /* this rank's per-iteration times count (reduced with max) */
    double msgs_per_iter; /* messages of `bytes` moved per iteration, all streams together */
    int streams;          /* independent streams (pairs) sharing that traffic; 1 if unset */
} fab_kctx_t;

typedef struct fab_kernel {
    const char *name;    /* fabricbench run <name> */
    const char *summary; /* one line for `fabricbench list` */
    fab_kind_t kind;
    fab_ranks_t ranks;
    int min_ranks;       /* fewest ranks the kernel can run on */
    int rank_multiple;   /* the rank count must be a multiple of this (1: any) */
    bool uses_window;    /* -w/--window applies */
    double time_divisor; /* reported time = iteration time / divisor (ping-pong: 2) */
    bool duplex;         /* traffic flows both ways at once: line rate counts twice (bibw) */
    /* Collectives: busbw = algbw x bus_factor(ranks) (nccl-tests); NULL for point-to-point */
    double (*bus_factor)(int nranks);
    /* Collectives: the message size actually used for a requested one (whole elements,
     * divisible as the pattern needs); NULL: as requested */
    size_t (*fit_bytes)(const fab_kctx_t *ctx, size_t bytes);
    bool uses_op;   /* --op applies */
    bool no_sizes;  /* one row of 0 bytes, whatever -m says (barrier) */
    bool uses_root; /* --root applies */
    /* Optional: set ctx->timer, ->msgs_per_iter, ->streams; allocate per-run state if any.
     * Without it every rank of a collective times and nothing else does. */
    fab_status_t (*setup)(fab_kctx_t *ctx, void **state);
    /* One timed iteration with messages of `bytes`. Called on every rank of ctx->comm. */
    fab_status_t (*iterate)(fab_kctx_t *ctx, void *state, size_t bytes);
    /* One untimed iteration that sends fab_pattern_fill()ed data and checks what arrives with
     * fab_pattern_check(), adding mismatching bytes to *errors. `seed` differs per call. */
    fab_status_t (*validate)(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                             long *errors);
    void (*cleanup)(fab_kctx_t *ctx, void *state); /* optional: frees what setup made */
    /* Optional: bytes of buffers setup will allocate on each rank beyond the harness's
     * message buffers (the harness counts them in its memory check before measuring). The
     * ctx has the options' fields (params, bucket, inflight, dtype) but no buffers yet. */
    size_t (*own_bytes)(const fab_kctx_t *ctx);
    const char *own_bytes_hint; /* what lowers them, for the error message */
    /* Optional: one line on what the kernel models (header line, result-file attribute). */
    void (*describe)(const fab_kctx_t *ctx, char *buf, size_t len);
} fab_kernel_t;

/* Logging (log.c), for the harness and kernels alike. */
typedef enum { FAB_LOG_ERROR = 0, FAB_LOG_WARN, FAB_LOG_INFO, FAB_LOG_DEBUG } fab_log_level_t;

/* Set the prefix every message carries: "[rank N host]". rank < 0: "[host]". */
void fab_log_init(int rank, const char *host);
/* Append printf-style text at buf + *at (bounded by len); *at grows by what the text needed,
 * so *at >= len says the text was cut. */
void fab_appendf(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void fab_log_set_level(fab_log_level_t level);
fab_log_level_t fab_log_get_level(void);
void fab_log(fab_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A progress line: printed at every level (--quiet is checked by the caller). */
void fab_log_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define FAB_ERROR(...) fab_log(FAB_LOG_ERROR, __VA_ARGS__)
#define FAB_WARN(...)  fab_log(FAB_LOG_WARN, __VA_ARGS__)
#define FAB_INFO(...)  fab_log(FAB_LOG_INFO, __VA_ARGS__)
#define FAB_DEBUG(...) fab_log(FAB_LOG_DEBUG, __VA_ARGS__)

/* Helpers for kernels. */

/* MPI call wrapper result: FAB_OK, or FAB_ERR_MPI after logging which call failed. */
fab_status_t fab_mpi_fail(int mpi_rc, const char *what);
/* Inline: it runs in every timed iteration; only a failure leaves the fast path. */
static inline fab_status_t fab_mpi_check(int mpi_rc, const char *what)
{
    return mpi_rc == MPI_SUCCESS ? FAB_OK : fab_mpi_fail(mpi_rc, what);
}
#define FAB_MPI(call) fab_mpi_check((call), #call)

/* Slot i of the send/receive buffers. */
static inline char *fab_sbuf(const fab_kctx_t *ctx, int slot)
{
    return ctx->sbuf + (size_t)slot * ctx->max_bytes;
}
static inline char *fab_rbuf(const fab_kctx_t *ctx, int slot)
{
    return ctx->rbuf + (size_t)slot * ctx->max_bytes;
}

/* Fill `bytes` of buf with a pattern that depends on seed and position. */
void fab_pattern_fill(void *buf, size_t bytes, uint32_t seed);
/* Count the bytes of buf that differ from fab_pattern_fill(seed). */
long fab_pattern_check(const void *buf, size_t bytes, uint32_t seed);
/* A seed for message `msg` sent by comm rank `from`, derived from the round's seed. */
uint32_t fab_pattern_seed(uint32_t round_seed, int from, int msg);

/* The windowed one-way pattern shared by bw and msgrate (osu_bw): the sender posts
 * ctx->window non-blocking sends of `bytes` to `peer` and waits for a 4-byte acknowledgement;
 * the receiver posts the matching receives, waits, and sends the acknowledgement. */
fab_status_t fab_window_iterate(fab_kctx_t *ctx, size_t bytes, int peer, bool sender);
/* The same exchange with patterned data in distinct slots, every received byte checked. */
fab_status_t fab_window_validate(fab_kctx_t *ctx, size_t bytes, int peer, bool sender,
                                 uint32_t seed, long *errors);

/* Collectives' validation: element i of rank r's contribution is a small integer (so sums
 * are exact in every type for up to 128 ranks), varied by seed. */
double fab_coll_value(int rank, size_t i, uint32_t seed);
/* Fill count elements of buf with rank's values for elements first, first+1, ... */
void fab_coll_fill(const fab_kctx_t *ctx, void *buf, size_t count, int rank, size_t first,
                   uint32_t seed);
/* Count the elements of buf that differ from what they should be: the reduction (--op) over
 * every rank's value when from < 0, else rank `from`'s value. Floating types allow
 * ranks x epsilon(type) relative error. The first mismatch is logged with the element index. */
long fab_coll_check(const fab_kctx_t *ctx, const void *buf, size_t count, size_t first, int from,
                    uint32_t seed, const char *what);
/* Non-blocking collectives: the synthetic compute (ctx->compute_s), then MPI_Wait. */
fab_status_t fab_coll_finish(fab_kctx_t *ctx, MPI_Request *req);
/* gradsync: a gradient of `total` bytes in buckets of `bucket` bytes (whole elements of
 * `elem` bytes): the number of buckets, and the bytes of the last one (<= bucket). */
void fab_buckets(size_t total, size_t bucket, size_t elem, size_t *n, size_t *last);
/* The root of call `turn`: --root, or rotating (turn mod ranks) when it is -1. */
static inline int fab_coll_root(const fab_kctx_t *ctx, uint64_t turn)
{
    return ctx->root >= 0 ? ctx->root : (int)(turn % (uint64_t)ctx->size);
}
/* Bus factors (nccl-tests): allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall (n-1)/n;
 * bcast, reduce 1. */
double fab_bus_allreduce(int n);
double fab_bus_ring(int n);
double fab_bus_one(int n);
/* fit_bytes for collectives: whole elements, or whole blocks of one element per rank. */
size_t fab_fit_elements(const fab_kctx_t *ctx, size_t bytes);
size_t fab_fit_blocks(const fab_kctx_t *ctx, size_t bytes);
/* Bytes of one element, and bytes rounded down to whole `unit`s of elements (at least one). */
size_t fab_coll_fit(const fab_kctx_t *ctx, size_t bytes, size_t unit);

#endif
