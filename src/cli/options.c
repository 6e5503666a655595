/* One typed option table serves the command line, FABRICBENCH_* environment variables and
 * `fabricbench run --help`. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/options.h"
#include "core/opts.h"
#include "core/sizes.h"
#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "kernel/registry.h"
#include "fab_version.h"

#define FAB_DEFAULT_SUITE "latency,bw,bibw,msgrate"

typedef enum {
    FAB_OPT_FLAG,   /* bool, no argument */
    FAB_OPT_COUNT,  /* int, incremented, no argument */
    FAB_OPT_LONG,   /* long in [min, max] */
    FAB_OPT_INT,    /* int in [min, max] */
    FAB_OPT_DOUBLE, /* double in (min, max] */
    FAB_OPT_SIZES,
    FAB_OPT_PAIR,
    FAB_OPT_SIZE,   /* size_t, one size (4K, 25M) */
    FAB_OPT_CHOICE, /* int: the index of the value in `arg`, "a|b|c" */
    FAB_OPT_STRING, /* const char *, pointing into argv or the environment */
    FAB_OPT_RATE,   /* double, Gb/s: 100G, 25Gb/s, 800M, 56 */
} fab_opt_type_t;

typedef struct fab_opt {
    const char *name; /* --name; environment FABRICBENCH_NAME (dashes become underscores) */
    char shortname;
    fab_opt_type_t type;
    size_t offset;
    double min, max;
    const char *arg; /* what the value is, for help */
    const char *unit;
    const char *def; /* default, as help shows it */
    const char *help;
} fab_opt_t;

#define OFF(field) offsetof(fab_opts_t, field)

