/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel list of `fabricbench run LIST` (cli/kernel_list.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/kernel_list.h"
#include "core/text.h"
#include "kernel/registry.h"
#include "kernel/traits.h"
#include "output/ladder.h"

int fab_kernel_families(const char **names, int max)
{
    int n = 0;

    for (int i = 0; i < fab_nkernels; i++) {
        const char *f = fab_kernels[i]->family;
        bool seen = false;

        for (int j = 0; f && j < n && !seen; j++)
            seen = strcmp(names[j], f) == 0;
        if (f && !seen && n < max)
            names[n++] = f;
    }
    return n;
}

void fab_kernel_family_list(const char *f, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < fab_nkernels; i++)
        if (fab_kernels[i]->family && strcmp(fab_kernels[i]->family, f) == 0)
            fab_appendf(buf, len, &at, "%s%s", at ? "," : "", fab_kernels[i]->name);
}

static fab_status_t fab_kernel_list_add(const fab_kernel_t *k, const char *list, fab_opts_t *o,
                                        char *err, size_t errlen, char *hint, size_t hintlen);

void fab_kernel_families_print(FILE *f, const char *indent)
{
    const char *fam[FAB_MAX_KERNELS];
    int n = fab_kernel_families(fam, FAB_MAX_KERNELS);
    char kernels[1024];

    if (n > 0)
        fprintf(f, "\nFamilies ('run FAMILY' runs each of its kernels, in this order):\n");
    for (int i = 0; i < n; i++) {
        fab_kernel_family_list(fam[i], kernels, sizeof(kernels));
        fprintf(f, "%s%-15s %s\n", indent, fam[i], kernels);
    }
    fprintf(f,
            "\nThe layer ladder ('run ladder', 2 ranks: one pair through each layer, then per size "
            "each "
            "layer's\nlatency and bandwidth and what it adds over the layer it is compared with; "
            "a layer\nthis host cannot set up (a window no osc component makes) is named and "
            "left out;\nsizes %s "
            "without -m):\n%s%-15s %s\n",
            FAB_LADDER_SIZES, indent, "ladder", fab_ladder_kernels());
}

/* `run ladder`: the ladder's kernels (output/ladder.h) into the run's list, and the ladder
 * after them. */
static fab_status_t fab_kernel_list_ladder(const char *list, fab_opts_t *o, char *err,
                                           size_t errlen, char *hint, size_t hintlen)
{
    char buf[512], *save = NULL;
    fab_status_t st = FAB_OK;

    snprintf(buf, sizeof(buf), "%s", fab_ladder_kernels());
    for (char *t = strtok_r(buf, ",", &save); t && st == FAB_OK; t = strtok_r(NULL, ",", &save)) {
        const fab_kernel_t *k = fab_kernel_find(t);

        if (k) /* a build without UCX has no UCP kernels: that layer is then absent */
            st = fab_kernel_list_add(k, list, o, err, errlen, hint, hintlen);
    }
    o->launch.ladder = true;
    return st;
}

/* Kernel k into the run's list (each once, within FAB_MAX_KERNELS). */
static fab_status_t fab_kernel_list_add(const fab_kernel_t *k, const char *list, fab_opts_t *o,
                                        char *err, size_t errlen, char *hint, size_t hintlen)
{
    /* twice in a run, its rows would be two kernels of one name: files and the analysis tell a
     * kernel's rows apart by its name (and an instance's value) */
    for (int i = 0; i < o->launch.nkernels; i++)
        if (o->launch.kernels[i].k == k) {
            snprintf(err, errlen, "kernel list '%s' names %s twice%s", list, k->name,
                     k->family ? " (or it and its family)" : "");
            snprintf(hint, hintlen,
                     "give each kernel once; --repeat N measures the whole plan N times, "
                     "a list option (--streams 1,4) runs a kernel once per value");
            return FAB_ERR_USAGE;
        }
    if (o->launch.nkernels >= FAB_MAX_KERNELS) {
        snprintf(err, errlen, "too many kernels in one run (at most %d)", FAB_MAX_KERNELS);
        return FAB_ERR_USAGE;
    }
    o->launch.kernels[o->launch.nkernels++] = (fab_kinst_t){k, NAN, false};
    return FAB_OK;
}

