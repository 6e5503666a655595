/* SPDX-License-Identifier: BSD-3-Clause */
/* The command line: one typed option table serves the command line, FABRICBENCH_* environment
 * variables and `fabricbench run --help`. The harness's rows are in cli/option_table.c; a
 * kernel adds rows of its own (fab_kernel_t.options), which are parsed, listed and read from
 * the environment the same way. Every default is the table's `def`, parsed (core/opt.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kernel_list.h"
#include "output/ladder.h"
#include "cli/nccl_words.h"
#include "cli/option_table.h"
#include "cli/options.h"
#include "core/text.h"
#include "kernel/registry.h"
#include "kernel/traits.h"
#include "output/outputs.h"
#include "output/table.h"

#define FAB_MAX_ROWS  256
#define FAB_MAX_WORDS 1024
#define FAB_NHARNESS  fab_opt_table_n
#define OFF(field)    offsetof(fab_opts_t, field)

/* Every row with where its value lives: the harness's rows (in the fab_opts_t being parsed),
 * then each kernel's own (in the kernel's value struct), a row that kernels share once (a
 * kernel may take some rows of another's table: bw the incast's of the socket kernels'). */
typedef struct fab_optrow {
    const fab_opt_t *d;
    void *base;
    const char *owner;          /* "fabricbench" or the kernel's name */
    const fab_kernel_t *kernel; /* the first kernel that has it, NULL for the harness's */
} fab_optrow_t;

static fab_optrow_t fab_rows[FAB_MAX_ROWS];
static int fab_nrows;

static bool fab_row_is_help(const fab_optrow_t *r)
{
    return r->d == &fab_opt_table[FAB_NHARNESS - 1];
}

/* The rows, their values' places set for o (NULL: names only). Two rows of one name or short
 * name are a bug of the kernel that adds the second: FAB_ERR_INTERNAL, err names both. */
static fab_status_t fab_rows_from(fab_opts_t *o, const fab_kernel_t *const *kernels, int nkernels,
                                  char *err, size_t errlen)
{
    fab_nrows = 0;
    for (int i = 0; i < FAB_NHARNESS; i++)
        fab_rows[fab_nrows++] = (fab_optrow_t){&fab_opt_table[i], o, "fabricbench", NULL};
    for (int k = 0; k < nkernels; k++) {
        const fab_kernel_t *kn = kernels[k];

        for (int i = 0; i < fab_kopts(kn)->n; i++) {
            const fab_opt_t *d = &kn->options->rows[i];
            bool shared = false;

            for (int r = FAB_NHARNESS; r < fab_nrows && !shared; r++)
                shared = fab_rows[r].d == d && fab_rows[r].base == kn->options->values;
            for (int r = 0; r < fab_nrows && !shared; r++)
                if (strcmp(fab_rows[r].d->name, d->name) == 0 ||
                    (d->shortname && fab_rows[r].d->shortname == d->shortname)) {
                    snprintf(err, errlen,
                             "option --%s of kernel '%s' clashes with --%s of %s (a bug of the "
                             "kernel: rename its option)",
                             d->name, kn->name, fab_rows[r].d->name, fab_rows[r].owner);
                    return FAB_ERR_INTERNAL;
                }
            if (!shared && fab_nrows == FAB_MAX_ROWS) {
                snprintf(err, errlen, "more than %d options (kernels' included)", FAB_MAX_ROWS);
                return FAB_ERR_INTERNAL;
            }
            if (!shared)
                fab_rows[fab_nrows++] = (fab_optrow_t){d, kn->options->values, kn->name, kn};
        }
    }
    /* --help last, after the kernels' options */
    {
        fab_optrow_t help = fab_rows[FAB_NHARNESS - 1];

        memmove(&fab_rows[FAB_NHARNESS - 1], &fab_rows[FAB_NHARNESS],
                sizeof(fab_rows[0]) * (size_t)(fab_nrows - FAB_NHARNESS));
        fab_rows[fab_nrows - 1] = help;
    }
    return FAB_OK;
}