static const fab_opt_t fab_opt_table[] = {
    {"sizes", 'm', FAB_OPT_SIZES, OFF(sizes), 0, 0, "SIZES", "bytes", "1:4M, collectives 8:4M",
     "message sizes: MIN:MAX doubles from MIN (MAX included), or a list 8,1K,64K; K/M/G = 1024^n"},
    {"iterations", 'i', FAB_OPT_LONG, OFF(iters), 1, 1e9, "N", "iterations", "auto",
     "timed iterations per size; without it, --time decides"},
    {"warmup", 'x', FAB_OPT_LONG, OFF(warmup), 0, 1e9, "N", "iterations", "auto",
     "untimed iterations before each size (auto: i/10 with -i, else the calibration run)"},
    {"time", 't', FAB_OPT_DOUBLE, OFF(time_s), 0, 3600, "SEC", "s", "0.25",
     "time budget per size; iterations are chosen so each size takes about this long"},
    {"min-iters", 0, FAB_OPT_LONG, OFF(min_iters), 1, 1e9, "N", "iterations", "10",
     "fewest timed iterations per size under --time"},
    {"max-iters", 0, FAB_OPT_LONG, OFF(max_iters), 1, 1e9, "N", "iterations", "10000000",
     "most timed iterations per size under --time"},
    {"max-samples", 0, FAB_OPT_LONG, OFF(max_samples), 0, 1e8, "N", "samples", "1048576",
     "samples kept per size for exact percentiles; beyond, a histogram (error <= 0.2%)"},
    {"window", 'w', FAB_OPT_INT, OFF(window), 1, 65536, "N", "messages", "64",
     "messages in flight per iteration for bw, bibw, msgrate"},
    {"dtype", 0, FAB_OPT_CHOICE, OFF(dtype), 0, 0, "float32|float64|int32|bfloat16|float16", NULL,
     "float32", "element type of the collectives (bfloat16, float16: emulated, see METRICS.md)"},
    {"op", 0, FAB_OPT_CHOICE, OFF(op), 0, 0, "sum|max|min", NULL, "sum",
     "reduction of allreduce, reduce, reduce_scatter"},
    {"root", 0, FAB_OPT_INT, OFF(root), -1, 1e7, "N", "rank", "-1",
     "root of bcast and reduce; -1 rotates it every iteration"},
    {"nonblocking", 0, FAB_OPT_FLAG, OFF(nonblocking), 0, 0, NULL, NULL, "off",
     "collectives: MPI_Iallreduce and friends, started then waited for"},
    {"overlap-compute", 0, FAB_OPT_DOUBLE, OFF(overlap_us), 0, 1e7, "US", "us", "none",
     "with --nonblocking: synthetic compute between start and wait; reports overlap %"},
    {"params", 0, FAB_OPT_DOUBLE, OFF(params), 0, 1e13, "N", "parameters", "1e8",
     "gradsync: model parameters (a whole number, e.g. 7e9) whose gradient is synchronised"},
    {"bucket", 0, FAB_OPT_SIZE, OFF(bucket), 0, 0, "SIZE", "bytes", "25M",
     "gradsync: gradient bucket size (each bucket is one allreduce)"},
    {"inflight", 0, FAB_OPT_INT, OFF(inflight), 1, 1024, "K", "buckets", "1",
     "gradsync: buckets in flight (1: blocking MPI_Allreduce; more: MPI_Iallreduce)"},
    {"validate", 'c', FAB_OPT_FLAG, OFF(validate), 0, 0, NULL, NULL, "off",
     "after each size, send patterned data and check every received byte"},
    {"pair", 0, FAB_OPT_PAIR, 0, 0, 0, "A,B", "ranks", "0,1",
     "the two ranks latency, bw and bibw measure between; the others wait idle"},
    {"fabric", 0, FAB_OPT_STRING, OFF(fabric), 0, 0, "any|auto|ib|roce|erdma|tcp|shm", NULL, "any",
     "the fabric to measure (a profile in fabrics.conf, docs/FABRICS.md); any: UCX chooses; "
     "auto: the fastest active device"},
    {"device", 0, FAB_OPT_STRING, OFF(device), 0, 0, "NAME[:PORT]", NULL, "from --fabric",
     "the RDMA device and port (mlx5_0:1) or network interface (eth0) --fabric uses"},
    {"strict-fabric", 0, FAB_OPT_FLAG, OFF(strict_fabric), 0, 0, NULL, NULL, "off",
     "with --fabric: exit 3 (before measuring) when UCX would use another transport than the "
     "fabric on a measured pair, or UCX is not in use"},
    {"line-rate", 0, FAB_OPT_RATE, OFF(line_rate_gbps), 0, 1e6, "RATE", "Gb/s", "the port's",
     "data rate the efficiency column compares with (100G, 25Gb/s); default: the port in use"},
    {"placement", 0, FAB_OPT_CHOICE, OFF(placement), 0, 0, "auto|nic|numa|core|none", NULL, "auto",
     "bind ranks near the NIC (nic), across NUMA nodes, to cores, or not; auto: nic unless "
     "mpirun/srun bound them"},
    {"sysfs-root", 0, FAB_OPT_STRING, OFF(sysfs_root), 0, 0, "DIR", NULL, "/",
     "where the inventory reads sys/class/infiniband and sys/class/net (for fixture trees)"},
    {"fabrics-file", 0, FAB_OPT_STRING, OFF(fabrics_file), 0, 0, "FILE", NULL, "installed",
     "the fabric profile table (default: the fabrics.conf installed with fabricbench)"},
    {"pml", 0, FAB_OPT_CHOICE, OFF(pml), 0, 0, "ucx|ob1|env", NULL, "ucx",
     "Open MPI point-to-point layer: ucx, ob1, or env (leave it to mpirun/environment)"},
    {"timer", 0, FAB_OPT_CHOICE, OFF(timer), 0, 0, "auto|tsc|clock", NULL, "auto",
     "clock for per-iteration timestamps: tsc where the kernel uses it as clocksource, else "
     "CLOCK_MONOTONIC"},
    {"output", 'o', FAB_OPT_STRING, OFF(output), 0, 0, "FILE.h5", NULL, "auto",
     "HDF5 result file; auto: fabricbench-HOST-DATE[-jobID].h5 here; none: no file"},
    {"append", 0, FAB_OPT_FLAG, OFF(append), 0, 0, NULL, NULL, "off",
     "add this run to an existing result file (a new run group)"},
    {"force", 0, FAB_OPT_FLAG, OFF(force), 0, 0, NULL, NULL, "off",
     "replace an existing result file (without it, an existing file is refused)"},
    {"samples", 0, FAB_OPT_FLAG, OFF(samples), 0, 0, NULL, NULL, "off",
     "also store every size's per-iteration times (up to --max-samples) in the result file"},
    {"json", 0, FAB_OPT_STRING, OFF(json), 0, 0, "FILE", NULL, "none",
     "also write JSON Lines: a run record, one record per row, an end record"},
    {"csv", 0, FAB_OPT_STRING, OFF(csv), 0, 0, "FILE", NULL, "none",
     "also write CSV: a header line, one line per row"},
    {"quiet", 'q', FAB_OPT_FLAG, OFF(quiet), 0, 0, NULL, NULL, "off",
     "no progress lines on stderr"},
    {"verbose", 'v', FAB_OPT_COUNT, OFF(verbose), 0, 0, NULL, NULL, "0",
     "more log output on stderr (repeat for debug)"},
    {"help", 'h', FAB_OPT_FLAG, 0, 0, 0, NULL, NULL, NULL, "this help"},
};

