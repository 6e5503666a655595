/* SPDX-License-Identifier: BSD-3-Clause */
/* Arrivals at a collective's timed calls and --straggle (measure/arrival.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mpi_call.h"
#include "core/num.h"
#include "measure/arrival.h"
#include "measure/stats.h"

/* ------------------------------------------------------------------ --straggle */

static const struct {
    const char *unit;
    double s;
} fab_delay_units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};

/* DELAY: a number and its unit, into seconds. */
static fab_status_t fab_delay_parse(const char *s, double *out, char *err, size_t errlen)
{
    char q[64], num[64];
    double v = 0.0;
    size_t n = fab_num_prefix(s, &v);

    fab_num_quote(s, q, sizeof(q));
    if (n == 0 || n >= sizeof(num)) {
        snprintf(err, errlen, "the delay %s does not start with a number; give e.g. 500us or 20ms",
                 q);
        return FAB_ERR_USAGE;
    }
    memcpy(num, s, n);
    num[n] = '\0';
    if (s[n] == '\0') {
        snprintf(err, errlen, "the delay %s has no unit; give one of ns, us, ms, s (e.g. %sms)", q,
                 fab_num_why(num) ? "20" : num);
        return FAB_ERR_USAGE;
    }
    if (fab_num_why(num)) {
        snprintf(err, errlen, "the delay %s is not a number (%s)", q, fab_num_why(num));
        return FAB_ERR_USAGE;
    }
    for (size_t i = 0; i < sizeof(fab_delay_units) / sizeof(fab_delay_units[0]); i++)
        if (strcmp(s + n, fab_delay_units[i].unit) == 0) {
            *out = v * fab_delay_units[i].s;
            if (!(*out > 0.0) || *out > FAB_STRAGGLE_MAX_S) {
                snprintf(err, errlen,
                         "the delay %s is out of range; give more than 0 and at most "
                         "10 s",
                         q);
                return FAB_ERR_USAGE;
            }
            return FAB_OK;
        }
    fab_num_quote(s + n, num, sizeof(num));
    snprintf(err, errlen, "the delay %s has the unit %s; give one of ns, us, ms, s", q, num);
    return FAB_ERR_USAGE;
}

fab_status_t fab_straggle_parse(const char *s, fab_straggle_t *out, char *err, size_t errlen)
{
    static const fab_range_t ranks = {0, 1e7, false, true, NULL};
    const char *colon = s ? strchr(s, ':') : NULL;
    char rank[64], q[64];
    double r = 0.0;
    size_t n;

    out->rank = -1;
    out->delay_s = 0.0;
    if (!s || !*s)
        return FAB_OK;
    fab_num_quote(s, q, sizeof(q));
    if (!colon) {
        snprintf(err, errlen, "%s has no ':'; give RANK:DELAY, e.g. 2:20ms", q);
        return FAB_ERR_USAGE;
    }
    n = (size_t)(colon - s);
    if (n == 0 || n >= sizeof(rank)) {
        snprintf(err, errlen, "%s: the rank before ':' is %s; give RANK:DELAY, e.g. 2:20ms", q,
                 n == 0 ? "missing" : "too long");
        return FAB_ERR_USAGE;
    }
    memcpy(rank, s, n);
    rank[n] = '\0';
    {
        char sub[256];

        if (fab_num_parse(rank, &ranks, &r, sub, sizeof(sub)) != FAB_OK) {
            snprintf(err, errlen, "the rank in %s: %s", q, sub);
            return FAB_ERR_USAGE;
        }
    }
    if (fab_delay_parse(colon + 1, &out->delay_s, err, errlen) != FAB_OK)
        return FAB_ERR_USAGE;
    out->rank = (int)r;
    return FAB_OK;
}

fab_status_t fab_straggle_check(const char *s, char *err, size_t errlen)
{
    fab_straggle_t sg;

    return fab_straggle_parse(s, &sg, err, errlen);
}

/* ------------------------------------------------------------------ the accumulator */

fab_status_t fab_arrival_init(fab_arrival_t *a, int nranks, size_t cap)
{
    memset(a, 0, sizeof(*a));
    a->nranks = nranks;
    a->cap = cap;
    a->last = calloc((size_t)nranks, sizeof(*a->last));
    a->late_sum = calloc((size_t)nranks, sizeof(*a->late_sum));
    a->late = cap ? malloc(sizeof(*a->late) * cap) : NULL;
    a->late_rank = cap ? malloc(sizeof(*a->late_rank) * cap) : NULL;
    if (!a->last || !a->late_sum || (cap && (!a->late || !a->late_rank)))
        return FAB_ERR_NOMEM;
    return FAB_OK;
}

void fab_arrival_reset(fab_arrival_t *a)
{
    if (!a->last)
        return;
    memset(a->last, 0, sizeof(*a->last) * (size_t)a->nranks);
    memset(a->late_sum, 0, sizeof(*a->late_sum) * (size_t)a->nranks);
    a->calls = 0;
    a->n = 0;
}