static fab_status_t fab_rows_build(fab_opts_t *o, char *err, size_t errlen)
{
    return fab_rows_from(o, fab_kernels, fab_nkernels, err, errlen);
}

fab_status_t fab_opts_check_kernels(const fab_kernel_t *const *kernels, int n, char *err,
                                    size_t errlen)
{
    return fab_rows_from(NULL, kernels, n, err, errlen);
}

/* Every value at its default: o cleared, then each row's `def`. */
static fab_status_t fab_opts_reset(fab_opts_t *o, char *err, size_t errlen)
{
    fab_status_t st;

    memset(o, 0, sizeof(*o));
    st = fab_rows_build(o, err, errlen);
    for (int i = 0; st == FAB_OK && i < fab_nrows; i++)
        if (!fab_row_is_help(&fab_rows[i]))
            fab_opt_default(fab_rows[i].d, fab_rows[i].base);
    return st;
}

void fab_opts_defaults(fab_opts_t *o)
{
    char err[256];

    if (fab_opts_reset(o, err, sizeof(err)) != FAB_OK)
        fprintf(stderr, "fabricbench: error: %s\n", err);
}

int fab_opts_count(void)
{
    char err[256];

    return fab_rows_build(NULL, err, sizeof(err)) == FAB_OK ? fab_nrows : 0;
}

const fab_opt_t *fab_opts_row(int i)
{
    return i >= 0 && i < fab_opts_count() ? fab_rows[i].d : NULL;
}

const char *fab_opts_name(int i)
{
    const fab_opt_t *d = fab_opts_row(i);

    return d ? d->name : NULL;
}

const fab_opt_t *fab_opts_harness(const char *name, size_t len)
{
    for (int i = 0; i < FAB_NHARNESS; i++)
        if (strlen(fab_opt_table[i].name) == len && strncmp(fab_opt_table[i].name, name, len) == 0)
            return &fab_opt_table[i];
    return NULL;
}

/* Options given (command line or environment) that change more than their value. */
static void fab_opts_given(fab_opts_t *o, const bool *set)
{
    for (int i = 0; i < fab_nrows; i++) {
        if (!set[i] || fab_rows[i].base != o)
            continue;
        if (fab_rows[i].d->offset == OFF(net.pml))
            o->net.pml_set = true;
        else if (fab_rows[i].d->offset == OFF(net.placement))
            o->net.placement_set = true;
        else if (fab_rows[i].d->offset == OFF(net.line_rate_gbps))
            o->net.line_rate_given = true;
        else if (fab_rows[i].d->offset == OFF(meas.window))
            o->meas.window_given = true;
    }
}

/* Whether kernel k takes the kernel option d (a row of its own table). */
static bool fab_kernel_takes(const fab_kernel_t *k, const fab_opt_t *d)
{
    const fab_kopts_t *ko = fab_kopts(k);

    for (int i = 0; i < ko->n; i++)
        if (&ko->rows[i] == d)
            return true;
    return false;
}

/* A kernel's option given for a run that measures no kernel that takes it has no effect: say
 * so in o->note, naming the kernels that take it (from the registry). */
static void fab_opts_unused(fab_opts_t *o, const bool *set)
{
    size_t at = strlen(o->note);

    for (int i = 0; i < fab_nrows; i++) {
        const fab_optrow_t *r = &fab_rows[i];
        bool used = false;
        int users = 0;

        if (!set[i] || !r->kernel)
            continue;
        for (int k = 0; k < o->launch.nkernels && !used; k++)
            used = fab_kernel_takes(o->launch.kernels[k].k, r->d);
        if (used)
            continue;
        for (int k = 0; k < fab_nkernels; k++)
            users += fab_kernel_takes(fab_kernels[k], r->d);
        fab_appendf(o->note, sizeof(o->note), &at, "%s--%s is an option of kernel%s",
                    at ? "; " : "", r->d->name, users > 1 ? "s" : "");
        for (int k = 0, n = 0; k < fab_nkernels; k++)
            if (fab_kernel_takes(fab_kernels[k], r->d))
                fab_appendf(o->note, sizeof(o->note), &at, "%s '%s'", n++ ? "," : "",
                            fab_kernels[k]->name);
        fab_appendf(o->note, sizeof(o->note), &at,
                    ", which this run does not measure: it has no effect");
    }
}