#define FAB_NOPTS ((int)(sizeof(fab_opt_table) / sizeof(fab_opt_table[0])))

int fab_opts_count(void)
{
    return FAB_NOPTS;
}

const char *fab_opts_name(int i)
{
    return i >= 0 && i < FAB_NOPTS ? fab_opt_table[i].name : NULL;
}

void fab_opts_defaults(fab_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->iters = 0;
    o->warmup = -1;
    o->time_s = 0.25;
    o->min_iters = 10;
    o->max_iters = 10000000;
    o->max_samples = 1048576;
    o->window = 64;
    o->pair_a = 0;
    o->pair_b = 1;
    o->pml = FAB_PML_UCX;
    o->root = -1;
    o->params = 1e8;
    o->bucket = (size_t)25 << 20;
    o->inflight = 1;
}

static fab_status_t fab_parse_number(const fab_opt_t *d, const char *val, double *out, char *err,
                                     size_t errlen)
{
    char *end = NULL;
    double v;
    bool integer = d->type != FAB_OPT_DOUBLE;

    errno = 0;
    v = integer ? (double)strtoll(val, &end, 10) : strtod(val, &end);
    if (end == val || *end || errno == ERANGE || isnan(v)) {
        snprintf(err, errlen, "--%s: '%s' is not %s", d->name, val,
                 integer ? "a whole number" : "a number");
        return FAB_ERR_USAGE;
    }
    if (integer ? (v < d->min || v > d->max) : (v <= d->min || v > d->max)) {
        if (integer)
            snprintf(err, errlen, "--%s: %s is out of range (%.0f to %.0f %s)", d->name, val,
                     d->min, d->max, d->unit ? d->unit : "");
        else
            snprintf(err, errlen, "--%s: %s is out of range (more than %g, at most %g %s)", d->name,
                     val, d->min, d->max, d->unit ? d->unit : "");
        return FAB_ERR_USAGE;
    }
    *out = v;
    return FAB_OK;
}

/* `arg` lists the choices in the order of their enum values: "ucx|ob1|env". */
static fab_status_t fab_parse_choice(const fab_opt_t *d, const char *val, int *out, char *err,
                                     size_t errlen)
{
    size_t n = strlen(val);
    int i = 0;

    for (const char *p = d->arg; *p; i++) {
        size_t len = strcspn(p, "|");

        if (len == n && strncmp(p, val, n) == 0) {
            *out = i;
            return FAB_OK;
        }
        p += len + (p[len] == '|');
    }
    snprintf(err, errlen, "--%s: '%s' is not one of %s", d->name, val, d->arg);
    return FAB_ERR_USAGE;
}

/* A link rate: a number with an optional unit G, Gb/s, Gbit, M, Mb/s (plain: Gb/s). */
static fab_status_t fab_rate_option(const fab_opt_t *d, const char *val, double *out, char *err,
                                    size_t errlen)
{
    char *end = NULL;
    double v, scale = 1.0;

    errno = 0;
    v = strtod(val, &end);
    if (end != val && errno == 0) {
        if (*end == 'M' || *end == 'm') {
            scale = 1e-3;
            end++;
        } else if (*end == 'G' || *end == 'g') {
            end++;
        }
        if (strcmp(end, "b/s") == 0 || strcmp(end, "bit") == 0 || strcmp(end, "bps") == 0)
            end += strlen(end);
    }
    if (end == val || *end || errno || !(v > 0) || v * scale > d->max) {
        snprintf(err, errlen,
                 "--%s: '%s' is not a link rate (a positive number of Gb/s: 100G, 25Gb/s, "
                 "800M)",
                 d->name, val);
        return FAB_ERR_USAGE;
    }
    *out = v * scale;
    return FAB_OK;
}

