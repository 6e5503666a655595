/* The harness: logging, options, statistics, timing, the runner and output. */
#ifndef FAB_H
#define FAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <hwloc.h>

#include "kernel/fab_kernel.h"
#include "core/status.h"

#define FAB_HOST_MAX 256

/* ---------------------------------------------------------------- sizes.c */
#define FAB_MAX_SIZES 64

typedef struct fab_sizes {
    size_t v[FAB_MAX_SIZES];
    int n;
} fab_sizes_t;

/* "8", "4K", "1M", "2G" (1024-based; optional trailing B or iB). */
fab_status_t fab_size_parse(const char *s, size_t *out, char *err, size_t errlen);
/* "MIN:MAX" (doubling from MIN, MAX included when it is not a power-of-two step) or a
 * comma-separated list. On error, err says what was wrong. */
fab_status_t fab_sizes_parse(const char *s, fab_sizes_t *out, char *err, size_t errlen);
/* "4096" -> "4K" when exact, else the plain number. */
void fab_size_format(size_t bytes, char *buf, size_t len);

/* ---------------------------------------------------------------- options.c */
/* Values in the order of the options' choice lists: --pml ucx|ob1|env, --timer auto|tsc|clock. */
typedef enum { FAB_PML_UCX = 0, FAB_PML_OB1 = 1, FAB_PML_ENV = 2 } fab_pml_t;
typedef enum { FAB_TIMER_AUTO = 0, FAB_TIMER_TSC = 1, FAB_TIMER_CLOCK = 2 } fab_timer_kind_t;

#define FAB_MAX_KERNELS 32

typedef struct fab_opts {
    const fab_kernel_t *kernels[FAB_MAX_KERNELS];
    int nkernels;
    fab_sizes_t sizes; /* empty: the default sweep */
    long iters;        /* > 0: fixed iterations per size; 0: time budget */
    long warmup;       /* < 0: automatic */
    double time_s;     /* time budget per size */
    long min_iters;    /* floor of the time-budget policy */
    long max_iters;    /* ceiling of the time-budget policy */
    long max_samples;  /* raw samples kept per size for exact percentiles */
    int window;
    bool validate;
    bool samples;       /* --samples: keep per-iteration times in the result file */
    const char *output; /* -o: NULL = automatic name, "none" = no file */
    bool append, force;
    const char *json, *csv; /* NULL: none */
    const char *show_file;  /* fabricbench show FILE */
    char note[128];         /* a warning about the options, for rank 0 to print */
    int pair_a, pair_b;
    int pml;       /* fab_pml_t */
    bool pml_set;  /* --pml given explicitly */
    int timer;     /* fab_timer_kind_t */
    int dtype, op; /* FAB_DT_*, FAB_OP_* */
    int root;      /* -1: rotate */
    bool nonblocking;
    double overlap_us; /* 0: none */
    double params;     /* gradsync */
    size_t bucket;
    int inflight;
    const char *fabric;       /* --fabric: a profile name, auto, or NULL/any (UCX chooses) */
    const char *device;       /* --device NAME[:PORT], NULL: chosen by the fabric profile */
    bool strict_fabric;       /* a verified transport that differs from the request: exit 3 */
    double line_rate_gbps;    /* --line-rate, or the port in use (set before the run); 0 unknown */
    bool line_rate_given;     /* --line-rate was given: applies within a node too */
    int placement;            /* FAB_PLACE_* */
    bool placement_set;       /* --placement given explicitly (overrides a launcher binding) */
    const char *sysfs_root;   /* NULL: "/" */
    const char *fabrics_file; /* NULL: the installed profile table */
    const char *topology;     /* placement command: an lstopo XML file, NULL: this machine */
    int place_ranks;          /* placement command: ranks per node */
    bool json_flag;           /* inventory, placement commands: --json */
    const char *sub_usage;    /* inventory, placement commands: --help was asked (their usage) */
    bool quiet;
    int verbose;
} fab_opts_t;

typedef enum {
    FAB_CMD_NONE = 0,
    FAB_CMD_HELP,
    FAB_CMD_VERSION,
    FAB_CMD_LIST,
    FAB_CMD_RUN,
    FAB_CMD_RUN_HELP,
    FAB_CMD_SHOW,
    FAB_CMD_INVENTORY,
    FAB_CMD_PLACEMENT
} fab_cmd_t;

void fab_opts_defaults(fab_opts_t *o);
/* Parse argv (environment FABRICBENCH_* first, then the command line). On error returns
 * FAB_ERR_USAGE with a one-line reason in err and a hint in hint. */
