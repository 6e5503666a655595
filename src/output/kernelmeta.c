/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel's metadata in a run (output/kernelmeta.h). */
#include <stdio.h>
#include <string.h>

#include "core/opt.h"
#include "core/text.h"
#include "kernel/dtype.h"
#include "kernel/traits.h"
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
static void fab_kmeta_options(const fab_kinst_t *ki, char *buf, size_t len)
{
    const fab_kopts_t *ko = fab_kopts(ki->k);
    const char *axis = fab_kaxis_option(ki->k);
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < ko->n; i++) {
        char v[256];

        if (axis && strcmp(axis, ko->rows[i].name) == 0)
            fab_kernel_variant(ki->k, ki->axis, v, sizeof(v), false);
        else
            fab_opt_format(&ko->rows[i], ko->values, v, sizeof(v));
        fab_appendf(buf, len, &at, "%s%s=%s", i ? " " : "", ko->rows[i].name, v);
    }
}

void fab_kernel_variant(const fab_kernel_t *k, double value, char *buf, size_t len,
                        bool with_option)
{
    const fab_kopts_t *ko = fab_kopts(k);
    const char *name = fab_kaxis_option(k);
    const fab_opt_t *axis = NULL;

    buf[0] = '\0';
    for (int i = 0; name && i < ko->n; i++)
        if (strcmp(ko->rows[i].name, name) == 0)
            axis = &ko->rows[i];
    if (!axis)
        return;
    snprintf(buf, len, "%s%s%s", with_option ? "--" : "", with_option ? axis->name : "",
             with_option ? " " : "");
    if (axis->type == FAB_OPT_RATES) /* as a person writes it: 100M, 2.5G */
        fab_rate_text(value, buf + strlen(buf), len - strlen(buf));
    else if (axis->type == FAB_OPT_WORDS) /* the word: incast */
        fab_opt_word(axis, (int)value, buf + strlen(buf), len - strlen(buf));
    else
        snprintf(buf + strlen(buf), len - strlen(buf), "%g", value);
}

/* The name of k's AXIS column ("" none). */
static const char *fab_kmeta_axis_column(const fab_kernel_t *k)
{
    const fab_kcolumns_t *kc = fab_kcolumns(k);

    for (int j = 0; k->axis && j < kc->nkcols; j++)
        if (kc->kcols[j].kind == FAB_KCOL_AXIS)
            return kc->kcols[j].name;
    return "";
}

void fab_kmeta_fill(fab_kmeta_t *m, const fab_kinst_t *ki, const fab_measopts_t *mopt,
                    const int *pair, const fab_world_t *w, const char *detail, const char *policy)
{
    const fab_kernel_t *k = ki->k;
    const fab_kcoll_t *coll = fab_kcoll(k);

    memset(m, 0, sizeof(*m));
    if (pair)
        snprintf(m->ranks, sizeof(m->ranks), "%d,%d", pair[0], pair[1]);
    else
        snprintf(m->ranks, sizeof(m->ranks), "all (%d)", w->size);
    snprintf(m->policy, sizeof(m->policy), "%s", policy);
    fab_kmeta_str(m, "kernel", k->name);
    if (k->axis) {
        fab_kernel_variant(k, ki->axis, m->variant, sizeof(m->variant), true);
        fab_kmeta_str(m, "variant", m->variant);
        fab_kmeta_str(m, "axis", fab_kmeta_axis_column(k));
    }
    if (ki->inplace)
        fab_kmeta_str(m, "variant", FAB_VARIANT_INPLACE);
    fab_kmeta_str(m, "summary", k->summary);
    fab_kmeta_str(m, "detail", detail);
    if (fab_kopts(k)->n > 0) {
        fab_kmeta_options(ki, m->options, sizeof(m->options));
        fab_kmeta_str(m, "options", m->options);
    }
    fab_kmeta_str(m, "kind", fab_kind_name(k->kind));
    if (k->kind == FAB_KIND_COLLECTIVE) {
        fab_kmeta_str(m, "dtype", fab_dtype_name(mopt->dtype));
        fab_kmeta_str(m, "dtype_arithmetic", fab_dtype_arithmetic(mopt->dtype));
        fab_kmeta_str(m, "op", coll->uses_op ? fab_op_name(mopt->op) : "");
        fab_kmeta_int(m, "root", coll->uses_root ? mopt->root : -2);
        fab_kmeta_f64(m, "bus_factor", coll->bus_factor ? coll->bus_factor(w->size) : 1.0);
    }
    fab_kmeta_str(m, "time_columns",
                  k->kind == FAB_KIND_LATENCY      ? "one-way time per iteration (round trip / 2)"
                  : k->kind == FAB_KIND_COLLECTIVE ? "time per call, as its slowest rank"
                                                   : "time of one whole iteration");
    fab_kmeta_str(m, "ranks", m->ranks);
    fab_kmeta_int(m, "window", fab_kp2p(k)->uses_window ? fab_plan_window(k, mopt) : 0);
    fab_kmeta_str(m, "iteration_policy", m->policy);
    fab_kmeta_int(m, "validate", mopt->validate);
}
