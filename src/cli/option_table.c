/* SPDX-License-Identifier: BSD-3-Clause */
/* The harness's option table (cli/option_table.h): every option of `fabricbench run` that is
 * not a kernel's own, with its type, range, default and help text. --help stays last. */
#include <stddef.h>

#include "cli/option_table.h"
#include "cli/nccl_words.h"
#include "cli/opts.h"
#include "core/text.h"
#include "measure/arrival.h"
#include "measure/plan.h"
#include "measure/quality.h"
#include "measure/rounds.h"
#include "pairs/locate.h"
#include "pairs/pairs.h"

#define OFF(field) offsetof(fab_opts_t, field)
/* --root, --pair: the largest rank number taken (the run's size is checked after MPI_Init) */
#define FAB_MAX_RANK 1e7

/* Help texts built from the constants they name (one place for each). */
#define FAB_HELP_WARMUP                                                                            \
    "untimed iterations before each size (auto: i/10 with -i; --time: the calibration run; "       \
    "adaptive: rounds of 1, 2, 4, ... iterations until " FAB_STR(                                  \
        FAB_ROUND_WARM_S) " s has "                                                                \
                          "passed and the time per iteration stopped falling, two rounds at "      \
                          "least, at most " FAB_STR(FAB_WARM_MAX_S) " s)"
#define FAB_HELP_BUDGET                                                                            \
    "adaptive measurement (no -i, no --time): time for the whole run's sizes (a kernel may ask "   \
    "more per row: the UDP kernels 1 s, whole streams and long iterations more; the header "       \
    "names them); printed at the start with the estimated end. A size short of the floor "         \
    "(" FAB_STR(FAB_FLOOR_SAMPLES) " timed iterations in " FAB_STR(                                \
        FAB_FLOOR_BLOCKS) " blocks) "                                                              \
                          "goes on past its share, up to " FAB_STR(                                \
                              FAB_CAP_FACTOR) " x SEC or SEC + " FAB_STR(FAB_CAP_MIN_S) " s; "     \
                                                                                        "rows "    \
                                                                                        "still "   \
                                                                                        "short "   \
                                                                                        "then "    \
                                                                                        "are "     \
                                                                                        "marked "  \
                                                                                        "invalid"