fab_status_t fab_opts_parse(int argc, char **argv, fab_cmd_t *cmd, fab_opts_t *o, char *err,
                            size_t errlen, char *hint, size_t hintlen);
void fab_opts_print_help(FILE *f);
void fab_opts_print_run_help(FILE *f);
/* For tests: the number of rows in the option table and row i's long name. */
int fab_opts_count(void);
const char *fab_opts_name(int i);

/* ---------------------------------------------------------------- registry (generated) */
extern const fab_kernel_t *const fab_kernels[];
extern const int fab_nkernels;
const fab_kernel_t *fab_kernel_find(const char *name);

/* ---------------------------------------------------------------- timing.c */
/* Monotonic nanoseconds (CLOCK_MONOTONIC, vDSO: no system call). */
static inline uint64_t fab_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

extern bool fab_timer_tsc_on;

/* The timer the loop reads: TSC ticks or nanoseconds; fab_ticks_to_s converts. */
static inline uint64_t fab_ticks(void)
{
#if defined(__x86_64__)
    if (fab_timer_tsc_on)
        return __rdtsc();
#endif
    return fab_now_ns();
}

/* Choose the timer (auto: TSC where the kernel uses it as clocksource, else CLOCK_MONOTONIC)
 * and calibrate it. On error err says why. */
fab_status_t fab_timer_init(fab_timer_kind_t want, char *err, size_t errlen);
double fab_ticks_to_s(uint64_t ticks);
/* Which timer is in use and why, for the header. */
const char *fab_timer_describe(void);
/* Median cost of one fab_ticks() reading, in ns, measured over `n` runs of 1000 readings. */
double fab_timer_cost_ns(int n);

/* ---------------------------------------------------------------- stats.c */
/* Log-linear histogram: 2^FAB_HIST_SUB_BITS buckets per power of two of nanoseconds, so a
 * percentile read from it is within 1/2^(FAB_HIST_SUB_BITS+1) (0.2%) of the true sample. */
#define FAB_HIST_SUB_BITS 8
#define FAB_HIST_OCTAVES  44
#define FAB_HIST_BUCKETS  ((FAB_HIST_OCTAVES + 1) << FAB_HIST_SUB_BITS)

typedef struct fab_acc {
    double *raw;    /* first raw_cap samples, seconds, in iteration order */
    double *sorted; /* scratch for percentiles */
    size_t raw_n, raw_cap;
    uint64_t *hist; /* every sample */
    size_t n;
    double min, max;
    double mean, m2;   /* Welford */
    double loop_total; /* sum of timed-block durations, seconds */
} fab_acc_t;

typedef struct fab_stats {
    uint64_t n;
    double min, p50, p90, p99, p999, max, mean, stddev;
    double loop_mean; /* loop_total / n */
    bool exact;       /* percentiles from every sample (else from the histogram) */
} fab_stats_t;

fab_status_t fab_acc_init(fab_acc_t *a, size_t raw_cap);
void fab_acc_reset(fab_acc_t *a);
void fab_acc_free(fab_acc_t *a);
void fab_acc_add(fab_acc_t *a, double v);
/* Summarise; every time is divided by `divisor` (1 for plain iteration times). */
void fab_acc_stats(fab_acc_t *a, double divisor, fab_stats_t *out);
/* Percentile q in [0,1] of sorted v[0..n-1], linear interpolation between closest ranks
 * (numpy's default "linear" method). */
double fab_percentile_sorted(const double *v, size_t n, double q);

/* ---------------------------------------------------------------- runner.c */
/* A rank that polls (MPI over UCX does) runs all the time; one that ran less than this share
 * of a measurement window waited for a core, and the row's times include scheduler delays. */
#define FAB_CPU_BUSY_PCT 80.0

typedef struct fab_row {
    uint64_t bytes;
    uint64_t iters;
    uint64_t warmup;
    fab_stats_t t;      /* reported time: iteration time / kernel time_divisor, seconds */
    double iter_time;   /* loop mean of one whole iteration, seconds */
    double mbps;        /* MB/s (10^6 B/s), all streams */
    double gbps;        /* Gb/s (10^9 bit/s), all streams */
    double msgps;       /* messages/s, all streams */
    double mbps_stream; /* per stream (pair) */
    double msgps_stream;
    int streams;
    long validation_errors; /* -1: not validated */
    double algbw;           /* collectives: bytes / loop-mean time, GB/s (10^9 B/s); else NaN */
    double busbw;           /* algbw x the kernel's bus factor */
    int slowest_rank;       /* the rank that was slowest in most iterations; -1 if one timer */
    double comm_time;       /* --overlap-compute: the same call without compute, s; else NaN */
    double overlap_pct;     /* how much of that the compute hid, 0..100; else NaN */
    double slowest_share;   /* the share of iterations it was slowest in */
    double line_pct;        /* Gb/s (collectives: busbw) / the port's data rate, %; else NaN */
    double cpu_rank_pct;    /* mean over taking-part ranks of CPU time / wall time, % */
    double cpu_user_pct;    /* node-wide shares of all CPUs, %, mean over the nodes */
    double cpu_sys_pct;
    double cpu_softirq_pct;
    double cpu_rank_min_pct, cpu_rank_max_pct; /* the least and most busy rank's share, % */
    int cpu_rank_max_rank;                     /* world rank of the busiest; -1 unknown */
} fab_row_t;