static fab_status_t fab_opt_apply(const fab_opt_t *d, const char *val, fab_opts_t *o, char *err,
                                  size_t errlen)
{
    char *base = (char *)o + d->offset;
    double v;
    fab_status_t st = FAB_OK;
    char suberr[256];

    switch (d->type) {
    case FAB_OPT_FLAG:
        *(bool *)base = true;
        break;
    case FAB_OPT_COUNT:
        (*(int *)base)++;
        break;
    case FAB_OPT_LONG:
    case FAB_OPT_INT:
    case FAB_OPT_DOUBLE:
        st = fab_parse_number(d, val, &v, err, errlen);
        if (st != FAB_OK)
            break;
        if (d->type == FAB_OPT_LONG)
            *(long *)base = (long)v;
        else if (d->type == FAB_OPT_INT)
            *(int *)base = (int)v;
        else
            *(double *)base = v;
        break;
    case FAB_OPT_SIZES:
        st = fab_sizes_parse(val, (fab_sizes_t *)base, suberr, sizeof(suberr));
        if (st != FAB_OK)
            snprintf(err, errlen, "-m/--sizes: %s", suberr);
        break;
    case FAB_OPT_PAIR: {
        int a, b, n = -1;

        if (sscanf(val, "%d,%d%n", &a, &b, &n) != 2 || n < 0 || val[n] != '\0' || a < 0 || b < 0) {
            snprintf(err, errlen, "--pair: '%s' is not two rank numbers A,B", val);
            st = FAB_ERR_USAGE;
        } else if (a == b) {
            snprintf(err, errlen, "--pair: %s names rank %d twice; give two different ranks", val,
                     a);
            st = FAB_ERR_USAGE;
        } else {
            o->pair_a = a;
            o->pair_b = b;
        }
        break;
    }
    case FAB_OPT_SIZE:
        st = fab_size_parse(val, (size_t *)base, suberr, sizeof(suberr));
        if (st != FAB_OK)
            snprintf(err, errlen, "--%s: %s", d->name, suberr);
        break;
    case FAB_OPT_STRING:
        if (!*val) {
            snprintf(err, errlen, "--%s needs a value (%s)", d->name, d->arg);
            st = FAB_ERR_USAGE;
        } else {
            *(const char **)base = val;
        }
        break;
    case FAB_OPT_CHOICE:
        st = fab_parse_choice(d, val, (int *)base, err, errlen);
        if (st == FAB_OK && d->offset == OFF(pml))
            o->pml_set = true;
        if (st == FAB_OK && d->offset == OFF(placement))
            o->placement_set = true;
        break;
    case FAB_OPT_RATE:
        st = fab_rate_option(d, val, (double *)base, err, errlen);
        o->line_rate_given = st == FAB_OK;
        break;
    }
    return st;
}

static bool fab_opt_takes_value(const fab_opt_t *d)
{
    return d->type != FAB_OPT_FLAG && d->type != FAB_OPT_COUNT;
}

/* FABRICBENCH_SIZES=1:1M and friends; the command line overrides them. */
/* A flag or count from the environment: 1/yes/true/on, 0/no/false/off, or (counts) N. */
static fab_status_t fab_env_flag(const fab_opt_t *d, const char *val, fab_opts_t *o, char *err,
                                 size_t errlen)
{
    static const char *const on[] = {"1", "yes", "true", "on"}, *const off[] = {"0", "no", "false",
                                                                                "off"};
    char *end = NULL;
    long n;

    for (int i = 0; i < 4; i++)
        if (strcasecmp(val, off[i]) == 0)
            return FAB_OK;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(val, on[i]) == 0)
            return fab_opt_apply(d, NULL, o, err, errlen);
    n = strtol(val, &end, 10);
    if (d->type == FAB_OPT_COUNT && *end == '\0' && n >= 0 && n <= 9) {
        *(int *)((char *)o + d->offset) = (int)n;
        return FAB_OK;
    }
    snprintf(err, errlen, "--%s: '%s' is not one of 1, yes, true, on, 0, no, false, off%s", d->name,
             val, d->type == FAB_OPT_COUNT ? " or a count" : "");
    return FAB_ERR_USAGE;
}