/* FABRICBENCH_SIZES=1:1M and friends; the command line overrides them. A bad value is
 * reported (row in *bad) only if the command line does not set that option itself. */
static void fab_opts_from_env(bool *set, int *bad, char *err, size_t errlen)
{
    *bad = -1;
    for (int i = 0; i < fab_nrows; i++) {
        const fab_optrow_t *r = &fab_rows[i];
        char var[64], msg[512];
        const char *val;
        bool on = true;
        fab_status_t st;

        if (fab_row_is_help(r))
            continue;
        fab_opt_env_name(r->d, var, sizeof(var));
        val = getenv(var);
        if (!val || !*val)
            continue;
        st = fab_opt_takes_value(r->d)
                 ? fab_opt_apply(r->d, r->base, val, msg, sizeof(msg))
                 : fab_opt_apply_env_flag(r->d, r->base, val, &on, msg, sizeof(msg));
        if (st == FAB_OK)
            set[i] = on;
        if (st != FAB_OK && *bad < 0) {
            snprintf(err, errlen, "%s (from environment variable %s)", msg, var);
            *bad = i;
        }
    }
}

/* FABRICBENCH_* variables that are not options: those this program reads (the test hooks,
 * docs/DEVELOPING.md, and the files that stand in for /proc and /sys in tests), then those of
 * the quick start script, the analysis and the test suite, which runs started from them see
 * (the first and every test hook recorded: they shaped the run). Any other is a mistake. */
static const char *const fab_env_other[] = {
    "FABRICBENCH_TEST_WRONG_OP",     "FABRICBENCH_TEST_CORRUPT",
    "FABRICBENCH_TEST_NB_CORRUPT",   "FABRICBENCH_CLOCKSOURCE_FILE",
    "FABRICBENCH_PROC_STAT",         "FABRICBENCH_PROC_LOADAVG",
    "FABRICBENCH_TEST_PAIRS_LOADED", "FABRICBENCH_TEST_SOCK_REFUSE",
    "FABRICBENCH_TEST_STOP_AT",      "FABRICBENCH_TEST_PEERS_DROP",
    "FABRICBENCH_TEST_LAG",       /* a lagging rank: what --sync barrier changes */
    "FABRICBENCH_TEST_LIBNBC",    /* whether libnbc's progress is registered (core/comm.h) */
    "FABRICBENCH_TEST_FSIZE",     /* a small file-size limit after MPI_Init (core/testhook.h) */
    "FABRICBENCH_TEST_PROBE_OWN", /* the UCX probe's own context (net/transport_probe.c) */
    "FABRICBENCH_TEST_RMA_NOOP",  /* the one-sided kernels' faults (rma/rma_int.h) */
    "FABRICBENCH_TEST_RMA_REMOTE",   "FABRICBENCH_TEST_RMA_SLOW",
    "FABRICBENCH_TEST_RMA_STALL",    "FABRICBENCH_ARGS",
    "FABRICBENCH_TEST_FABRIC", /* fixture trees for the fabric counters (core/testhook.h) */
    "FABRICBENCH_ANALYZE_DEBUG",     "FABRICBENCH_BUILD_DIR",
    "FABRICBENCH_ANALYZE_MAX_RUNS",  "FABRICBENCH_ANALYZE_MAX_KERNELS",
    "FABRICBENCH_ANALYZE_MAX_ROWS",  "FABRICBENCH_TEST_RMA_REF_SLEEP", /* rma/rma_int.h */
};
#define FAB_ENV_READ   14 /* the first ones of fab_env_other: read by this program */
#define FAB_ENV_NOTHER (int)(sizeof(fab_env_other) / sizeof(fab_env_other[0]))