typedef struct fab_world {
    int rank, size;
    char host[FAB_HOST_MAX];
    char **hosts;    /* per world rank, on rank 0 only */
    int nhosts;      /* distinct hosts */
    int local_ranks; /* ranks on this rank's host */
} fab_world_t;

fab_status_t fab_world_init(fab_world_t *w);
void fab_world_free(fab_world_t *w);

/* Check every kernel's rank needs and the memory the run needs, on every rank, agreeing on
 * the outcome. On failure rank 0 has printed the reason. */
fab_status_t fab_run_check(const fab_world_t *w, const fab_opts_t *o);
/* What a run is: written by rank 0's sinks at the start and (updated) at the end. */
#define FAB_MAX_ENV 256
typedef struct fab_run_info {
    char start_time[32], end_time[32]; /* UTC, ISO 8601 */
    char *command_line;
    char mpi_library[256], ucx_version[32], hwloc_version[32], hdf5_version[32];
    char pml[32], pml_how[64];
    char ucx_tls[512];    /* the UCX transports of the first probed pair (known at the end) */
    char ucx_pairs[2048]; /* every probed pair's, grouped; "" when one pair was probed */
    bool probed_early;    /* --strict-fabric: probed before the measurements */
    char timer[192];
    double timer_cost_ns;
    int nranks, nhosts;
    char **hosts;              /* per rank */
    char ranks_per_node[1024]; /* "host:N,host:N" */
    char slurm_job[64], slurm_step[64], slurm_nodelist[512];
    char *env[FAB_MAX_ENV]; /* "NAME=value": UCX_*, OMPI_MCA_*, SLURM_*, FABRICBENCH_* only */
    int nenv;
    char status[32]; /* running, complete, interrupted, failed, check-failed */
    char stop_reason[128];
    char results_file[1024];         /* where the HDF5 file goes ("" for none) */
    const struct fab_fabric *fabric; /* --fabric as resolved on rank 0's host, and its check */
    char *inventory_json;     /* {"host": inventory, ...}: one per host (NULL if not gathered) */
    char **placement;         /* per rank: where it runs, one line (NULL if not gathered) */
    int nwarn_remote;         /* ranks placed away from their NIC */
    double line_rate_gbps;    /* what line_rate_pct compares with; 0 unknown */
    char line_rate_from[128]; /* --line-rate, or the port it was read from */
} fab_run_info_t;

/* Where rank 0 sends what a run produces, as it is produced. Every callback may be NULL;
 * a failing callback makes the run stop after the current block (exit 3). */
typedef struct fab_sink {
    const char *name;
    fab_status_t (*run_begin)(void *arg, const fab_run_info_t *info, const fab_opts_t *o);
    fab_status_t (*kernel_begin)(void *arg, const fab_kernel_t *k, const fab_opts_t *o,
                                 const int *pair, const fab_world_t *w, const char *detail);
    /* samples: the first nsamples per-iteration times in seconds, whole iterations (divide
     * by k->time_divisor for the table's times), in iteration order; NULL unless --samples */
    fab_status_t (*row)(void *arg, const fab_kernel_t *k, const fab_row_t *r, const double *samples,
                        size_t nsamples);
    fab_status_t (*kernel_end)(void *arg, const fab_kernel_t *k, fab_status_t st);
    fab_status_t (*run_end)(void *arg, const fab_run_info_t *info);
    void (*close)(void *arg);
    void *arg;
} fab_sink_t;

#define FAB_MAX_SINKS 4
typedef struct fab_sinks {
    fab_sink_t s[FAB_MAX_SINKS];
    int n;
} fab_sinks_t;

/* Run one kernel over the size list; rank 0 hands each row to the sinks as soon as it is
 * measured. *agreed tells whether every rank knows the outcome (else the caller must abort
 * the job). */
