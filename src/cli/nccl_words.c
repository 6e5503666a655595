/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl-tests' words on fabricbench's command line (cli/nccl_words.h): the letters that
 * mean something else to fabricbench (-i -w -o -c -t -m; -g is nccl-tests' alone) read as
 * nccl-tests reads them after --nccl-tests, refused where they would be ambiguous without it,
 * and -b/-e/-f/--stepbytes, -d, --check turned into the measurement's sizes, type and
 * validation. docs/METRICS.md, "nccl-tests' options", has the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/nccl_words.h"
#include "core/sizes.h"
#include "kernel/dtype.h"
#include "kernel/registry.h"
#include "kernel/traits.h"

/* nccl-tests' letters that fabricbench uses otherwise, and what they become with --nccl-tests
 * (NULL: refused, or -t/-g: the value must be 1, one rank per process). */
static const struct fab_nccl_letter {
    char c;
    const char *nccl;   /* the long option it becomes with --nccl-tests */
    const char *ours;   /* fabricbench's meaning, for the messages */
    const char *theirs; /* nccl-tests' */
} fab_nccl_letters[] = {
    {'i', "--stepbytes", "--iterations", "--stepbytes"},
    {'w', "--warmup_iters", "--window", "--warmup_iters"},
    {'o', "--op", "--output (the HDF5 file)", "--op"},
    {'c', "--check", "--validate (a flag)", "--check N"},
    {'t', NULL, "--time", "--nthreads"},
    {'g', NULL, "nothing", "--ngpus"},
    {'m', NULL, "--sizes", "--agg_iters"},
};
#define FAB_NCCL_NLETTERS ((int)(sizeof(fab_nccl_letters) / sizeof(fab_nccl_letters[0])))
/* nccl-tests' letters that fabricbench took with their meaning (-b -e -f -n -d -z -a; -r, its
 * --root before, says nothing): a line with one of them is written in nccl-tests' words. */
static const char fab_nccl_only[] = "befndza";

static const struct fab_nccl_type {
    const char *name;
    int id; /* FAB_DT_* */
} fab_nccl_types[] = {
    {"float", FAB_DT_FLOAT32},   {"float32", FAB_DT_FLOAT32},   {"double", FAB_DT_FLOAT64},
    {"float64", FAB_DT_FLOAT64}, {"int32", FAB_DT_INT32},       {"half", FAB_DT_FLOAT16},
    {"float16", FAB_DT_FLOAT16}, {"bfloat16", FAB_DT_BFLOAT16}, {"int8", FAB_DT_INT8},
    {"uint8", FAB_DT_UINT8},     {"uint32", FAB_DT_UINT32},     {"int64", FAB_DT_INT64},
    {"uint64", FAB_DT_UINT64},
};

static const struct fab_nccl_type *fab_nccl_type(const char *val)
{
    for (size_t i = 0; i < sizeof(fab_nccl_types) / sizeof(fab_nccl_types[0]); i++)
        if (strcmp(val, fab_nccl_types[i].name) == 0)
            return &fab_nccl_types[i];
    return NULL;
}

fab_status_t fab_nccl_datatype_check(const char *val, char *err, size_t errlen)
{
    if (fab_nccl_type(val))
        return FAB_OK;
    snprintf(err, errlen,
             "'%s' is not a type nccl-tests names (float, float32, double, float64, int32, "
             "half, float16, bfloat16, int8, uint8, uint32, int64, uint64)",
             val);
    return FAB_ERR_USAGE;
}

static const struct fab_nccl_letter *fab_nccl_letter(const char *a)
{
    if (a[0] != '-' || a[1] == '-' || a[1] == '\0')
        return NULL;
    for (int i = 0; i < FAB_NCCL_NLETTERS; i++)
        if (fab_nccl_letters[i].c == a[1])
            return &fab_nccl_letters[i];
    return NULL;
}

static bool fab_nccl_is_only(const char *a)
{
    return a[0] == '-' && a[1] != '\0' && a[1] != '-' && strchr(fab_nccl_only, a[1]) != NULL;
}

static bool fab_is_reduction(const char *v)
{
    return v && (strcmp(v, "sum") == 0 || strcmp(v, "prod") == 0 || strcmp(v, "min") == 0 ||
                 strcmp(v, "max") == 0 || strcmp(v, "avg") == 0);
}

/* Without --nccl-tests: a clashing letter beside nccl-tests' own ones (or -o with a reduction
 * after it) is ambiguous: refused, naming both meanings. */
static fab_status_t fab_nccl_ambiguous(int argc, char **argv, char *err, size_t errlen, char *hint,
                                       size_t hintlen)
{
    const char *only = NULL;

    for (int i = 2; i < argc && !only; i++)
        if (fab_nccl_is_only(argv[i]))
            only = argv[i];
    for (int i = 2; i < argc; i++) {
        const struct fab_nccl_letter *l = fab_nccl_letter(argv[i]); /* then 2 letters at least */
        const char *val = !l ? NULL : argv[i][2] ? argv[i] + 2 : i + 1 < argc ? argv[i + 1] : NULL;

        if (!l || (!only && !(l->c == 'o' && fab_is_reduction(val))))
            continue;
        snprintf(err, errlen,
                 "'%s' is ambiguous: fabricbench reads -%c as %s, nccl-tests as %s%s%s%s", argv[i],
                 l->c, l->ours, l->theirs, only ? " (and this line has nccl-tests' " : "",
                 only ? only : "", only ? ")" : "");
        snprintf(hint, hintlen,
                 "add --nccl-tests to read -i -w -o -c -t -g -m as nccl-tests does, or write the "
                 "long option (%s or %s)",
                 l->ours, l->theirs);
        return FAB_ERR_USAGE;
    }
    return FAB_OK;
}

/* With --nccl-tests: arg i, a clashing letter, as nccl-tests' long option into out (its value
 * as the next word when it was joined to the letter); *n counts out's words. */
static fab_status_t fab_nccl_word(int argc, char **argv, int *i, char **out, int *n, char *err,
                                  size_t errlen, char *hint, size_t hintlen)
{
    const struct fab_nccl_letter *l = fab_nccl_letter(argv[*i]);
    const char *val = argv[*i][2] ? argv[*i] + 2 : *i + 1 < argc ? argv[*i + 1] : NULL;

    if (l->nccl) {
        out[(*n)++] = (char *)l->nccl;
        if (argv[*i][2])
            out[(*n)++] = argv[*i] + 2;
        return FAB_OK;
    }
    if (l->c != 'm' && val && strcmp(val, "1") == 0) {
        *i += argv[*i][2] ? 0 : 1; /* one thread, one device per rank: what fabricbench does */
        return FAB_OK;
    }
    if (l->c == 'm')
        snprintf(err, errlen, "-m (nccl-tests' --agg_iters) has no equivalent in fabricbench");
    else
        snprintf(err, errlen,
                 "-%c %s (nccl-tests' %s): fabricbench runs one rank per process, so only "
                 "-%c 1",
                 l->c, val ? val : "", l->theirs, l->c);
    snprintf(hint, hintlen, "start more ranks with mpirun -np or srun -n instead");
    return FAB_ERR_USAGE;
}

fab_status_t fab_nccl_words(int argc, char **argv, char **out, int outmax, int *outc, char *err,
                            size_t errlen, char *hint, size_t hintlen)
{
    bool mode = false;
    const char *env;
    fab_status_t st = FAB_OK;

    *outc = 0;
    for (int i = 2; i < argc; i++)
        mode = mode || strcmp(argv[i], "--nccl-tests") == 0;
    env = getenv("FABRICBENCH_NCCL_TESTS"); /* the option's variable switches them too */
    mode = mode || (env && (strcmp(env, "1") == 0 || strcmp(env, "yes") == 0 ||
                            strcmp(env, "true") == 0 || strcmp(env, "on") == 0));
    if (2 * argc > outmax) {
        snprintf(err, errlen, "more than %d arguments", outmax / 2);
        snprintf(hint, hintlen, "give fewer");
        return FAB_ERR_USAGE;
    }
    if (!mode)
        st = fab_nccl_ambiguous(argc, argv, err, errlen, hint, hintlen);
    for (int i = 0; i < argc && st == FAB_OK; i++) {
        if (mode && i >= 2 && fab_nccl_letter(argv[i]))
            st = fab_nccl_word(argc, argv, &i, out, outc, err, errlen, hint, hintlen);
        else
            out[(*outc)++] = argv[i];
    }
    return st;
}

/* The sweep -b/-e with -f (each size f times the last) or --stepbytes (that far apart), the
 * largest size included, as nccl-tests makes it. */
static fab_status_t fab_nccl_sizes(fab_opts_t *o, char *err, size_t errlen, char *hint,
                                   size_t hintlen)
{
    const fab_ncclopts_t *n = &o->nccl;
    fab_sizes_t *s = &o->meas.sizes;

    if (n->minbytes > n->maxbytes) {
        snprintf(err, errlen, "-b/--minbytes %zu is larger than -e/--maxbytes %zu", n->minbytes,
                 n->maxbytes);
        snprintf(hint, hintlen, "nccl-tests' defaults are both 32M: give -e too");
        return FAB_ERR_USAGE;
    }
    s->n = 0;
    for (size_t b = n->minbytes; b <= n->maxbytes && s->n<FAB_MAX_SIZES; b = n->stepfactor> 1
                                     ? b * (size_t)n->stepfactor
                                     : b + n->stepbytes)
        s->v[s->n++] = b;
    if (s->n == FAB_MAX_SIZES &&
        (n->stepfactor > 1 ? s->v[s->n - 1] * (size_t)n->stepfactor
                           : s->v[s->n - 1] + n->stepbytes) <= n->maxbytes) {
        snprintf(err, errlen, "-b %zu -e %zu makes more than %d sizes", n->minbytes, n->maxbytes,
                 FAB_MAX_SIZES);
        snprintf(hint, hintlen, "use a factor (-f 2) or a larger --stepbytes");
        return FAB_ERR_USAGE;
    }
    return FAB_OK;
}

/* The refusal's hint: the collectives with an in-place variant (kcoll.inplace), from the
 * registry; the others (bcast: MPI_Bcast has no MPI_IN_PLACE form) have none. */
static void fab_nccl_inplace_hint(char *hint, size_t hintlen)
{
    size_t n = (size_t)snprintf(hint, hintlen, "collectives with one:");

    for (int j = 0; j < fab_nkernels && n < hintlen; j++)
        if (fab_kernels[j]->kind == FAB_KIND_COLLECTIVE && fab_kcoll(fab_kernels[j])->inplace)
            n += (size_t)snprintf(hint + n, hintlen - n, " %s", fab_kernels[j]->name);
    if (n < hintlen)
        snprintf(hint + n, hintlen - n, "; or leave --inplace out");
}

/* --inplace: each instance of a collective with an in-place variant as asked: in place, or
 * followed by its in-place twin (both; auto with an nccl-tests format). */
static fab_status_t fab_nccl_inplace(fab_opts_t *o, char *err, size_t errlen, char *hint,
                                     size_t hintlen)
{
    fab_launchopts_t *l = &o->launch;
    int mode = o->nccl.inplace, any = 0;

    if (mode == FAB_INPLACE_AUTO)
        mode = o->out.format == FAB_FORMAT_TABLE ? FAB_INPLACE_OFF : FAB_INPLACE_BOTH;
    for (int i = 0; i < l->nkernels && mode != FAB_INPLACE_OFF; i++) {
        if (!fab_kcoll(l->kernels[i].k)->inplace)
            continue;
        any++;
        if (mode == FAB_INPLACE_ON) {
            l->kernels[i].inplace = true;
            continue;
        }
        if (l->nkernels == FAB_MAX_KERNELS) {
            snprintf(err, errlen, "--inplace both: more than %d kernel instances", FAB_MAX_KERNELS);
            snprintf(hint, hintlen, "give fewer kernels, or --inplace on or off");
            return FAB_ERR_USAGE;
        }
        memmove(&l->kernels[i + 2], &l->kernels[i + 1],
                sizeof(l->kernels[0]) * (size_t)(l->nkernels - i - 1));
        l->kernels[i + 1] = l->kernels[i];
        l->kernels[++i].inplace = true;
        l->nkernels++;
    }
    if (!any && (o->nccl.inplace == FAB_INPLACE_ON || o->nccl.inplace == FAB_INPLACE_BOTH)) {
        snprintf(err, errlen, "--inplace %s: no kernel of this run has an in-place variant",
                 o->nccl.inplace == FAB_INPLACE_ON ? "on" : "both");
        fab_nccl_inplace_hint(hint, hintlen);
        return FAB_ERR_USAGE;
    }
    return FAB_OK;
}

static bool fab_uses_op(const fab_kernel_t *k)
{
    return fab_kcoll(k)->uses_op;
}

static bool fab_uses_dtype(const fab_kernel_t *k)
{
    return fab_kcoll(k)->uses_dtype;
}

/* Whether a kernel of the run takes an option (uses); if none does, the hint lists those of
 * the registry that do, after `what` and before "; or leave OPT out". */
static bool fab_nccl_used(const fab_opts_t *o, bool (*uses)(const fab_kernel_t *), const char *what,
                          const char *opt, char *hint, size_t hintlen)
{
    size_t n;

    for (int i = 0; i < o->launch.nkernels; i++)
        if (uses(o->launch.kernels[i].k))
            return true;
    n = (size_t)snprintf(hint, hintlen, "%s:", what);
    for (int j = 0; j < fab_nkernels && n < hintlen; j++)
        if (uses(fab_kernels[j]))
            n += (size_t)snprintf(hint + n, hintlen - n, " %s", fab_kernels[j]->name);
    if (n < hintlen)
        snprintf(hint + n, hintlen - n, "; or leave %s out", opt);
    return false;
}

/* --op other than sum with no reducing kernel in the run (latency, bcast, allgather, ...): it
 * would change nothing, and a run of `bcast --op avg` would look averaged. Refused, naming the
 * kernels it applies to (kcoll.uses_op, from the registry); nccl-tests' formats keep
 * nccl-tests' way (its -o is accepted by every collective's binary). */
static fab_status_t fab_nccl_op(const fab_opts_t *o, char *err, size_t errlen, char *hint,
                                size_t hintlen)
{
    if (o->meas.op == FAB_OP_SUM || o->out.format != FAB_FORMAT_TABLE ||
        fab_nccl_used(o, fab_uses_op, "kernels with a reduction", "--op", hint, hintlen))
        return FAB_OK;
    snprintf(err, errlen, "--op %s: no kernel of this run reduces, so it would have no effect",
             fab_op_name(o->meas.op));
    return FAB_ERR_USAGE;
}

/* --dtype (or nccl-tests' -d) with no kernel of the run that has elements (latency, bw, the
 * one-sided, UCP and socket kernels move bytes): it would change nothing. Refused like --op,
 * naming the kernels it applies to (kcoll.uses_dtype, from the registry); nccl-tests' formats
 * keep nccl-tests' way (its -d is accepted by every binary). */
static fab_status_t fab_nccl_dtype(const fab_opts_t *o, const fab_nccl_given_t *g, char *err,
                                   size_t errlen, char *hint, size_t hintlen)
{
    if ((!g->dtype && !g->datatype) || o->out.format != FAB_FORMAT_TABLE ||
        fab_nccl_used(o, fab_uses_dtype, "kernels with an element type",
                      g->dtype ? "--dtype" : "-d", hint, hintlen))
        return FAB_OK;
    snprintf(err, errlen,
             "%s %s: no kernel of this run has an element type, so it would have no "
             "effect",
             g->dtype ? "--dtype" : "-d/--datatype",
             g->dtype ? fab_dtype_name(o->meas.dtype) : o->nccl.datatype);
    return FAB_ERR_USAGE;
}

fab_status_t fab_nccl_apply(fab_opts_t *o, const fab_nccl_given_t *g, char *err, size_t errlen,
                            char *hint, size_t hintlen)
{
    if (g->sweep && g->sizes) {
        snprintf(err, errlen, "-m/--sizes and nccl-tests' -b/-e/-f/--stepbytes both choose sizes");
        snprintf(hint, hintlen, "give one: -m 8:1M, or -b 8 -e 1M -f 2");
        return FAB_ERR_USAGE;
    }
    if (g->stepfactor && g->stepbytes) {
        snprintf(err, errlen, "-f/--stepfactor and --stepbytes both space the sizes");
        snprintf(hint, hintlen, "give one of them, as nccl-tests asks");
        return FAB_ERR_USAGE;
    }
    if (g->datatype && g->dtype && fab_nccl_type(o->nccl.datatype)->id != o->meas.dtype) {
        snprintf(err, errlen, "-d/--datatype %s and --dtype %s disagree", o->nccl.datatype,
                 fab_dtype_name(o->meas.dtype));
        snprintf(hint, hintlen, "give one of them");
        return FAB_ERR_USAGE;
    }
    if (g->average && o->out.format == FAB_FORMAT_TABLE) { /* it would change nothing */
        snprintf(err, errlen,
                 "-a/--average chooses the time of nccl-tests' formats only, and this run "
                 "prints fabricbench's table: it would have no effect");
        snprintf(hint, hintlen,
                 "add --format nccl-tests (or nccl-json), or drop -a: fabricbench's table "
                 "and files report the slowest rank's time per call (time_us) and keep "
                 "osu_avg_us, imb_tmin_us, imb_tmax_us beside it");
        return FAB_ERR_USAGE;
    }
    if (g->datatype)
        o->meas.dtype = fab_nccl_type(o->nccl.datatype)->id;
    if (o->nccl.check > 0)
        o->meas.validate = true;
    if (g->sweep && fab_nccl_sizes(o, err, errlen, hint, hintlen) != FAB_OK)
        return FAB_ERR_USAGE;
    if (fab_nccl_dtype(o, g, err, errlen, hint, hintlen) != FAB_OK ||
        fab_nccl_op(o, err, errlen, hint, hintlen) != FAB_OK)
        return FAB_ERR_USAGE;
    return fab_nccl_inplace(o, err, errlen, hint, hintlen);
}