/* The i-th FABRICBENCH_ name this program knows (the options', then fab_env_other's) into var;
 * false for a help row (no variable). */
static bool fab_env_known(int i, char *var, size_t len)
{
    if (i < fab_nrows && fab_row_is_help(&fab_rows[i]))
        return false;
    if (i < fab_nrows)
        fab_opt_env_name(fab_rows[i].d, var, len);
    else
        snprintf(var, len, "%s", fab_env_other[i - fab_nrows]);
    return true;
}

bool fab_env_ours(const char *name, size_t n)
{
    char var[64];

    for (int i = 0; i < fab_nrows + FAB_ENV_NOTHER; i++)
        if (fab_env_known(i, var, sizeof(var)) && strlen(var) == n && strncmp(var, name, n) == 0)
            return i < fab_nrows + FAB_ENV_READ || strncmp(var, "FABRICBENCH_TEST_", 17) == 0;
    return false;
}

/* An environment variable FABRICBENCH_* that is no option's and no other known one: an
 * error naming it and the closest known name. */
static fab_status_t fab_env_unknown(char *err, size_t errlen, char *hint, size_t hintlen)
{
    extern char **environ;

    for (char **e = environ; e && *e; e++) {
        char name[128], best[64] = "", var[64];
        size_t n = strcspn(*e, "="), bestd = (size_t)-1;
        bool known = false;

        if (strncmp(*e, "FABRICBENCH_", 12) != 0 || n >= sizeof(name))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)n, *e);
        for (int i = 0; i < fab_nrows + FAB_ENV_NOTHER; i++) {
            if (!fab_env_known(i, var, sizeof(var)))
                continue;
            known = known || strcmp(var, name) == 0;
            if (fab_edit_distance(name, var) < bestd) {
                bestd = fab_edit_distance(name, var);
                snprintf(best, sizeof(best), "%s", var);
            }
        }
        if (known)
            continue;
        snprintf(err, errlen, "unknown environment variable %s (no option reads it)", name);
        snprintf(hint, hintlen,
                 "%s%s%s %s; 'fabricbench run --help' lists the options, each also read from "
                 "FABRICBENCH_<NAME>",
                 bestd <= 3 ? "did you mean " : "", bestd <= 3 ? best : "",
                 bestd <= 3 ? "? Unset" : "unset", name);
        return FAB_ERR_USAGE;
    }
    return FAB_OK;
}

static int fab_opt_index(const char *name)
{
    for (int i = 0; i < fab_nrows; i++)
        if (strcmp(fab_rows[i].d->name, name) == 0)
            return i;
    return 0;
}

static const fab_optrow_t *fab_opt_find_long(const char *name, size_t len)
{
    for (int i = 0; i < fab_nrows; i++)
        if (strlen(fab_rows[i].d->name) == len && strncmp(fab_rows[i].d->name, name, len) == 0)
            return &fab_rows[i];
    return NULL;
}

static const fab_optrow_t *fab_opt_find_short(char c)
{
    for (int i = 0; i < fab_nrows; i++)
        if (fab_rows[i].d->shortname == c)
            return &fab_rows[i];
    return NULL;
}

fab_status_t fab_opts_table_check(const fab_opts_t *o, char *err, size_t errlen, char *hint,
                                  size_t hintlen)
{
    if (o->out.wide && o->out.columns) {
        snprintf(err, errlen, "--wide and --columns both choose the table's columns");
        snprintf(hint, hintlen, "give one: --wide for every column, --columns LIST for those");
        return FAB_ERR_USAGE;
    }
    return o->out.columns ? fab_text_columns_check(o->out.columns, err, errlen, hint, hintlen)
                          : FAB_OK;
}