fab_status_t fab_run_kernel(const fab_world_t *w, const fab_opts_t *o, const fab_kernel_t *k,
                            fab_sinks_t *sinks, bool *agreed);
/* The pair the UCX transport probe connects: what the run's first kernel measures. */
void fab_probe_pair(const fab_world_t *w, const fab_opts_t *o, int *a, int *b);
/* Every pair whose transport the run checks: first the one of fab_probe_pair, then, when a
 * kernel uses all ranks, rank i with rank i + size/2 (msgrate's pairs; across nodes, each
 * rank's link to a rank on another node under a block placement). pairs 1.. share no rank.
 * a and b hold at least size/2 + 1 entries. Returns the count. */
int fab_probe_pairs(const fab_world_t *w, const fab_opts_t *o, int *a, int *b);
/* Every rank agrees on the worst status (the most negative one). */
fab_status_t fab_agree(fab_status_t st, MPI_Comm comm);
/* The default size list for a kernel. */
void fab_default_sizes(const fab_kernel_t *k, fab_sizes_t *out);
/* Bytes of buffer memory one rank of kernel k needs for max_bytes messages. */
size_t fab_buffer_bytes(const fab_kernel_t *k, const fab_opts_t *o, size_t max_bytes);

/* ---------------------------------------------------------------- runcheck.c */
/* The largest size of a list. */
size_t fab_max_size(const fab_sizes_t *s);
/* Distinct message buffers (slots) kernel k uses: more than one only under --validate. */
int fab_slots(const fab_kernel_t *k, const fab_opts_t *o);
/* The sizes kernel k measures: -m, its defaults, or one row of 0 bytes (tmp holds them). */
const fab_sizes_t *fab_kernel_sizes(const fab_kernel_t *k, const fab_opts_t *o, fab_sizes_t *tmp);
/* Whether a rank takes part in kernel k (all ranks, or one of --pair). */
bool fab_rank_active(const fab_kernel_t *k, const fab_opts_t *o, int rank);

/* ---------------------------------------------------------------- dtype.c */
uint16_t fab_f32_to_bf16(float f);
float fab_bf16_to_f32(uint16_t h);
uint16_t fab_f32_to_f16(float f);
float fab_f16_to_f32(uint16_t h);
/* inout[i] = in[i] (op) inout[i] for 16-bit elements, in float32, rounded to nearest-even. */
void fab_h16_reduce(const void *in, void *inout, int n, bool bf16, int op);
/* The type id (FAB_DT_*) with the reduction op (FAB_OP_*); wrong_sum: the test-only broken
 * sum. */
fab_status_t fab_dtype_init(int id, int op, bool wrong_sum, fab_dtype_t *dt);
void fab_dtype_free(fab_dtype_t *dt);
void fab_dtype_from_mpi(MPI_Datatype t, fab_dtype_t *dt);
double fab_dtype_get(const fab_dtype_t *dt, const void *buf, size_t i);
void fab_dtype_set(const fab_dtype_t *dt, void *buf, size_t i, double v);
double fab_dtype_epsilon(const fab_dtype_t *dt);
const char *fab_dtype_name(int id);
/* How the reductions of a --dtype are computed: natively by MPI, or emulated (16-bit types). */
const char *fab_dtype_arithmetic(int id);
const char *fab_op_name(int op);

/* ---------------------------------------------------------------- signals.c */
/* Why the run should stop after the current block: 0 not, else one of these. Set by the
 * signal handlers and by rank 0 when an output fails; ranks agree on it at block ends. */
enum { FAB_STOP_NONE = 0, FAB_STOP_SIGNAL = 1, FAB_STOP_OUTPUT = 2 };
extern volatile sig_atomic_t fab_stop_flag;
extern volatile sig_atomic_t fab_stop_signal;
/* SIGTERM, SIGINT, SIGUSR1: stop after the current block (a second one of the same kind
 * ends the process). SIGXFSZ ignored, so a file-size limit is a write error, not a crash. */
void fab_signals_install(void);
void fab_stop_request(int why);
/* The status a stop maps to: FAB_ERR_INTERRUPTED or FAB_ERR_IO. */
fab_status_t fab_stop_status(int why);

/* ---------------------------------------------------------------- buffers.c */
/* The process's send and receive areas, at least `bytes` each, pages touched, the send area
 * filled with 'a' and the receive area with zeros. They stay mapped until fab_buffers_free. */
fab_status_t fab_buffers_get(size_t bytes, char **sbuf, char **rbuf);
void fab_buffers_free(void);