/* FABRICBENCH_SIZES=1:1M and friends; the command line overrides them. A bad value is
 * reported (index in *bad) only if the command line does not set that option itself. */
static void fab_opts_from_env(fab_opts_t *o, int *bad, char *err, size_t errlen)
{
    *bad = -1;
    for (int i = 0; i < FAB_NOPTS; i++) {
        const fab_opt_t *d = &fab_opt_table[i];
        char var[64] = "FABRICBENCH_", msg[384];
        const char *val;
        size_t n = strlen(var);
        fab_status_t st;

        if (strcmp(d->name, "help") == 0)
            continue;
        for (const char *p = d->name; *p && n < sizeof(var) - 1; p++)
            var[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
        var[n] = '\0';
        val = getenv(var);
        if (!val || !*val)
            continue;
        st = fab_opt_takes_value(d) ? fab_opt_apply(d, val, o, msg, sizeof(msg))
                                    : fab_env_flag(d, val, o, msg, sizeof(msg));
        if (st != FAB_OK && *bad < 0) {
            snprintf(err, errlen, "%s (from environment variable %s)", msg, var);
            *bad = i;
        }
    }
}

static int fab_opt_index(const char *name)
{
    for (int i = 0; i < FAB_NOPTS; i++)
        if (strcmp(fab_opt_table[i].name, name) == 0)
            return i;
    return 0;
}

static const fab_opt_t *fab_opt_find_long(const char *name, size_t len)
{
    for (int i = 0; i < FAB_NOPTS; i++)
        if (strlen(fab_opt_table[i].name) == len && strncmp(fab_opt_table[i].name, name, len) == 0)
            return &fab_opt_table[i];
    return NULL;
}

static const fab_opt_t *fab_opt_find_short(char c)
{
    for (int i = 0; i < FAB_NOPTS; i++)
        if (fab_opt_table[i].shortname == c)
            return &fab_opt_table[i];
    return NULL;
}

static fab_status_t fab_kernels_parse(const char *list, fab_opts_t *o, char *err, size_t errlen,
                                      char *hint, size_t hintlen)
{
    char buf[512], *save = NULL;

    if (strlen(list) >= sizeof(buf) || !*list) {
        snprintf(err, errlen, "kernel list '%s' is empty or too long", list);
        snprintf(hint, hintlen,
                 "name kernels comma-separated, e.g. latency,bw ('fabricbench "
                 "list' shows them)");
        return FAB_ERR_USAGE;
    }
    strcpy(buf, list);
    if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,")) {
        snprintf(err, errlen, "kernel list '%s' has an empty entry", list);
        snprintf(hint, hintlen,
                 "name kernels comma-separated, e.g. latency,bw ('fabricbench "
                 "list' shows them)");
        return FAB_ERR_USAGE;
    }
    o->nkernels = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const fab_kernel_t *k = fab_kernel_find(tok);

        if (!k) {
            size_t n;

            snprintf(err, errlen, "unknown kernel '%s'", tok);
            n = (size_t)snprintf(hint, hintlen, "kernels are:");
            for (int i = 0; i < fab_nkernels && n < hintlen; i++)
                n += (size_t)snprintf(hint + n, hintlen - n, "%s %s", i ? "," : "",
                                      fab_kernels[i]->name);
            if (n < hintlen)
                snprintf(hint + n, hintlen - n, " ('fabricbench list' describes them)");
            return FAB_ERR_USAGE;
        }
        if (o->nkernels >= FAB_MAX_KERNELS) {
            snprintf(err, errlen, "too many kernels in one run (at most %d)", FAB_MAX_KERNELS);
            return FAB_ERR_USAGE;
        }
        o->kernels[o->nkernels++] = k;
    }
    return FAB_OK;
}

/* `inventory [--json] [--sysfs-root DIR]` and `placement [--ranks N] [--device NIC]
 * [--placement P] [--topology FILE.xml] [--json]`: a few options each, the run table's where
 * they are the same option (and its FABRICBENCH_* variables for those). */