/* The hint for an unknown name: the kernels, then the families. */
static void fab_kernel_list_names(char *hint, size_t hintlen)
{
    const char *fam[FAB_MAX_KERNELS];
    int nf = fab_kernel_families(fam, FAB_MAX_KERNELS);
    size_t n = 0;

    fab_appendf(hint, hintlen, &n, "kernels are:");
    for (int i = 0; i < fab_nkernels; i++)
        fab_appendf(hint, hintlen, &n, "%s %s", i ? "," : "", fab_kernels[i]->name);
    for (int i = 0; i < nf; i++)
        fab_appendf(hint, hintlen, &n, "%s %s", i ? "," : "; families:", fam[i]);
    fab_appendf(hint, hintlen, &n,
                "; the layer ladder: ladder ('fabricbench list' describes them)");
}

fab_status_t fab_kernel_list_parse(const char *list, fab_opts_t *o, char *err, size_t errlen,
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
    o->launch.nkernels = 0;
    o->launch.ladder = false;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const fab_kernel_t *k = fab_kernel_find(tok);
        bool family = false;
        fab_status_t st = FAB_OK;

        if (!k && strcmp(tok, "ladder") == 0) {
            st = fab_kernel_list_ladder(list, o, err, errlen, hint, hintlen);
            if (st != FAB_OK)
                return st;
            continue;
        }

        for (int i = 0; !k && i < fab_nkernels && st == FAB_OK; i++)
            if (fab_kernels[i]->family && strcmp(fab_kernels[i]->family, tok) == 0) {
                family = true;
                st = fab_kernel_list_add(fab_kernels[i], list, o, err, errlen, hint, hintlen);
            }
        if (k)
            st = fab_kernel_list_add(k, list, o, err, errlen, hint, hintlen);
        if (st != FAB_OK)
            return st;
        if (!k && !family) {
            snprintf(err, errlen, "unknown kernel '%s'", tok);
            fab_kernel_list_names(hint, hintlen);
            return FAB_ERR_USAGE;
        }
    }
    return FAB_OK;
}

/* The kernels' instances: a kernel with an axis option (fab_kernel_t.axis) runs once per
 * value of that option, each an instance with that value, in o->launch.kernels in the order the
 * values were given. */
fab_status_t fab_kernel_list_expand(fab_opts_t *o, char *err, size_t errlen, char *hint,
                                    size_t hintlen)
{
    fab_kinst_t given[FAB_MAX_KERNELS];
    int n = o->launch.nkernels;

    memcpy(given, o->launch.kernels, sizeof(given[0]) * (size_t)n);
    o->launch.nkernels = 0;
    for (int i = 0; i < n; i++) {
        const fab_kernel_t *k = given[i].k;
        const fab_kopts_t *ko = fab_kopts(k);
        const char *name = fab_kaxis_option(k);
        const fab_opt_t *axis = NULL;
        const fab_list_t *l;

        for (int j = 0; name && j < ko->n; j++)
            if (strcmp(ko->rows[j].name, name) == 0)
                axis = &ko->rows[j];
        if (!name) {
            if (o->launch.nkernels >= FAB_MAX_KERNELS)
                goto too_many;
            o->launch.kernels[o->launch.nkernels++] = (fab_kinst_t){k, NAN, false};
            continue;
        }
        if (!axis || (axis->type != FAB_OPT_INTS && axis->type != FAB_OPT_RATES &&
                      axis->type != FAB_OPT_WORDS)) {
            snprintf(err, errlen, "kernel %s: its axis '%s' is not one of its list options",
                     k->name, name);
            snprintf(hint, hintlen, "this is a bug in the kernel's descriptor; please report it");
            return FAB_ERR_INTERNAL;
        }
        l = (const fab_list_t *)((const char *)ko->values + axis->offset);
        for (int v = 0; v < l->n; v++) {
            if (o->launch.nkernels >= FAB_MAX_KERNELS)
                goto too_many;
            o->launch.kernels[o->launch.nkernels++] = (fab_kinst_t){k, l->v[v], false};
        }
    }
    return FAB_OK;
too_many:
    snprintf(err, errlen,
             "too many kernels in one run (at most %d, counting each value of a list option such "
             "as --streams 1,4,8 as one)",
             FAB_MAX_KERNELS);
    snprintf(hint, hintlen, "give fewer kernels or fewer values, or run them in several runs");
    return FAB_ERR_USAGE;
}