/* ---------------------------------------------------------------- transport.c */
typedef struct fab_transport {
    char pml[32];     /* pml component in use: "ucx", "ob1", ... or "unknown" */
    char pml_how[64]; /* how that was found */
    char ucx_version[32];
    char ucx_tls[512];    /* UCX transports/devices a probe endpoint chose, or why unknown */
    char ucx_pairs[2048]; /* every probed pair's, grouped; "" when one pair was probed */
    char mpi_library[256];
} fab_transport_t;

/* Before MPI_Init: select the pml the options ask for, unless the environment already has. */
void fab_transport_prepare(const fab_opts_t *o);
/* After MPI_Init: versions and the pml in use (local, nothing started). */
void fab_transport_detect(fab_transport_t *t);
/* Whether the UCX transports still have to be probed (pml ucx). */
bool fab_transport_needs_probe(const fab_transport_t *t);
/* Probe the UCX transports of the pairs (a[i], b[i]), which share no rank, all at once
 * (collective over MPI_COMM_WORLD). On rank 0, out + i x len holds pair i's lanes, such as
 * "tcp/eth0[rma_bw#0 am am_bw#0 wireup]", or why they are unknown. */
#define FAB_LANES_LEN 512
fab_status_t fab_transport_probe_pairs(const fab_world_t *w, int n, const int *a, const int *b,
                                       char *out, size_t len);

/* ---------------------------------------------------------------- fabric.c */
/* What RDMA devices and network interfaces a node has, read from sysfs under a root that
 * tests point at fixture trees (libibverbs adds to it where the root is the real "/"). */
#define FAB_MAX_RDMA  16
#define FAB_MAX_PORTS 4
#define FAB_MAX_NETIF 64

typedef enum {
    FAB_CLASS_UNKNOWN = 0,
    FAB_CLASS_IB,    /* link layer InfiniBand */
    FAB_CLASS_ROCE,  /* link layer Ethernet (not erdma, not node type RNIC) */
    FAB_CLASS_ERDMA, /* driver erdma: Alibaba Elastic RDMA (iWARP-style, RC only, no UD) */
    FAB_CLASS_IWARP, /* node type RNIC, not erdma */
} fab_class_t;

typedef struct fab_port {
    int num;              /* port number, from 1 */
    char state[32];       /* "ACTIVE", "DOWN", "INIT", ... (sysfs "4: ACTIVE" -> "ACTIVE") */
    char phys_state[32];  /* "LinkUp", "Disabled", ... */
    char link_layer[16];  /* "InfiniBand", "Ethernet" */
    char rate[64];        /* the sysfs string as read: "200 Gb/sec (4X HDR)" */
    int width;            /* active lanes: 1, 2, 4, 8, 12; 0 unknown */
    char speed[16];       /* lane speed name: "SDR" ... "XDR"; "" unknown */
    double signal_gbps;   /* signalling rate of all lanes, Gb/s; 0 unknown (always on Ethernet) */
    double data_gbps;     /* data rate after line encoding, Gb/s (Ethernet: the netdev's speed,
                             docs/FABRICS.md); 0 unknown */
    char encoding[32];    /* "8b/10b", "64b/66b", ...; "" unknown */
    int mtu;              /* active RDMA MTU, bytes; 0 unknown */
    char gid_types[64];   /* distinct GID types in table order: "IB", "RoCE v1,RoCE v2" */
    int rocev2_gid_index; /* preferred RoCE v2 GID index (fab_inv_gid_rank); -1 none */
    char netdev[32];      /* the network interface behind the port ("" none) */
    fab_class_t cls;      /* the port's classification */
} fab_port_t;

typedef struct fab_rdma_dev {
    char name[64];      /* mlx5_0 */
    char driver[32];    /* mlx5_core, erdma, ... ("" unknown) */
    char node_type[32]; /* "CA", "RNIC", ... */
    char fw_ver[64];
    int numa_node; /* -1 unknown */
    int nports;
    fab_port_t ports[FAB_MAX_PORTS];
} fab_rdma_dev_t;

typedef struct fab_netif {
    char name[32];
    long speed_mbps; /* sysfs speed, Mb/s; -1 unknown (VMs, virtual devices, link down) */
    int mtu;
    int numa_node;      /* -1 unknown */
    char operstate[16]; /* "up", "down", "unknown" */
    bool loopback;
    char rdma_dev[64]; /* the RDMA device it backs ("" none) */
} fab_netif_t;