static fab_status_t fab_subcommand_parse(int argc, char **argv, fab_cmd_t cmd, fab_opts_t *o,
                                         char *err, size_t errlen, char *hint, size_t hintlen)
{
    static const char *const inv[] = {"sysfs-root", "fabric", "device", "fabrics-file", NULL};
    static const char *const place[] = {"device", "placement", NULL};
    const char *const *mine = cmd == FAB_CMD_INVENTORY ? inv : place;
    const char *name = cmd == FAB_CMD_INVENTORY ? "inventory" : "placement";
    const char *usage = cmd == FAB_CMD_INVENTORY
                            ? "fabricbench inventory [--json] [--sysfs-root DIR] [--fabric NAME "
                              "[--device NAME[:PORT]] [--fabrics-file FILE]]"
                            : "fabricbench placement [--ranks N] [--device NIC] [--placement "
                              "auto|nic|numa|core|none] [--topology FILE.xml] [--json]";
    const char *env = getenv("FABRICBENCH_SYSFS_ROOT");

    if (env && *env)
        o->sysfs_root = env;
    o->place_ranks = 1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *val = NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const fab_opt_t *d = NULL;
        fab_status_t st;

        if (strcmp(a, "--json") == 0) {
            o->json_flag = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->sub_usage = usage;
            return FAB_OK;
        }
        if (strncmp(a, "--", 2) == 0) {
            for (int k = 0; mine[k]; k++)
                if (strlen(mine[k]) == len - 2 && strncmp(a + 2, mine[k], len - 2) == 0)
                    d = fab_opt_find_long(mine[k], len - 2);
        }
        if (d || (cmd == FAB_CMD_PLACEMENT && strncmp(a, "--ranks", len) == 0 && len == 7) ||
            (cmd == FAB_CMD_PLACEMENT && strncmp(a, "--topology", len) == 0 && len == 10)) {
            val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || !*val) {
                snprintf(err, errlen, "'%s' option '%.*s' needs a value", name, (int)len, a);
                snprintf(hint, hintlen, "%s", usage);
                return FAB_ERR_USAGE;
            }
        }
        if (d) {
            st = fab_opt_apply(d, val, o, err, errlen);
            if (st != FAB_OK) {
                snprintf(hint, hintlen, "%s", usage);
                return st;
            }
        } else if (val && len == 10) {
            o->topology = val;
        } else if (val) {
            char *end = NULL;
            long n = strtol(val, &end, 10);

            if (*end || n < 1 || n > 4096) {
                snprintf(err, errlen,
                         "'placement' option --ranks: '%s' is not a rank count "
                         "(1 to 4096)",
                         val);
                snprintf(hint, hintlen, "%s", usage);
                return FAB_ERR_USAGE;
            }
            o->place_ranks = (int)n;
        } else {
            snprintf(err, errlen, "'%s' does not take '%s'", name, a);
            snprintf(hint, hintlen, "%s", usage);
            return FAB_ERR_USAGE;
        }
    }
    return FAB_OK;
}