const fab_opt_t fab_opt_table[] = {
    {"sizes", 'm', FAB_OPT_SIZES, OFF(meas.sizes), 0, 0, "SIZES", "bytes",
     FAB_SIZES_P2P ", collectives " FAB_SIZES_COLL ", pairs_latency " FAB_SIZES_PAIRS_LAT
                   ", pairs_bw " FAB_SIZES_PAIRS_BW,
     "message sizes: MIN:MAX doubles from MIN (MAX included), or a list 8,1K,64K; K/M/G = 1024^n "
     "(a kernel may have defaults of its own: fabricbench list)",
     0, false, NULL},
    {"iterations", 'i', FAB_OPT_LONG, OFF(meas.iters), 1, 1e9, "N", "iterations", "auto",
     "fixed timed iterations per size (auto: adaptive, see --precision), or per pair and "
     "direction of the pairs kernels (auto: adaptive, see --pair-time)",
     0, false, NULL},
    {"warmup", 'x', FAB_OPT_LONG, OFF(meas.warmup), 0, 1e9, "N", "iterations", "auto",
     FAB_HELP_WARMUP, -1, false, NULL},
    {"budget", 0, FAB_OPT_DOUBLE, OFF(meas.budget_s), 0.001, 86400, "SEC", "s",
     "auto (" FAB_STR(FAB_BUDGET_PER_ROW) " s per row)", FAB_HELP_BUDGET, 0, false, NULL},
    {"precision", 0, FAB_OPT_DOUBLE, OFF(meas.precision_pct), 0.01, 100, "PCT", "%",
     FAB_STR(FAB_PRECISION_PCT),
     "adaptive measurement: a size stops when its median's 95% interval is within this "
     "(half-width) and its blocks agree, or when its share of --budget is spent",
     0, false, NULL},
    {"time", 't', FAB_OPT_DOUBLE, OFF(meas.time_s), 0, 3600, "SEC", "s", "0.25",
     "fixed time per size instead of the adaptive measurement; iterations are chosen so each "
     "size takes about this long (a size that reaches twice this stops at its block's end); "
     "pairs kernels: this long of timed iterations per pair and direction",
     0, true, NULL},
    {"min-iters", 0, FAB_OPT_LONG, OFF(meas.min_iters), 1, 1e9, "N", "iterations", "10",
     "fewest timed iterations per size under --time", 0, false, NULL},
    {"max-iters", 0, FAB_OPT_LONG, OFF(meas.max_iters), 1, 1e9, "N", "iterations", "10000000",
     "most timed iterations per size under --time", 0, false, NULL},
    {"sync", 0, FAB_OPT_CHOICE, OFF(meas.sync), 0, 0, "none|barrier", NULL, "none",
     "between timed iterations: none (back to back) or barrier (an MPI_Barrier of the kernel's "
     "ranks after every iteration, warm-up too, outside the timed call: OSU's method, for "
     "comparing with osu_allreduce and friends; pairs kernels keep their own loop)",
     0, false, NULL},
    {"max-samples", 0, FAB_OPT_LONG, OFF(meas.max_samples), 0, 1e8, "N", "samples", "1048576",
     "samples kept per size for exact percentiles; beyond, a histogram (error <= 0.2%)", 0, false,
     NULL},
    {"window", 'w', FAB_OPT_INT, OFF(meas.window), 1, 65536, "N", "messages", "64",
     "messages in flight per iteration for bw, bibw, msgrate and pairs_bw (whose own default "
     "is 8: 8 MiB in flight at 1 MiB, many times a fabric's bandwidth-delay product, and an "
     "iteration of 67 ms at 1 Gb/s)",
     0, false, NULL},
    {"dtype", 0, FAB_OPT_CHOICE, OFF(meas.dtype), 0, 0,
     "float32|float64|int32|bfloat16|float16|int8|uint8|uint32|int64|uint64", NULL, "float32",
     "element type of the collectives that move or reduce elements (bfloat16, float16: "
     "emulated; integers: native MPI types; see METRICS.md); in a run that mixes them with other "
     "kernels it applies to them alone; a run without one refuses it (fabricbench's table)",
     0, false, NULL},
    {"op", 0, FAB_OPT_CHOICE, OFF(meas.op), 0, 0, "sum|max|min|prod|avg", NULL, "sum",
     "reduction of the reducing collectives (-o with --nccl-tests); avg: the "
     "sum divided by the ranks after the call, inside the timed call; other than sum, "
     "refused in a run without one (fabricbench's table)",
     0, false, NULL},
    {"root", 'r', FAB_OPT_INT, OFF(meas.root), -1, FAB_MAX_RANK, "N", NULL, "-1",
     "root of bcast and reduce; -1 rotates it every iteration", 0, false, NULL},
    {"nonblocking", 0, FAB_OPT_FLAG, OFF(meas.nonblocking), 0, 0, NULL, NULL, "off",
     "collectives: MPI_Iallreduce and friends, started then waited for", 0, false, NULL},
    {"overlap-compute", 0, FAB_OPT_DOUBLE, OFF(meas.overlap_us), 0, 1e7, "US", "us", "none",
     "with --nonblocking: synthetic compute between start and wait; reports overlap %", 0, true,
     NULL},
    {"straggle", 0, FAB_OPT_STRING, OFF(meas.straggle), 0, 0, "RANK:DELAY", NULL, "none",
     "what-if and tests: world rank RANK computes (busy) DELAY before each call, warm-up too, "
     "outside the call's time; DELAY with its unit ns, us, ms or s (500us, 20ms; at most 10 s). "
     "Collectives' rows name the rank that arrives last (late_rank, straggler_rank)",
     0, false, fab_straggle_check},
    {"validate", 'c', FAB_OPT_FLAG, OFF(meas.validate), 0, 0, NULL, NULL, "off",
     "after each size, send patterned data and check every received byte", 0, false, NULL},
    {"pair", 0, FAB_OPT_PAIR, OFF(meas.pair), 0, FAB_MAX_RANK, "A,B", "ranks", "0,1",
     "the two ranks latency, bw and bibw measure between; the others wait idle; refused "
     "beside a pair kernel that its own options put on every rank (bw --pattern incast) "
     "and in a run without a pair kernel (a TCP stream, collectives)",
     0, false, NULL},
    {"split", 0, FAB_OPT_STRING, OFF(meas.split_text), 0, 0, "mod:K|div:K|node|rail", NULL, "none",
     "collectives: split the ranks into groups, each running the collective on its own "
     "communicator, all groups at once; one row per group and size (columns group, "
     "group_ranks). mod:K: rank mod K (the local rank when K is the ranks per node under block "
     "placement); div:K: rank / K (a node under block placement); node: by host; rail: by "
     "local index on its host. Needs -i or --time (not the adaptive rounds)",
     0, false, fab_split_check_text},
    {"schedule", 0, FAB_OPT_CHOICE, OFF(pairs.schedule), 0, 0, "rounds|shift|serial", NULL,
     "rounds",
     "pairs kernels: n/2 disjoint pairs at a time over n-1 rounds; every member sending to "
     "the next but r at once (load); or one pair at a time",
     0, false, NULL},
    {"retest", 0, FAB_OPT_CHOICE, OFF(pairs.retest), 0, 0, "off|on", NULL, "on",
     "pairs kernels: measure the pairs rounds or shift found slow and standing out again, one "
     "at a time, and judge by that (both values kept; a node named on its own: its 4 slowest)",
     0, false, NULL},
    {"pair-time", 0, FAB_OPT_DOUBLE, OFF(pairs.pair_time_s), 0, 3600, "SEC", "s",
     "auto (pairs_bw " FAB_STR(FAB_PAIRS_TIME_BW) " s, pairs_latency " FAB_STR(
         FAB_PAIRS_TIME_LAT) " s)",
     "pairs kernels, adaptive (no -i, no --time): the most time per pair and direction, "
     "warm-up included; a pair stops sooner once its median is within --precision and its "
     "blocks agree, and goes on past it (up to " FAB_STR(FAB_CAP_FACTOR) " x SEC or SEC + " FAB_STR(
         FAB_CAP_MIN_S) " s) while short of " FAB_STR(FAB_FLOOR_SAMPLES) " timed iterations",
     0, true, NULL},
    {"pairs-per", 0, FAB_OPT_CHOICE, OFF(pairs.pairs_per), 0, 0, "node|rank", NULL, "node",
     "pairs kernels: pairs of nodes (the lowest rank on each), or of every rank", 0, false, NULL},
    {"slow-bw", 0, FAB_OPT_DOUBLE, OFF(pairs.slow_bw), 0, 1, "SHARE", NULL,
     FAB_STR(FAB_LOCATE_BW_FRAC),
     "pairs verdict: a pair is slow below this share of the median pair's bandwidth", 0, true,
     NULL},
    {"slow-latency", 0, FAB_OPT_DOUBLE, OFF(pairs.slow_latency), 1, 1e6, "FACTOR", NULL,
     FAB_STR(FAB_LOCATE_LAT_FACTOR),
     "pairs verdict: a pair is slow above this multiple of the median pair's latency", 0, true,
     NULL},
    {"switches", 0, FAB_OPT_STRING, OFF(pairs.switches), 0, 0, "FILE", NULL, "host names",
     "pairs verdict: 'NODE SWITCH' lines; default: a host name's part before its last '-'", 0,
     false, NULL},
    {"fabric", 0, FAB_OPT_STRING, OFF(net.fabric), 0, 0, "any|auto|ib|roce|erdma|tcp|shm", NULL,
     "any",
     "the fabric to measure (a profile in fabrics.conf, docs/FABRICS.md); any: UCX chooses; "
     "auto: the fastest active device",
     0, false, NULL},
    {"device", 0, FAB_OPT_STRING, OFF(net.device), 0, 0, "NAME[:PORT]", NULL, "from --fabric",
     "the RDMA device and port (mlx5_0:1) or network interface (eth0) --fabric uses", 0, false,
     NULL},
    {"strict-fabric", 0, FAB_OPT_FLAG, OFF(net.strict_fabric), 0, 0, NULL, NULL, "off",
     "with --fabric: exit 3 (before measuring) when UCX would use another transport than the "
     "fabric on a measured pair, or UCX is not in use",
     0, false, NULL},
    {"line-rate", 0, FAB_OPT_RATE, OFF(net.line_rate_gbps), 0, 1e6, "RATE", "Gb/s", "the port's",
     "data rate the efficiency column compares with (100G, 25Gb/s); default: the port in use", 0,
     true, NULL},
    {"placement", 0, FAB_OPT_CHOICE, OFF(net.placement), 0, 0, "auto|nic|numa|core|none", NULL,
     "auto",
     "bind ranks near the NIC (nic), across NUMA nodes, to cores, or not; auto: nic unless "
     "mpirun/srun bound them",
     0, false, NULL},
    {"sysfs-root", 0, FAB_OPT_STRING, OFF(net.sysfs_root), 0, 0, "DIR", NULL, "/",
     "where the inventory reads sys/class/infiniband and sys/class/net (for fixture trees)", 0,
     false, NULL},
    {"fabrics-file", 0, FAB_OPT_STRING, OFF(net.fabrics_file), 0, 0, "FILE", NULL, "installed",
     "the fabric profile table (default: the fabrics.conf installed with fabricbench)", 0, false,
     NULL},
    {"pml", 0, FAB_OPT_CHOICE, OFF(net.pml), 0, 0, "ucx|ob1|env", NULL, "ucx",
     "Open MPI point-to-point layer: ucx, ob1, or env (leave it to mpirun/environment)", 0, false,
     NULL},
    {"timer", 0, FAB_OPT_CHOICE, OFF(meas.timer), 0, 0, "auto|tsc|clock", NULL, "auto",
     "clock for per-iteration timestamps: tsc where the kernel uses it as clocksource, else "
     "CLOCK_MONOTONIC",
     0, false, NULL},
    {"output", 'o', FAB_OPT_STRING, OFF(out.output), 0, 0, "FILE.h5", NULL, "auto",
     "HDF5 result file; auto: fabricbench-HOST-DATE[-jobID].h5 here; none: no file", 0, false,
     NULL},
    {"append", 0, FAB_OPT_FLAG, OFF(out.append), 0, 0, NULL, NULL, "off",
     "add this run to an existing result file (a new run group); never through a link", 0, false,
     NULL},
    {"repeat", 0, FAB_OPT_INT, OFF(launch.repeat), 1, 1000, "N", "runs", "1",
     "measure the whole plan N times, each repetition a run of its own in the same file (a "
     "baseline with its run-to-run spread for check)",
     0, false, NULL},
    {"force", 0, FAB_OPT_FLAG, OFF(out.force), 0, 0, NULL, NULL, "off",
     "replace an existing output file, or a symbolic link at its name (never written "
     "through); without it both are refused",
     0, false, NULL},
    {"samples", 0, FAB_OPT_FLAG, OFF(meas.samples), 0, 0, NULL, NULL, "off",
     "also store every size's per-iteration times (up to --max-samples) in the result file", 0,
     false, NULL},
    {"json", 0, FAB_OPT_STRING, OFF(out.json), 0, 0, "FILE|-", NULL, "none",
     "also write JSON Lines: run, kernel, row, kernel_end and end records; -: to stdout (the "
     "table then goes to stderr, or nowhere with -q)",
     0, false, NULL},
    {"csv", 0, FAB_OPT_STRING, OFF(out.csv), 0, 0, "FILE|-", NULL, "none",
     "also write CSV: a header line, one line per row; -: to stdout, as for --json", 0, false,
     NULL},
    {"json-doc", 0, FAB_OPT_STRING, OFF(out.json_doc), 0, 0, "FILE|-", NULL, "none",
     "also write one JSON document (runs with their metadata, kernels and rows, and end), "
     "replaced atomically as rows come; -: printed to stdout once the run ends",
     0, false, NULL},
    {"prom", 0, FAB_OPT_STRING, OFF(out.prom), 0, 0, "FILE.prom|-", NULL, "none",
     "also write a Prometheus textfile (node-exporter's textfile collector) at the run's end, "
     "replaced atomically; -: to stdout",
     0, false, NULL},
    {"stall-timeout", 0, FAB_OPT_LONG, OFF(launch.stall_timeout), 0, 86400, "SEC", "s", "60",
     "a rank without progress this long (or 10 x its expected step, if longer: in a timed "
     "block one iteration) ends the job with exit 3, naming what it waited for; 0: never",
     0, false, NULL},
    {"startup-timeout", 0, FAB_OPT_LONG, OFF(launch.startup_timeout), 0, 86400, "SEC", "s", "300",
     "start-up (parsing to the first collectives after MPI_Init) and the end (MPI_Finalize to "
     "the exit) may take this long on a rank, else it ends with exit 3 naming the phase it was "
     "in; 0: never",
     0, false, NULL},
    {"quiet", 'q', FAB_OPT_FLAG, OFF(launch.quiet), 0, 0, NULL, NULL, "off",
     "no progress lines on stderr (and no table where an output takes stdout)", 0, false, NULL},
    {"verbose", 'v', FAB_OPT_COUNT, OFF(launch.verbose), 0, 0, NULL, NULL, "0",
     "more log output on stderr (repeat for debug)", 0, false, NULL},
    {"wide", 0, FAB_OPT_FLAG, OFF(out.wide), 0, 0, NULL, NULL, "off",
     "the full table on stdout (every column, the layout before the compact one) instead of the "
     "compact table that fits 100 columns; the files always have every column",
     0, false, NULL},
    {"columns", 0, FAB_OPT_STRING, OFF(out.columns), 0, 0, "LIST", NULL, "compact",
     "the table's columns, by their names in the result files (p50_us,busbw_GBps,...) or the "
     "table's headings (time_us,p99.9_us,ci%), in that order",
     0, false, NULL},
    /* nccl-tests' words (docs/METRICS.md, "nccl-tests' options"; cli/nccl_words.c) */
    {"nccl-tests", 0, FAB_OPT_FLAG, OFF(nccl.mode), 0, 0, NULL, NULL, "off",
     "read -i, -w, -o, -c, -t, -g, -m as nccl-tests does (-i --stepbytes, -w --warmup_iters, -o "
     "--op, -c --check, -t and -g only 1, -m refused) instead of fabricbench's -i --iterations, "
     "-w --window, -o --output, -c --validate, -t --time, -m --sizes",
     0, false, NULL},
    {"minbytes", 'b', FAB_OPT_SIZE, OFF(nccl.minbytes), 0, 0, "SIZE", "bytes", "32M",
     "nccl-tests: the smallest size of the sweep (with -e, -f or --stepbytes; instead of -m)", 0,
     false, NULL},
    {"maxbytes", 'e', FAB_OPT_SIZE, OFF(nccl.maxbytes), 0, 0, "SIZE", "bytes", "32M",
     "nccl-tests: the largest size of the sweep (included)", 0, false, NULL},
    {"stepfactor", 'f', FAB_OPT_LONG, OFF(nccl.stepfactor), 2, 1e6, "N", NULL, "none",
     "nccl-tests: each size is N times the last (else --stepbytes apart)", 0, false, NULL},
    {"stepbytes", 0, FAB_OPT_SIZE, OFF(nccl.stepbytes), 0, 0, "SIZE", "bytes", "1M",
     "nccl-tests (-i with --nccl-tests): sizes this far apart when -f is not given", 0, false,
     NULL},
    {"iters", 'n', FAB_OPT_LONG, OFF(meas.iters), 1, 1e9, "N", "iterations", "auto",
     "nccl-tests: timed iterations per size (--iterations)", 0, false, NULL},
    {"warmup_iters", 0, FAB_OPT_LONG, OFF(meas.warmup), 0, 1e9, "N", "iterations", "auto",
     "nccl-tests (-w with --nccl-tests): untimed iterations per size (--warmup)", -1, false, NULL},
    {"check", 0, FAB_OPT_LONG, OFF(nccl.check), 0, 1e9, "N", NULL, "0",
     "nccl-tests (-c N with --nccl-tests): N > 0 checks every size's result (--validate; "
     "fabricbench checks one call per size, whatever N)",
     0, false, NULL},
    {"datatype", 'd', FAB_OPT_STRING, OFF(nccl.datatype), 0, 0, "TYPE", NULL, "float",
     "nccl-tests: the element type by nccl-tests' name (--dtype): float, double, int32, half, "
     "bfloat16, int8, uint8, uint32, int64, uint64 (or float32, float64, float16)",
     0, false, fab_nccl_datatype_check},
    {"blocking", 'z', FAB_OPT_CHOICE, OFF(meas.sync), 0, 0, "0|1", NULL, "0",
     "nccl-tests: 1 waits for every rank after each call (--sync barrier), 0 back to back", 0,
     false, NULL},
    {"average", 'a', FAB_OPT_CHOICE, OFF(out.average), 0, 0, "0|1|2|3", NULL, "1",
     "nccl-tests formats: the time reported: 0 rank 0's, 1 the mean over ranks, 2 the least, 3 "
     "the largest (of each rank's mean per call); refused without --format nccl-tests|nccl-json",
     0, false, NULL},
    {"inplace", 0, FAB_OPT_CHOICE, OFF(nccl.inplace), 0, 0, "auto|off|on|both", NULL, "auto",
     "collectives with an in-place variant (allreduce, reduce, reduce_scatter, allgather, "
     "alltoall; not bcast: MPI_Bcast has none): MPI_IN_PLACE (on), the usual separate "
     "buffers (off), or both, each a kernel instance of its own (nccl-tests' two column "
     "groups); auto: both with --format nccl-tests or nccl-json, else off",
     0, false, NULL},
    {"format", 0, FAB_OPT_CHOICE, OFF(out.format), 0, 0, "table|nccl-tests|nccl-json", NULL,
     "table",
     "stdout: fabricbench's table, nccl-tests' table (size count type redop root, time algbw "
     "busbw #wrong out of place and in place), or nccl-tests' JSON document",
     0, false, NULL},
    {"help", 'h', FAB_OPT_FLAG, OFF(help), 0, 0, NULL, NULL, NULL, "this help", 0, false, NULL},
};

const int fab_opt_table_n = (int)(sizeof(fab_opt_table) / sizeof(fab_opt_table[0]));