typedef struct fab_inventory {
    char sysroot[512]; /* "/" or a fixture tree */
    char source[64];   /* "sysfs", "sysfs+libibverbs" */
    int nrdma;
    fab_rdma_dev_t rdma[FAB_MAX_RDMA];
    int nnet;
    fab_netif_t net[FAB_MAX_NETIF];
    char note[256]; /* what could not be read, e.g. "no RDMA devices (no class/infiniband)" */
} fab_inventory_t;

/* Read the inventory under sysroot (NULL or "" : "/"). A missing class/infiniband is not an
 * error (no RDMA devices); an unreadable sysroot is (FAB_ERR_IO, exit 3; err says which path). */
fab_status_t fab_inventory_scan(const char *sysroot, fab_inventory_t *inv, char *err,
                                size_t errlen);
/* The inventory as one JSON object (stable key order; the golden tests compare it exactly),
 * and as text for people. */
void fab_inventory_json(const fab_inventory_t *inv, FILE *f);
void fab_inventory_text(const fab_inventory_t *inv, FILE *f);
const char *fab_class_name(fab_class_t c); /* "ib", "roce", "erdma", "iwarp", "unknown" */
/* Parse a sysfs rate string ("56 Gb/sec (4X FDR)", "2.5 Gb/sec (1X SDR)"): lanes, lane speed
 * name, signalling and data rates (Gb/s, all lanes) and the encoding. false if unparseable. */
bool fab_rate_parse(const char *rate, int *width, char *speed, size_t speedlen, double *signal_gbps,
                    double *data_gbps, char *encoding, size_t enclen);
/* `fabricbench inventory [--json]`: exit code (0, or 3 when sysroot cannot be read). */
int fab_inventory_command(const char *sysroot, bool json, FILE *out, FILE *errf);

/* ---------------------------------------------------------------- fabrics.c */
/* --fabric: a profile from the profile table (share/fabricbench/fabrics.conf), resolved on
 * each host to a device before MPI_Init, then checked against what UCX chose. */
typedef struct fab_fabric {
    char requested[32]; /* as given: "roce", "auto"; "" for any */
    char name[32];      /* the profile used ("" for any) */
    char match[32];     /* its match rule */
    char description[160];
    char device[64];         /* RDMA device or network interface used ("" none) */
    int port;                /* RDMA port (0: none) */
    char netdev[32];         /* the network interface behind it */
    int gid_index;           /* RoCE v2 GID index, -1 none */
    double line_rate_gbps;   /* data rate of the port, 0 unknown */
    char line_rate_from[96]; /* where that came from */
    char expect[128];        /* transports that count as this fabric */
    char env[1024];          /* "NAME=value ..." set for UCX and Open MPI */
    char why[256];           /* how the device was chosen */
    char profiles_file[512];
    char verified[512]; /* what UCX chose (probe), "" before the probe */
    char verdict[32];   /* "match", "differs", "not verified" */
    char verdict_why[256];
} fab_fabric_t;

/* Before MPI_Init, on every rank: resolve o->fabric on this host (reading the inventory under
 * o->sysfs_root) and set the profile's environment. Nothing is set on failure; msg and hint
 * say what is wrong and what exists. FAB_ERR_USAGE: unknown profile or bad --device syntax;
 * FAB_ERR_ENV: the fabric or device does not exist here, or the profile table is unreadable.
 * note receives a warning to print (an environment variable overridden), or "". */
fab_status_t fab_fabric_prepare(const fab_opts_t *o, fab_fabric_t *fb, char *msg, size_t msglen,
                                char *hint, size_t hintlen, char *note, size_t notelen);
/* After the UCX probe: compare the lanes it reported ("tcp/eth0[am] ...") with the profile.
 * Returns true when they match (or nothing was asked). */
bool fab_fabric_verify(fab_fabric_t *fb, const char *lanes);
/* With --fabric any and no line rate: the network device UCX's first network lane used
 * ("mlx5_0:1", "eth0") into dev, for a hint on how to get line%. False when the lanes name no
 * network device (shared memory, not probed). */
bool fab_lanes_device(const char *lanes, char *dev, size_t len);
/* A short inventory of this host for error messages: "RDMA: mlx5_0:1 roce ACTIVE 100 Gb/s;
 * net: eth0 up 25 Gb/s, lo". */
void fab_inventory_brief(const fab_inventory_t *inv, char *buf, size_t len);

/* ---------------------------------------------------------------- placement.c */
/* --placement, in the order of its choice list. auto: nic when the NIC is known and the
 * launcher has not bound the rank already, else leave the binding as it is. */