fab_status_t fab_opts_parse(int argc, char **argv, fab_cmd_t *cmd, fab_opts_t *o, char *err,
                            size_t errlen, char *hint, size_t hintlen)
{
    const char *kernels = NULL;
    char env_err[512] = "";
    bool set[FAB_NOPTS] = {false};
    int env_bad = -1;
    fab_status_t st;
    int i = 1;

    fab_opts_defaults(o);
    *cmd = FAB_CMD_NONE;
    err[0] = hint[0] = '\0';
    if (argc < 2) {
        snprintf(err, errlen, "no command given");
        snprintf(hint, hintlen, "try 'fabricbench run' or 'fabricbench --help'");
        return FAB_ERR_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        *cmd = FAB_CMD_HELP;
        return FAB_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        *cmd = FAB_CMD_VERSION;
        return FAB_OK;
    }
    if (strcmp(argv[1], "list") == 0) {
        *cmd = FAB_CMD_LIST;
        if (argc > 2) {
            snprintf(err, errlen, "'list' takes no arguments (got '%s')", argv[2]);
            snprintf(hint, hintlen, "run 'fabricbench list'");
            return FAB_ERR_USAGE;
        }
        return FAB_OK;
    }
    if (strcmp(argv[1], "show") == 0) {
        *cmd = FAB_CMD_SHOW;
        if (argc != 3 || argv[2][0] == '-') {
            snprintf(err, errlen, "'show' takes one result file");
            snprintf(hint, hintlen, "fabricbench show FILE.h5");
            return FAB_ERR_USAGE;
        }
        o->show_file = argv[2];
        return FAB_OK;
    }
    if (strcmp(argv[1], "inventory") == 0 || strcmp(argv[1], "placement") == 0) {
        *cmd = argv[1][0] == 'i' ? FAB_CMD_INVENTORY : FAB_CMD_PLACEMENT;
        return fab_subcommand_parse(argc, argv, *cmd, o, err, errlen, hint, hintlen);
    }
    if (strcmp(argv[1], "run") != 0) {
        snprintf(err, errlen, "unknown command '%s'", argv[1]);
        snprintf(hint, hintlen,
                 "commands are: run, list, show, inventory, placement (see 'fabricbench "
                 "--help')");
        return FAB_ERR_USAGE;
    }
    *cmd = FAB_CMD_RUN;
    fab_opts_from_env(o, &env_bad, env_err, sizeof(env_err));
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        const fab_opt_t *d;

        if (a[0] != '-' || a[1] == '\0') {
            if (kernels) {
                snprintf(err, errlen, "unexpected argument '%s' (kernels were already given)", a);
                snprintf(hint, hintlen, "list kernels comma-separated: latency,bw");
                return FAB_ERR_USAGE;
            }
            kernels = a;
            continue;
        }
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');

            d = fab_opt_find_long(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
            if (eq)
                val = eq + 1;
        } else {
            d = fab_opt_find_short(a[1]);
            if (d && a[2] && fab_opt_takes_value(d))
                val = a + 2;
            else if (d && a[2]) { /* -qv: several flags in one word */
                for (const char *c = a + 1; *c && d; c++) {
                    d = fab_opt_find_short(*c);
                    if (d && fab_opt_takes_value(d)) {
                        snprintf(err, errlen,
                                 "option -%c in '%s' needs a value; give it "
                                 "separately",
                                 *c, a);
                        snprintf(hint, hintlen, "'fabricbench run --help' lists every option");
                        return FAB_ERR_USAGE;
                    }
                    if (d && strcmp(d->name, "help") == 0) {
                        *cmd = FAB_CMD_RUN_HELP;
                        return FAB_OK;
                    }
                    if (d) {
                        fab_opt_apply(d, NULL, o, err, errlen);
                        set[d - fab_opt_table] = true;
                    }
                }
                if (d)
                    continue;
            }
        }
        if (!d) {
            snprintf(err, errlen, "unknown option '%s'", a);
            snprintf(hint, hintlen, "'fabricbench run --help' lists every option");
            return FAB_ERR_USAGE;
        }
        if (strcmp(d->name, "help") == 0) {
            *cmd = FAB_CMD_RUN_HELP;
            return FAB_OK;
        }
        if (fab_opt_takes_value(d) && !val) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "option '%s' needs a value (%s)", a, d->arg);
                snprintf(hint, hintlen, "'fabricbench run --help' shows each option's value");
                return FAB_ERR_USAGE;
            }
            val = argv[++i];
        } else if (!fab_opt_takes_value(d) && val) {
            snprintf(err, errlen, "option '%s' takes no value", a);
            snprintf(hint, hintlen, "'fabricbench run --help' lists every option");
            return FAB_ERR_USAGE;
        }
        st = fab_opt_apply(d, val, o, err, errlen);
        if (st != FAB_OK) {
            snprintf(hint, hintlen, "'fabricbench run --help' shows the accepted values");
            return st;
        }
        set[d - fab_opt_table] = true;
    }
    if (env_bad >= 0 && !set[env_bad]) {
        snprintf(err, errlen, "%s", env_err);
        snprintf(hint, hintlen, "fix or unset that variable; see 'fabricbench run --help'");
        return FAB_ERR_USAGE;
    }
    st = fab_kernels_parse(kernels ? kernels : FAB_DEFAULT_SUITE, o, err, errlen, hint, hintlen);
    if (st == FAB_OK && o->overlap_us > 0 && !o->nonblocking) {
        snprintf(err, errlen, "--overlap-compute needs --nonblocking");
        snprintf(hint, hintlen,
                 "add --nonblocking: the compute goes between the start of a "
                 "non-blocking collective and its wait");
        st = FAB_ERR_USAGE;
    }
    if (st == FAB_OK && o->append && o->force) {
        snprintf(err, errlen, "--append and --force contradict each other");
        snprintf(hint, hintlen, "--append adds a run to the file, --force replaces it: pick one");
        st = FAB_ERR_USAGE;
    }
    if (st == FAB_OK && o->iters > 0 && set[fab_opt_index("time")])
        snprintf(o->note, sizeof(o->note), "-t/--time is ignored: -i fixes the iterations");
    if (st == FAB_OK && o->min_iters > o->max_iters) {
        snprintf(err, errlen, "--min-iters %ld is larger than --max-iters %ld", o->min_iters,
                 o->max_iters);
        snprintf(hint, hintlen, "make --min-iters at most --max-iters");
        st = FAB_ERR_USAGE;
    }
    return st;
}

