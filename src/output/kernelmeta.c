/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel's metadata in a run (output/kernelmeta.h). */
#include <stdio.h>
#include <string.h>

#include "core/opt.h"
#include "core/text.h"
#include "kernel/dtype.h"
#include "measure/plan.h"
#include "measure/rounds.h"
#include "output/kernelmeta.h"
#include "pairs/pairs.h"

const char *fab_kind_name(fab_kind_t kind)
{
    return kind == FAB_KIND_LATENCY     ? "latency"
           : kind == FAB_KIND_BANDWIDTH ? "bandwidth"
                                        : "collective";
}

static void fab_kmeta_str(fab_kmeta_t *m, const char *name, const char *s)
{
    if (m->n < FAB_KMETA_MAX)
        m->f[m->n++] = (fab_kfield_t){.name = name, .type = FAB_META_STR, .s = s ? s : ""};
}

static void fab_kmeta_int(fab_kmeta_t *m, const char *name, int64_t i)
{
    if (m->n < FAB_KMETA_MAX)
        m->f[m->n++] = (fab_kfield_t){.name = name, .type = FAB_META_INT, .i = i};
}

static void fab_kmeta_f64(fab_kmeta_t *m, const char *name, double d)
{
    if (m->n < FAB_KMETA_MAX)
        m->f[m->n++] = (fab_kfield_t){.name = name, .type = FAB_META_F64, .d = d};
}

/* The kernel's own options as they were in effect: "name=value name=value" (an instance's
 * axis option: its own value). */
static void fab_kmeta_options(const fab_kernel_t *k, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < k->noptions; i++) {
        char v[256];

        if (k->axis && strcmp(k->axis, k->options[i].name) == 0)
            fab_kernel_variant(k, v, sizeof(v), false);
        else
            fab_opt_format(&k->options[i], k->option_values, v, sizeof(v));
        fab_appendf(buf, len, &at, "%s%s=%s", i ? " " : "", k->options[i].name, v);
    }
}

void fab_kernel_variant(const fab_kernel_t *k, char *buf, size_t len, bool with_option)
{
    const fab_opt_t *axis = NULL;

    buf[0] = '\0';
    for (int i = 0; k->axis && i < k->noptions; i++)
        if (strcmp(k->options[i].name, k->axis) == 0)
            axis = &k->options[i];
    if (!axis)
        return;
    snprintf(buf, len, "%s%s%s", with_option ? "--" : "", with_option ? axis->name : "",
             with_option ? " " : "");
    if (axis->type == FAB_OPT_RATES) /* as a person writes it: 100M, 2.5G */
        fab_rate_text(k->axis_value, buf + strlen(buf), len - strlen(buf));
    else
        snprintf(buf + strlen(buf), len - strlen(buf), "%g", k->axis_value);
}

/* The name of k's AXIS column ("" none). */
static const char *fab_kmeta_axis_column(const fab_kernel_t *k)
{
    for (int j = 0; k->axis && j < k->nkcols; j++)
        if (k->kcols[j].kind == FAB_KCOL_AXIS)
            return k->kcols[j].name;
    return "";
}

void fab_kmeta_fill(fab_kmeta_t *m, const fab_kernel_t *k, const fab_opts_t *o, const int *pair,
                    const fab_world_t *w, const char *detail)
{
    memset(m, 0, sizeof(*m));
    if (pair)
        snprintf(m->ranks, sizeof(m->ranks), "%d,%d", pair[0], pair[1]);
    else
        snprintf(m->ranks, sizeof(m->ranks), "all (%d)", w->size);
    if (k->ranks == FAB_RANKS_NODES)
        fab_pairs_policy(k, o, m->policy, sizeof(m->policy));
    else
        fab_rounds_policy(o, k, m->policy, sizeof(m->policy));
    fab_kmeta_str(m, "kernel", k->name);
    if (k->axis) {
        fab_kernel_variant(k, m->variant, sizeof(m->variant), true);
        fab_kmeta_str(m, "variant", m->variant);
        fab_kmeta_str(m, "axis", fab_kmeta_axis_column(k));
    }
    fab_kmeta_str(m, "summary", k->summary);
    fab_kmeta_str(m, "detail", detail);
    if (k->noptions > 0) {
        fab_kmeta_options(k, m->options, sizeof(m->options));
        fab_kmeta_str(m, "options", m->options);
    }
    fab_kmeta_str(m, "kind", fab_kind_name(k->kind));
    if (k->kind == FAB_KIND_COLLECTIVE) {
        fab_kmeta_str(m, "dtype", fab_dtype_name(o->dtype));
        fab_kmeta_str(m, "dtype_arithmetic", fab_dtype_arithmetic(o->dtype));
        fab_kmeta_str(m, "op", k->uses_op ? fab_op_name(o->op) : "");
        fab_kmeta_int(m, "root", k->uses_root ? o->root : -2);
        fab_kmeta_f64(m, "bus_factor", k->bus_factor ? k->bus_factor(w->size) : 1.0);
    }
    fab_kmeta_str(m, "time_columns",
                  k->kind == FAB_KIND_LATENCY      ? "one-way time per iteration (round trip / 2)"
                  : k->kind == FAB_KIND_COLLECTIVE ? "time per call, as its slowest rank"
                                                   : "time of one whole iteration");
    fab_kmeta_str(m, "ranks", m->ranks);
    fab_kmeta_int(m, "window", k->uses_window ? fab_plan_window(k, o) : 0);
    fab_kmeta_str(m, "iteration_policy", m->policy);
    fab_kmeta_int(m, "validate", o->validate);
}