typedef enum {
    FAB_PLACE_AUTO = 0,
    FAB_PLACE_NIC,  /* cores of the NUMA node nearest the NIC, then the next nearest */
    FAB_PLACE_NUMA, /* round-robin over NUMA nodes, one core each */
    FAB_PLACE_CORE, /* one core each, in logical order */
    FAB_PLACE_NONE, /* bind nothing */
} fab_place_policy_t;

typedef struct fab_place {
    int policy;     /* what was applied (never AUTO) */
    bool bound;     /* bound to fewer PUs than the machine allows */
    bool kept;      /* a binding from the launcher (mpirun/srun) was kept */
    char cpus[128]; /* PUs it may run on, OS indexes, list form: "8-11,40" */
    int numa;       /* OS index of the NUMA node of those PUs; -1 several or unknown */
    char nic[64];   /* the NIC placement considered ("" none) */
    int nic_numa;   /* OS index of the NUMA node nearest the NIC; -1 unknown */
    int distance;   /* NUMA distance numa -> nic_numa (10: local); -1 unknown */
    bool remote;    /* known to be on another NUMA node than the NIC */
    char note[256]; /* why this placement, or a warning */
} fab_place_t;

/* This machine's topology (xml NULL), or one exported by `lstopo file.xml`. */
fab_status_t fab_topo_load(const char *xml, hwloc_topology_t *topo, char *err, size_t errlen);
/* Where local rank `local` of `nlocal` on a node goes under `policy` (AUTO acts as NIC when
 * nic is found in the topology, else as NONE). Pure: binds nothing. set (allocated by the
 * caller) receives the PUs; out describes the plan. */
fab_status_t fab_place_plan(hwloc_topology_t topo, int policy, const char *nic, int local,
                            int nlocal, hwloc_bitmap_t set, fab_place_t *out, char *err,
                            size_t errlen);
/* Bind this process as planned. explicit: the user chose the policy, which overrides a
 * binding the launcher made; otherwise (AUTO) an existing binding is kept. out describes
 * where the process runs afterwards. */
fab_status_t fab_place_apply(hwloc_topology_t topo, int policy, bool explicit_policy,
                             const char *nic, int local, int nlocal, fab_place_t *out, char *err,
                             size_t errlen);
/* `fabricbench placement`: the plan for nlocal ranks on the topology, one line per rank (or
 * JSON). Exit code. */
int fab_place_command(const char *xml, int policy, const char *nic, int nlocal, bool json,
                      FILE *out, FILE *errf);
const char *fab_place_name(int policy); /* "auto", "nic", "numa", "core", "none" */

/* ---------------------------------------------------------------- cpuload.c */
/* /proc/stat's first eight cpu fields: user nice system idle iowait irq softirq steal. */
#define FAB_CPU_NJ 8
typedef struct fab_cpu_mark {
    double wall;            /* s, CLOCK_MONOTONIC */
    double self;            /* this process's user + system CPU time, s */
    uint64_t j[FAB_CPU_NJ]; /* node-wide jiffies, when node */
    bool node;              /* this rank samples its node and could read /proc/stat */
} fab_cpu_mark_t;

/* Parse /proc/stat's "cpu " line. */
bool fab_proc_stat_parse(const char *line, uint64_t j[FAB_CPU_NJ]);
/* Mark the start or end of a window; node: also read /proc/stat (one rank per node). */
void fab_cpu_mark(fab_cpu_mark_t *m, bool node);
/* Node-wide shares of all CPUs' time between two readings, %: user (+nice), system,
 * softirq; NaN when no time passed. */
void fab_cpu_shares(const uint64_t a[FAB_CPU_NJ], const uint64_t b[FAB_CPU_NJ], double *user,
                    double *sys, double *softirq);
/* out[0]: this rank's CPU time / wall time, % (100: one core busy); out[1..3]: the node's
 * user, system, softirq shares (NaN unless both marks read /proc/stat). */
void fab_cpu_window(const fab_cpu_mark_t *a, const fab_cpu_mark_t *b, double out[4]);