/* nccl-tests' formats: collectives only. --split: parsed (its syntax was checked when read);
 * refused with the adaptive rounds, whose agreements span every rank, and for a kernel that is
 * not a collective of all ranks. */
fab_status_t fab_kernel_list_split(fab_opts_t *o, char *err, size_t errlen, char *hint,
                                   size_t hintlen)
{
    const fab_launchopts_t *l = &o->launch;

    memset(&o->meas.split, 0, sizeof(o->meas.split));
    for (int i = 0; i < l->nkernels && o->out.format != FAB_FORMAT_TABLE; i++) {
        const fab_kernel_t *k = l->kernels[i].k; /* nccl-tests' tables hold collectives */

        if (k->kind != FAB_KIND_COLLECTIVE || k->family || l->ladder) {
            snprintf(err, errlen,
                     "--format nccl-tests|nccl-json: kernel '%s' is not a collective nccl-tests "
                     "measures%s; its rows would lose their meaning there",
                     k->name, l->ladder ? " (run ladder)" : "");
            snprintf(hint, hintlen,
                     "name collectives (allreduce, alltoall, ...), or leave "
                     "--format out for fabricbench's table");
            return FAB_ERR_USAGE;
        }
    }
    if (o->meas.straggle) { /* a delay before each collective call: a run without one */
        bool coll = false;

        for (int i = 0; i < l->nkernels; i++)
            coll = coll || l->kernels[i].k->kind == FAB_KIND_COLLECTIVE;
        if (!coll) {
            snprintf(err, errlen,
                     "--straggle delays a rank before each call of a collective, "
                     "and this run has none");
            snprintf(hint, hintlen,
                     "add a collective (allreduce, alltoall, ...) or "
                     "drop --straggle");
            return FAB_ERR_USAGE;
        }
    }
    if (!o->meas.split_text)
        return FAB_OK;
    if (fab_split_parse(o->meas.split_text, &o->meas.split, err, errlen) != FAB_OK) {
        snprintf(hint, hintlen, "--split takes mod:K, div:K, node or rail");
        return FAB_ERR_USAGE;
    }
    if (o->meas.adaptive) {
        snprintf(err, errlen,
                 "--split needs a fixed policy: the adaptive rounds agree over "
                 "every rank, not per group");
        snprintf(hint, hintlen, "add -i N (iterations per size) or --time SEC");
        return FAB_ERR_USAGE;
    }
    if (o->out.format != FAB_FORMAT_TABLE) {
        snprintf(err, errlen,
                 "--split: nccl-tests' formats have one row per size, not one per "
                 "group");
        snprintf(hint, hintlen, "use fabricbench's table (--format table) or a file (-o)");
        return FAB_ERR_USAGE;
    }
    for (int i = 0; i < l->nkernels; i++) {
        const fab_kernel_t *k = l->kernels[i].k;

        /* a family of its own splits the ranks itself (the congestion kernels: canaries and
         * congestors by node); a group split under it would measure neither */
        if (k->kind != FAB_KIND_COLLECTIVE || fab_kranks(k) != FAB_RANKS_ALL || k->family) {
            snprintf(err, errlen,
                     "--split: kernel '%s' %s%s; a split runs a collective in every "
                     "group of ranks",
                     k->name,
                     k->family ? "splits the ranks itself, family "
                               : "is not a collective of all ranks",
                     k->family ? k->family : "");
            snprintf(hint, hintlen,
                     "give only collectives (allreduce, alltoall, ...) with --split");
            return FAB_ERR_USAGE;
        }
    }
    return FAB_OK;
}