static fab_status_t fab_opts_unknown(const char *a, char *err, size_t errlen, char *hint,
                                     size_t hintlen)
{
    snprintf(err, errlen, "unknown option '%s'", a);
    snprintf(hint, hintlen, "'fabricbench run --help' lists every option");
    return FAB_ERR_USAGE;
}

/* -qv: several flags in one word, each applied in turn; a help flag ends the parsing. */
static fab_status_t fab_opts_flags(const char *a, bool *set, fab_cmd_t *cmd, char *err,
                                   size_t errlen, char *hint, size_t hintlen)
{
    for (const char *c = a + 1; *c; c++) {
        const fab_optrow_t *d = fab_opt_find_short(*c);

        if (!d)
            return fab_opts_unknown(a, err, errlen, hint, hintlen);
        if (fab_opt_takes_value(d->d)) {
            snprintf(err, errlen, "option -%c in '%s' needs a value; give it separately", *c, a);
            snprintf(hint, hintlen, "'fabricbench run --help' lists every option");
            return FAB_ERR_USAGE;
        }
        if (fab_row_is_help(d)) {
            *cmd = FAB_CMD_RUN_HELP;
            return FAB_OK;
        }
        fab_opt_apply(d->d, d->base, NULL, err, errlen);
        set[d - fab_rows] = true;
    }
    return FAB_OK;
}

/* One argument of `run` (argv[*i]; *i moves past a separate value): the kernels, an option
 * (--name, --name=value, -n value, -nvalue) or flags (-qv). */
