/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel list of `fabricbench run LIST` (cli/kernel_list.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/kernel_list.h"
#include "kernel/registry.h"
#include "kernel/traits.h"

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
        /* twice in a run, its rows would be two kernels of one name: files and the
         * analysis tell a kernel's rows apart by its name (and an instance's value) */
        for (int i = 0; i < o->launch.nkernels; i++)
            if (o->launch.kernels[i].k == k) {
                snprintf(err, errlen, "kernel list '%s' names %s twice", list, k->name);
                snprintf(hint, hintlen,
                         "give each kernel once; --repeat N measures the whole plan N times, "
                         "a list option (--streams 1,4) runs a kernel once per value");
                return FAB_ERR_USAGE;
            }
        if (o->launch.nkernels >= FAB_MAX_KERNELS) {
            snprintf(err, errlen, "too many kernels in one run (at most %d)", FAB_MAX_KERNELS);
            return FAB_ERR_USAGE;
        }
        o->launch.kernels[o->launch.nkernels++] = (fab_kinst_t){k, NAN};
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
            o->launch.kernels[o->launch.nkernels++] = (fab_kinst_t){k, NAN};
            continue;
        }
        if (!axis || (axis->type != FAB_OPT_INTS && axis->type != FAB_OPT_RATES)) {
            snprintf(err, errlen, "kernel %s: its axis '%s' is not one of its list options",
                     k->name, name);
            snprintf(hint, hintlen, "this is a bug in the kernel's descriptor; please report it");
            return FAB_ERR_INTERNAL;
        }
        l = (const fab_list_t *)((const char *)ko->values + axis->offset);
        for (int v = 0; v < l->n; v++) {
            if (o->launch.nkernels >= FAB_MAX_KERNELS)
                goto too_many;
            o->launch.kernels[o->launch.nkernels++] = (fab_kinst_t){k, l->v[v]};
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