void fab_opts_print_help(FILE *f)
{
    fprintf(f,
            "fabricbench %s: MPI interconnect benchmark (latency, bandwidth, message rate,\n"
            "collectives)\n"
            "\n"
            "usage: mpirun -np 2 fabricbench run [KERNEL[,KERNEL...]] [options]\n"
            "       fabricbench list            the kernels, one line each\n"
            "       fabricbench show FILE.h5    print a result file's runs as tables\n"
            "       fabricbench inventory [--json] [--sysfs-root DIR] [--fabric NAME]\n"
            "                                   RDMA devices, ports, line rates, interfaces;\n"
            "                                   with --fabric: the device and settings it picks\n"
            "       fabricbench placement [--ranks N] [--device NIC] [--placement P]\n"
            "                             [--topology FILE.xml] [--json]\n"
            "                                   where ranks would be bound, near which NIC\n"
            "       fabricbench run --help      every run option with its default and unit\n"
            "       fabricbench --version\n"
            "\n"
            "Without kernels, 'run' runs the point-to-point suite: %s.\n"
            "Results go to stdout as a table with '#' header lines, and to an HDF5 file\n"
            "(-o; by default fabricbench-HOST-DATE.h5 here), written row by row so that a\n"
            "killed job keeps every completed row. Logs, progress and errors go to stderr;\n"
            "once MPI runs, each line names its rank and host: [rank N host]. SIGTERM,\n"
            "SIGINT and SIGUSR1 stop the run after the current block, keep the results and\n"
            "exit with 4.\n"
            "\n"
            "Exit codes: 0 measured, all checks passed; 1 measured, a check failed (--validate);\n"
            "            2 usage or configuration error, nothing measured; 3 environment error\n"
            "            (MPI, memory, writing results); 4 interrupted, partial results kept.\n",
            FAB_VERSION, FAB_DEFAULT_SUITE);
}

void fab_opts_print_run_help(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np N fabricbench run [KERNEL[,KERNEL...]] [options]\n\n"
            "Kernels (default %s):\n",
            FAB_DEFAULT_SUITE);
    for (int i = 0; i < fab_nkernels; i++)
        fprintf(f, "  %-15s %s\n", fab_kernels[i]->name, fab_kernels[i]->summary);
    fprintf(f, "\nOptions (each also read from FABRICBENCH_<NAME>, e.g. FABRICBENCH_SIZES;\n"
               "the command line wins):\n");
    for (int i = 0; i < FAB_NOPTS; i++) {
        const fab_opt_t *d = &fab_opt_table[i];
        char left[64];

        if (d->shortname)
            snprintf(left, sizeof(left), "-%c, --%s%s%s", d->shortname, d->name, d->arg ? " " : "",
                     d->arg ? d->arg : "");
        else
            snprintf(left, sizeof(left), "    --%s%s%s", d->name, d->arg ? " " : "",
                     d->arg ? d->arg : "");
        if (d->def)
            fprintf(f, "  %-28s [default: %s%s%s]\n", left, d->def, d->unit ? "; unit: " : "",
                    d->unit ? d->unit : "");
        else
            fprintf(f, "  %s\n", left);
        fprintf(f, "        %s\n", d->help);
    }
    fprintf(f, "\nSizes: K = 1024, M = 1024^2, G = 1024^3 bytes (1 to 1G per message). Reported\n"
               "units are decimal: us = 10^-6 s, MB/s = 10^6 B/s, Gb/s = 10^9 bit/s.\n"
               "Exit codes: 0 ok; 1 a check failed; 2 usage/configuration; 3 environment; "
               "4 interrupted.\n");
}