static fab_status_t fab_opts_arg(int argc, char **argv, int *i, bool *set, const char **kernels,
                                 fab_cmd_t *cmd, char *err, size_t errlen, char *hint,
                                 size_t hintlen)
{
    const char *a = argv[*i], *val = NULL;
    const fab_optrow_t *d;
    fab_status_t st;

    if (a[0] != '-' || a[1] == '\0') {
        if (*kernels) {
            snprintf(err, errlen, "unexpected argument '%s' (kernels were already given)", a);
            snprintf(hint, hintlen, "list kernels comma-separated: latency,bw");
            return FAB_ERR_USAGE;
        }
        *kernels = a;
        return FAB_OK;
    }
    if (a[1] == '-') {
        const char *eq = strchr(a + 2, '=');

        d = fab_opt_find_long(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
        if (eq)
            val = eq + 1;
    } else {
        d = fab_opt_find_short(a[1]);
        if (d && a[2] && !fab_opt_takes_value(d->d))
            return fab_opts_flags(a, set, cmd, err, errlen, hint, hintlen);
        if (d && a[2])
            val = a + 2;
    }
    if (!d)
        return fab_opts_unknown(a, err, errlen, hint, hintlen);
    if (fab_row_is_help(d)) {
        *cmd = FAB_CMD_RUN_HELP;
        return FAB_OK;
    }
    if (fab_opt_takes_value(d->d) && !val) {
        if (*i + 1 >= argc) {
            snprintf(err, errlen, "option '%s' needs a value (%s)", a, d->d->arg);
            snprintf(hint, hintlen, "'fabricbench run --help' shows each option's value");
            return FAB_ERR_USAGE;
        }
        val = argv[++*i];
    } else if (!fab_opt_takes_value(d->d) && val) {
        snprintf(err, errlen, "option '%s' takes no value", a);
        snprintf(hint, hintlen, "'fabricbench run --help' lists every option");
        return FAB_ERR_USAGE;
    }
    st = fab_opt_apply(d->d, d->base, val, err, errlen);
    if (st != FAB_OK) {
        snprintf(hint, hintlen, "'fabricbench run --help' shows the accepted values");
        return st;
    }
    set[d - fab_rows] = true;
    return FAB_OK;
}

/* Options of `run` that contradict each other or the outputs. */
static fab_status_t fab_opts_refuse(fab_opts_t *o, char *err, size_t errlen, char *hint,
                                    size_t hintlen)
{
    fab_status_t st;

    if (o->meas.overlap_us > 0 && !o->meas.nonblocking) {
        snprintf(err, errlen, "--overlap-compute needs --nonblocking");
        snprintf(hint, hintlen,
                 "add --nonblocking: the compute goes between the start of a "
                 "non-blocking collective and its wait");
        return FAB_ERR_USAGE;
    }
    st = fab_opts_table_check(o, err, errlen, hint, hintlen);
    if (st == FAB_OK)
        st = fab_kernel_list_split(o, err, errlen, hint, hintlen);
    if (st == FAB_OK && o->out.append && o->out.force) {
        snprintf(err, errlen, "--append and --force contradict each other");
        snprintf(hint, hintlen, "--append adds a run to the file, --force replaces it: pick one");
        st = FAB_ERR_USAGE;
    }
    if (st == FAB_OK && o->meas.min_iters > o->meas.max_iters) {
        snprintf(err, errlen, "--min-iters %ld is larger than --max-iters %ld", o->meas.min_iters,
                 o->meas.max_iters);
        snprintf(hint, hintlen, "make --min-iters at most --max-iters");
        st = FAB_ERR_USAGE;
    }
    if (st == FAB_OK)
        st = fab_outputs_check(&o->out, err, errlen, hint, hintlen);
    return st;
}

/* Options given that this run ignores, said in o->note. */
static void fab_opts_ignored(fab_opts_t *o, const bool *set)
{
    if (o->meas.iters > 0 && set[fab_opt_index("time")])
        snprintf(o->note, sizeof(o->note), "-t/--time is ignored: -i fixes the iterations");
    if (!o->meas.adaptive && (set[fab_opt_index("budget")] || set[fab_opt_index("precision")] ||
                              set[fab_opt_index("pair-time")]))
        snprintf(o->note, sizeof(o->note),
                 "--budget, --precision and --pair-time are ignored: %s fixes the "
                 "measurement",
                 o->meas.iters > 0 ? "-i" : "--time");
    fab_opts_unused(o, set);
}

/* --pair given for a pair kernel that its own options put on every rank (bw --pattern incast,
 * the one-sided kernels' --rma-pattern): it would ignore --pair. Refused, naming the kernel and
 * those of its options given. */
static fab_status_t fab_opts_pair(const fab_opts_t *o, const bool *set, char *err, size_t errlen,
                                  char *hint, size_t hintlen)
{
    for (int k = 0; set[fab_opt_index("pair")] && k < o->launch.nkernels; k++) {
        const fab_kernel_t *kn = o->launch.kernels[k].k;
        char given[256] = "", v[128];
        size_t at = 0;

        if (kn->ranks != FAB_RANKS_PAIR || fab_kranks(kn) == FAB_RANKS_PAIR)
            continue;
        for (int i = 0; i < fab_nrows; i++)
            if (set[i] && fab_rows[i].kernel && fab_kernel_takes(kn, fab_rows[i].d)) {
                fab_opt_format(fab_rows[i].d, fab_rows[i].base, v, sizeof(v));
                fab_appendf(given, sizeof(given), &at, "%s--%s %s", at ? " " : "",
                            fab_rows[i].d->name, v);
            }
        snprintf(err, errlen,
                 "--pair %d,%d chooses the two ranks of a pair kernel, and %s runs on every rank "
                 "under %s: it would ignore --pair",
                 o->meas.pair.a, o->meas.pair.b, kn->name, at ? given : "its options");
        snprintf(hint, hintlen,
                 "leave --pair out (those options choose %s's ranks), or measure the pair in a "
                 "run without them",
                 kn->name);
        return FAB_ERR_USAGE;
    }
    return fab_opts_pair_unused(o, set[fab_opt_index("pair")], err, errlen, hint, hintlen);
}

/* nccl-tests' words into the measurement (cli/nccl_words.c). */
static fab_status_t fab_opts_nccl(fab_opts_t *o, const bool *set, char *err, size_t errlen,
                                  char *hint, size_t hintlen)
{
    fab_nccl_given_t g = {
        .sizes = set[fab_opt_index("sizes")],
        .stepfactor = set[fab_opt_index("stepfactor")],
        .stepbytes = set[fab_opt_index("stepbytes")],
        .dtype = set[fab_opt_index("dtype")],
        .datatype = set[fab_opt_index("datatype")],
        .average = set[fab_opt_index("average")],
    };

    g.sweep = g.stepfactor || g.stepbytes || set[fab_opt_index("minbytes")] ||
              set[fab_opt_index("maxbytes")];
    return fab_nccl_apply(o, &g, err, errlen, hint, hintlen);
}

fab_status_t fab_opts_parse(int argc, char **argv, fab_cmd_t *cmd, fab_opts_t *o, char *err,
                            size_t errlen, char *hint, size_t hintlen)
{
    static char *words[FAB_MAX_WORDS]; /* argv in fabricbench's words (cli/nccl_words.c) */
    int nwords = 0;
    const char *kernels = NULL;
    char env_err[768] = "";
    bool set[FAB_MAX_ROWS] = {false};
    int env_bad = -1;
    fab_status_t st;

    *cmd = FAB_CMD_NONE;
    err[0] = hint[0] = '\0';
    st = fab_opts_reset(o, err, errlen);
    if (st != FAB_OK)
        return st;
    if (argc < 2) {
        snprintf(err, errlen, "no command given");
        snprintf(hint, hintlen, "try 'fabricbench run' or 'fabricbench --help'");
        return FAB_ERR_USAGE;
    }
    st = fab_opts_command(argc, argv, cmd, o, err, errlen, hint, hintlen);
    if (st != FAB_OK || *cmd != FAB_CMD_RUN)
        return st;
    fab_opts_from_env(set, &env_bad, env_err, sizeof(env_err));
    st = fab_nccl_words(argc, argv, words, FAB_MAX_WORDS, &nwords, err, errlen, hint, hintlen);
    for (int i = 2; i < nwords && st == FAB_OK && *cmd == FAB_CMD_RUN; i++)
        st = fab_opts_arg(nwords, words, &i, set, &kernels, cmd, err, errlen, hint, hintlen);
    if (st != FAB_OK || *cmd != FAB_CMD_RUN)
        return st;
    fab_opts_given(o, set);
    st = fab_env_unknown(err, errlen, hint, hintlen);
    if (st != FAB_OK)
        return st;
    if (env_bad >= 0 && !set[env_bad]) {
        snprintf(err, errlen, "%s", env_err);
        snprintf(hint, hintlen, "fix or unset that variable; see 'fabricbench run --help'");
        return FAB_ERR_USAGE;
    }
    st =
        fab_kernel_list_parse(kernels ? kernels : FAB_DEFAULT_SUITE, o, err, errlen, hint, hintlen);
    if (st == FAB_OK)
        st = fab_kernel_list_expand(o, err, errlen, hint, hintlen);
    if (st == FAB_OK && o->launch.ladder && o->meas.sizes.n == 0)
        st = fab_sizes_parse(FAB_LADDER_SIZES, &o->meas.sizes, err, errlen);
    if (st == FAB_OK)
        st = fab_opts_nccl(o, set, err, errlen, hint, hintlen);
    if (st == FAB_OK)
        st = fab_opts_pair(o, set, err, errlen, hint, hintlen);
    /* --overlap-compute measures the call alone first, with the same iterations: --time */
    o->meas.adaptive = o->meas.iters == 0 && !set[fab_opt_index("time")] && o->meas.overlap_us == 0;
    if (st == FAB_OK)
        st = fab_opts_refuse(o, err, errlen, hint, hintlen);
    if (st == FAB_OK)
        fab_opts_ignored(o, set);
    return st;
}