/* ---------------------------------------------------------------- columns.c */
typedef enum { FAB_COL_U64, FAB_COL_I64, FAB_COL_F64 } fab_col_type_t;
/* Column ids, in file order. */
enum {
    FAB_COL_BYTES,
    FAB_COL_ITERS,
    FAB_COL_WARMUP,
    FAB_COL_MIN,
    FAB_COL_P50,
    FAB_COL_MEAN,
    FAB_COL_P90,
    FAB_COL_P99,
    FAB_COL_P999,
    FAB_COL_MAX,
    FAB_COL_STDDEV,
    FAB_COL_LOOP,
    FAB_COL_MBPS,
    FAB_COL_GBPS,
    FAB_COL_MSGPS,
    FAB_COL_PAIR_MBPS,
    FAB_COL_PAIR_MSGPS,
    FAB_COL_ERRORS,
    FAB_COL_EXACT,
    FAB_COL_ALGBW,
    FAB_COL_BUSBW,
    FAB_COL_SLOWEST,
    FAB_COL_SLOWEST_SHARE,
    FAB_COL_COMM,
    FAB_COL_OVERLAP,
    FAB_COL_LINE,
    FAB_COL_CPU_RANK,
    FAB_COL_CPU_USER,
    FAB_COL_CPU_SYS,
    FAB_COL_CPU_SOFTIRQ,
    FAB_COL_CPU_RANK_MIN,
    FAB_COL_CPU_RANK_MAX,
    FAB_COL_CPU_RANK_MAX_RANK,
    FAB_COL_COUNT
};
typedef struct fab_column {
    const char *name; /* file-safe: "MBps", "p999_us" */
    const char *unit; /* decimal units: bytes, count, us, MB/s, Gb/s, msg/s, flag */
    fab_col_type_t type;
    const char *doc;
} fab_column_t;
extern const fab_column_t fab_columns[];
extern const int fab_ncolumns;
/* Column col of row r: integer columns in *iv, floating ones in *dv. */
void fab_column_value(int col, const fab_row_t *r, int64_t *iv, double *dv);

/* ---------------------------------------------------------------- runinfo.c */
/* Rank 0: describe the run (start time, versions, hosts, environment, transport). */
fab_status_t fab_run_info_fill(fab_run_info_t *info, const fab_world_t *w, const fab_transport_t *t,
                               int argc, char **argv);
void fab_run_info_free(fab_run_info_t *info);
/* The current UTC time formatted with strftime's fmt. */
void fab_utc_now(char *buf, size_t len, const char *fmt);

/* ---------------------------------------------------------------- setup.c */
/* Between MPI_Init and the first measurement (collective over MPI_COMM_WORLD). */
/* Bind each rank as --placement says (near fb's device), and gather one line per rank into
 * info->placement on rank 0. */
fab_status_t fab_setup_placement(const fab_world_t *w, const fab_opts_t *o,
                                 const struct fab_fabric *fb, fab_run_info_t *info);
/* Gather each host's inventory (JSON, one rank per host) into info->inventory_json on rank 0. */
fab_status_t fab_setup_inventory(const fab_world_t *w, const fab_opts_t *o, fab_run_info_t *info);
/* Every rank agrees on st; the lowest failing rank's msg and hint are printed by rank 0. */
fab_status_t fab_agree_msg(const fab_world_t *w, fab_status_t st, const char *msg,
                           const char *hint);

/* ---------------------------------------------------------------- out_text.c */
/* The text table on f as a sink. */
fab_sink_t fab_out_text_sink(FILE *f);
/* Pieces of it, for `fabricbench show`: the column-name line, and one row from the values of
 * its columns (v[FAB_COL_*], as stored in the files). */
void fab_out_text_columns(FILE *f, fab_kind_t kind);
void fab_out_text_values(FILE *f, fab_kind_t kind, const double *v);

/* ---------------------------------------------------------------- show.c */
/* Print every run and table of a result file in the live layout. */
fab_status_t fab_show(const char *path, FILE *f);

/* ---------------------------------------------------------------- out_hdf5.c, out_json.c */
/* The HDF5 result file at path as a sink (opened at run_begin). */
fab_status_t fab_out_hdf5_sink(const char *path, bool samples, fab_sink_t *sink);
/* JSON Lines (csv false) or CSV at path; refuses an existing file unless --append/--force. */
fab_status_t fab_out_export_sink(const char *path, bool csv, const fab_opts_t *o, fab_sink_t *sink);

/* ---------------------------------------------------------------- sinks.c */
fab_status_t fab_sinks_run_begin(fab_sinks_t *s, const fab_run_info_t *info, const fab_opts_t *o);
fab_status_t fab_sinks_kernel_begin(fab_sinks_t *s, const fab_kernel_t *k, const fab_opts_t *o,
                                    const int *pair, const fab_world_t *w, const char *detail);
fab_status_t fab_sinks_row(fab_sinks_t *s, const fab_kernel_t *k, const fab_row_t *r,
                           const double *samples, size_t nsamples);
fab_status_t fab_sinks_kernel_end(fab_sinks_t *s, const fab_kernel_t *k, fab_status_t st);
fab_status_t fab_sinks_run_end(fab_sinks_t *s, const fab_run_info_t *info);
void fab_sinks_close(fab_sinks_t *s);

#endif