void fab_arrival_free(fab_arrival_t *a)
{
    free(a->last);
    free(a->late_sum);
    free(a->late);
    free(a->late_rank);
    memset(a, 0, sizeof(*a));
}

void fab_arrival_add(fab_arrival_t *a, int rank, double late_s)
{
    if (rank == -1) { /* a tie: no rank entered last (a block's first call back to back) */
        a->calls++;
        return;
    }
    if (rank < 0 || rank >= a->nranks || !(late_s >= 0.0))
        return;
    a->calls++;
    a->last[rank]++;
    a->late_sum[rank] += late_s;
    if (a->n < a->cap) {
        a->late[a->n] = (float)late_s;
        a->late_rank[a->n++] = rank;
    }
}

static int fab_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

void fab_arrival_summary(const fab_arrival_t *a, double call_s, fab_late_t *out)
{
    int r = 0;
    size_t m = 0;
    double *v;

    out->rank = out->straggler = -1;
    out->share = out->p50 = out->p99 = out->explains = NAN;
    if (!a || !a->last || a->calls == 0)
        return;
    for (int i = 1; i < a->nranks; i++)
        if (a->last[i] > a->last[r])
            r = i;
    if (a->last[r] == 0) { /* every call a tie: no rank entered last */
        out->share = out->explains = 0.0;
        return;
    }
    out->rank = r;
    out->share = (double)a->last[r] / (double)a->calls;
    out->explains = call_s > 0 ? a->late_sum[r] / call_s : NAN;
    if (out->explains > 1.0)
        out->explains = 1.0; /* the clocks' alignment error at calls of the same length */
    v = malloc(sizeof(*v) * (a->n ? a->n : 1));
    if (!v)
        return;
    for (size_t i = 0; i < a->n; i++)
        if (a->late_rank[i] == r)
            v[m++] = a->late[i];
    if (m > 0) {
        qsort(v, m, sizeof(*v), fab_cmp_double);
        out->p50 = fab_percentile_sorted(v, m, 0.50);
        out->p99 = fab_percentile_sorted(v, m, 0.99);
    }
    free(v);
}

bool fab_late_names(const fab_late_t *l)
{
    return l->rank >= 0 && l->share >= FAB_STRAGGLER_SHARE && l->explains >= FAB_STRAGGLER_EXPLAINS;
}

/* ------------------------------------------------------------------ the reduction */

/* Per call {latest, its rank, second latest}; ties go to the lower rank, so the result does not
 * depend on the order MPI combines in (the operation is commutative). */
static void fab_arrival_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const double *a = in;
    double *b = inout;

    (void)type;
    for (int i = 0; i < *len; i++, a += 3, b += 3) {
        bool a_first = a[0] > b[0] || (a[0] == b[0] && a[1] < b[1]);
        double lo = a_first ? b[0] : a[0], second = fmax(lo, fmax(a[2], b[2]));

        if (a_first) {
            b[0] = a[0];
            b[1] = a[1];
        }
        b[2] = second;
    }
}

fab_status_t fab_arrival_red_init(fab_arrival_red_t *r, size_t calls, bool root)
{
    fab_status_t st;

    r->type = MPI_DATATYPE_NULL;
    r->op = MPI_OP_NULL;
    r->in = malloc(sizeof(double) * 3 * calls);
    r->out = root ? malloc(sizeof(double) * 3 * calls) : NULL;
    if (!r->in || (root && !r->out))
        return FAB_ERR_NOMEM;
    st = FAB_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &r->type));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Type_commit(&r->type));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Op_create(fab_arrival_op, 1, &r->op));
    return st;
}

void fab_arrival_red_free(fab_arrival_red_t *r)
{
    if (r->op != MPI_OP_NULL)
        MPI_Op_free(&r->op);
    if (r->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&r->type);
    free(r->in);
    free(r->out);
    r->in = r->out = NULL;
}

fab_status_t fab_arrival_reduce(fab_arrival_red_t *r, const double *arrive, uint64_t b, int rank,
                                MPI_Comm comm, fab_arrival_t *a)
{
    fab_status_t st;

    for (uint64_t i = 0; i < b; i++) {
        r->in[3 * i] = arrive[i];
        r->in[3 * i + 1] = (double)rank;
        r->in[3 * i + 2] = -INFINITY;
    }
    st = FAB_MPI(MPI_Reduce(r->in, r->out, (int)b, r->type, r->op, 0, comm));
    if (st != FAB_OK || rank != 0 || !a)
        return st;
    for (uint64_t i = 0; i < b; i++) {
        double late = r->out[3 * i] - r->out[3 * i + 2];

        fab_arrival_add(a, late > 0 ? (int)r->out[3 * i + 1] : -1, late);
    }
    return FAB_OK;
}
