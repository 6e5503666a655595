/* SPDX-License-Identifier: BSD-3-Clause */
/* Localisation of slow pairs (pairs/locate.h). A suspect must explain a set of slow pairs,
 * not one node's median: a node is named when its pairs are slow with most of its peers, on
 * its own switch and off it; when only the peers off its switch are slow, the path into it
 * from outside (a switch link serving it) is named instead, since a bad node would be slow
 * with its neighbours too; a switch group when the slow pairs out of it spread over its nodes
 * (and a path into one of its nodes is folded into the group: one bad leaf-spine link, both
 * ways; and so are paths into every node of a group: its links out); what is left is named
 * pair by pair. First, when the typical pair is below the line rate's share, the fabric as a
 * whole is named for the pairs it explains. Each step takes the pairs it explains out of the
 * next. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairs/locate.h"

typedef struct fab_loc {
    const fab_locate_in_t *in;
    fab_locate_t *out;
    unsigned char *open; /* n*n: slow and not yet explained */
    int n;
} fab_loc_t;

static int fab_loc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* The median of the finite off-diagonal entries of m (NaN: none). */
static double fab_loc_median(const double *m, int n)
{
    double *v = malloc(sizeof(double) * (size_t)n * (size_t)n + 1), med = NAN;
    size_t k = 0;

    if (!v)
        return NAN;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && isfinite(m[i * n + j]))
                v[k++] = m[i * n + j];
    if (k) {
        qsort(v, k, sizeof(double), fab_loc_cmp);
        med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
    }
    free(v);
    return med;
}

static int fab_loc_group(const fab_loc_t *L, int i)
{
    return L->in->group ? L->in->group[i] : -1;
}

/* Whether i and j share a known switch group. */
static int fab_loc_same(const fab_loc_t *L, int i, int j)
{
    int g = fab_loc_group(L, i);

    return g >= 0 && g == fab_loc_group(L, j);
}

/* The verdict bits of the unordered pair (i, j); -1 when it was not measured. */
static int fab_loc_judge(const fab_locate_in_t *in, const fab_locate_t *out, int i, int j)
{
    int n = in->n, bits = 0, measured = 0;
    double frac = in->bw_frac > 0 ? in->bw_frac : FAB_LOCATE_BW_FRAC;
    double factor = in->lat_factor > 0 ? in->lat_factor : FAB_LOCATE_LAT_FACTOR;
    double lfrac = in->line_frac > 0 ? in->line_frac : FAB_LOCATE_LINE_FRAC;
    /* Two members are one pair: no typical pair to compare it with (its two directions are
     * not two pairs); only the line rate judges it. */
    bool relative = n >= 3;

    for (int d = 0; d < 2; d++) {
        int s = d ? j : i, t = d ? i : j;
        double b = in->bw ? in->bw[s * n + t] : NAN, l = in->lat ? in->lat[s * n + t] : NAN;

        if (isfinite(b)) {
            measured = 1;
            if (relative && isfinite(out->bw_median) && b < frac * out->bw_median)
                bits |= FAB_SLOW_BW;
            if (in->line_MBps > 0 && b < lfrac * in->line_MBps)
                bits |= FAB_SLOW_LINE;
        }
        if (isfinite(l)) {
            measured = 1;
            if (relative && isfinite(out->lat_median) && l > factor * out->lat_median)
                bits |= FAB_SLOW_LAT;
        }
    }
    return measured ? bits : -1;
}

static int fab_loc_add(fab_loc_t *L, fab_suspect_kind_t kind, int a, int b, int slow, int pairs)
{
    fab_locate_t *o = L->out;
    fab_suspect_t *s = realloc(o->suspects, sizeof(*s) * (size_t)(o->nsuspects + 1));

    if (!s)
        return -1;
    o->suspects = s;
    s[o->nsuspects] = (fab_suspect_t){kind, a, b, slow, pairs};
    if (kind != FAB_SUSPECT_PAIR)
        for (int i = 0; i < L->n; i++)
            if ((kind == FAB_SUSPECT_GROUP ? fab_loc_group(L, i) == a : i == a) &&
                o->node_suspect[i] < 0)
                o->node_suspect[i] = o->nsuspects;
    o->nsuspects++;
    return 0;
}

/* Slow pairs still open and measured pairs of node i: all (w = 0), on its switch (1), off (2). */
static void fab_loc_count(const fab_loc_t *L, int i, int *slow, int *pairs)
{
    memset(slow, 0, 3 * sizeof(int));
    memset(pairs, 0, 3 * sizeof(int));
    for (int j = 0; j < L->n; j++) {
        int w = fab_loc_group(L, i) < 0 ? 2 : fab_loc_same(L, i, j) ? 1 : 2;

        if (j == i || L->out->slow[i * L->n + j] == 0xff)
            continue;
        pairs[0]++;
        pairs[w]++;
        slow[0] += L->open[i * L->n + j];
        slow[w] += L->open[i * L->n + j];
    }
}

static void fab_loc_close(fab_loc_t *L, int i, int j)
{
    L->open[i * L->n + j] = L->open[j * L->n + i] = 0;
}

/* Nodes slow with at least half their peers, the worst first. */
static int fab_loc_nodes(fab_loc_t *L)
{
    for (;;) {
        int best = -1, bs[3] = {0}, bp[3] = {0};

        for (int i = 0; i < L->n; i++) {
            int s[3], p[3];

            fab_loc_count(L, i, s, p);
            if (s[0] >= 2 && 2 * s[0] >= p[0] && s[0] > bs[0]) {
                best = i;
                memcpy(bs, s, sizeof(bs));
                memcpy(bp, p, sizeof(bp));
            }
        }
        if (best < 0)
            return 0;
        /* Neighbours on its switch fine, peers off it slow: the path in, not the node. */
        if (bp[1] > 0 && 2 * bs[1] < bp[1] && 2 * bs[2] >= bp[2]) {
            for (int j = 0; j < L->n; j++)
                if (!fab_loc_same(L, best, j))
                    fab_loc_close(L, best, j);
            if (fab_loc_add(L, FAB_SUSPECT_PATH, best, -1, bs[2], bp[2]) < 0)
                return -1;
            continue;
        }
        for (int j = 0; j < L->n; j++)
            fab_loc_close(L, best, j);
        if (fab_loc_add(L, FAB_SUSPECT_NODE, best, -1, bs[0], bp[0]) < 0)
            return -1;
    }
}

/* Switch groups whose open slow pairs to other switches spread over at least two of its
 * nodes (and half of them), none inside it: its uplinks or the switch. */
static int fab_loc_groups(fab_loc_t *L)
{
    int n = L->n, ng = 0;

    for (int i = 0; i < n; i++)
        if (fab_loc_group(L, i) + 1 > ng)
            ng = fab_loc_group(L, i) + 1;
    for (;;) {
        int best = -1, bslow = 0, bpairs = 0;

        for (int g = 0; g < ng; g++) {
            int size = 0, spread = 0, slow = 0, pairs = 0, inside = 0;

            for (int i = 0; i < n; i++) {
                int mine = 0;

                if (fab_loc_group(L, i) != g)
                    continue;
                size++;
                for (int j = 0; j < n; j++) {
                    if (j == i || L->out->slow[i * n + j] == 0xff)
                        continue;
                    if (fab_loc_same(L, i, j)) {
                        inside += L->open[i * n + j];
                        continue;
                    }
                    pairs++;
                    slow += L->open[i * n + j];
                    mine += L->open[i * n + j];
                }
                spread += mine > 0;
            }
            if (size >= 2 && spread >= 2 && 2 * spread >= size && slow >= 3 && inside == 0 &&
                slow > bslow) {
                best = g;
                bslow = slow;
                bpairs = pairs;
            }
        }
        if (best < 0)
            return 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (fab_loc_group(L, i) == best && !fab_loc_same(L, i, j))
                    fab_loc_close(L, i, j);
        if (fab_loc_add(L, FAB_SUSPECT_GROUP, best, -1, bslow, bpairs) < 0)
            return -1;
    }
}

/* The typical pair below the line rate's share (more than half the measured directions, of
 * three pairs or more): the fabric as a whole (its ports' speed, the line rate assumed, a
 * fabric-wide setting), not a node; one bad node of four is half the directions, not more.
 * The pairs slow by the line rate alone are explained by it; those slow against the median
 * pair too are left for the other rules. */
static int fab_loc_fabric(fab_loc_t *L)
{
    const fab_locate_in_t *in = L->in;
    fab_locate_t *o = L->out;
    int n = L->n, dirs = 0, below = 0, line = 0;
    double lfrac = in->line_frac > 0 ? in->line_frac : FAB_LOCATE_LINE_FRAC;

    if (in->line_MBps <= 0 || !in->bw || o->npairs < 3) /* one pair is its own link */
        return 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && isfinite(in->bw[i * n + j])) {
                dirs++;
                below += in->bw[i * n + j] < lfrac * in->line_MBps;
                line += i < j && (o->slow[i * n + j] & FAB_SLOW_LINE);
            }
    if (2 * below <= dirs)
        return 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && o->slow[i * n + j] == FAB_SLOW_LINE)
                L->open[i * n + j] = 0;
    return fab_loc_add(L, FAB_SUSPECT_FABRIC, -1, -1, line, o->npairs);
}

/* Every node of a switch group (two or more) named for the path into it from other switches:
 * the switch's own links out (uplinks) or the switch, as one group suspect. */
static void fab_loc_paths_to_group(fab_loc_t *L)
{
    fab_locate_t *o = L->out;
    int n = L->n;

    for (int s = 0; s < o->nsuspects; s++) {
        fab_suspect_t *p = &o->suspects[s];
        int g = p->kind == FAB_SUSPECT_PATH ? fab_loc_group(L, p->a) : -1, size = 0, paths = 0;

        for (int i = 0; g >= 0 && i < n; i++)
            if (fab_loc_group(L, i) == g) {
                size++;
                for (int t = 0; t < o->nsuspects; t++)
                    paths += o->suspects[t].kind == FAB_SUSPECT_PATH && o->suspects[t].a == i &&
                             o->suspects[t].slow >= 0;
            }
        if (g < 0 || size < 2 || paths < size)
            continue;
        p->kind = FAB_SUSPECT_GROUP;
        p->a = g;
        for (int t = s + 1; t < o->nsuspects; t++)
            if (o->suspects[t].kind == FAB_SUSPECT_PATH && o->suspects[t].slow >= 0 &&
                fab_loc_group(L, o->suspects[t].a) == g) {
                p->slow += o->suspects[t].slow;
                p->pairs += o->suspects[t].pairs;
                o->suspects[t].slow = -1; /* folded */
            }
    }
}

/* A path into node x whose switch group is named too: on a fat tree with destination routing
 * one bad leaf-spine link, both ways, looks exactly so (its downlink carries every off-switch
 * sender to the one node the spine serves on that leaf, its uplink the leaf's traffic to the
 * nodes that spine serves elsewhere). The group explains both: the path is folded into it. */
static void fab_loc_fold(fab_loc_t *L)
{
    fab_locate_t *o = L->out;
    int k = 0;

    for (int s = 0; s < o->nsuspects; s++) {
        fab_suspect_t *p = &o->suspects[s];

        for (int t = 0; p->kind == FAB_SUSPECT_PATH && p->slow >= 0 && t < o->nsuspects; t++)
            if (o->suspects[t].kind == FAB_SUSPECT_GROUP &&
                o->suspects[t].a == fab_loc_group(L, p->a)) {
                o->suspects[t].slow += p->slow; /* its pairs are among the group's */
                p->slow = -1;                   /* folded */
                break;
            }
    }
    for (int s = 0; s < o->nsuspects; s++)
        if (o->suspects[s].slow >= 0)
            o->suspects[k++] = o->suspects[s];
    o->nsuspects = k;
    for (int i = 0; i < L->n; i++) {
        o->node_suspect[i] = -1;
        for (int s = 0; s < k && o->node_suspect[i] < 0; s++)
            if (o->suspects[s].kind == FAB_SUSPECT_GROUP  ? fab_loc_group(L, i) == o->suspects[s].a
                : o->suspects[s].kind != FAB_SUSPECT_PAIR ? o->suspects[s].a == i
                                                          : 0)
                o->node_suspect[i] = s;
    }
}

int fab_locate(const fab_locate_in_t *in, fab_locate_t *out)
{
    int n = in->n, rc = 0;
    fab_loc_t L = {in, out, NULL, n};

    memset(out, 0, sizeof(*out));
    out->bw_median = in->bw_ref > 0 ? in->bw_ref : in->bw ? fab_loc_median(in->bw, n) : NAN;
    out->lat_median = in->lat_ref > 0 ? in->lat_ref : in->lat ? fab_loc_median(in->lat, n) : NAN;
    out->slow = calloc((size_t)n * (size_t)n + 1, 1);
    out->node_suspect = malloc(sizeof(int) * (size_t)n + 1);
    L.open = calloc((size_t)n * (size_t)n + 1, 1);
    if (!out->slow || !out->node_suspect || !L.open) {
        free(L.open);
        fab_locate_free(out);
        return -1;
    }
    for (int i = 0; i < n; i++)
        out->node_suspect[i] = -1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int bits = fab_loc_judge(in, out, i, j);

            /* 0xff: not measured */
            out->slow[i * n + j] = out->slow[j * n + i] = bits < 0 ? 0xff : (unsigned char)bits;
            if (bits < 0)
                continue;
            out->npairs++;
            out->nslow += bits != 0;
            L.open[i * n + j] = L.open[j * n + i] = bits != 0;
        }
    for (int i = 0; i < n; i++)
        out->slow[i * n + i] = 0xff;
    rc = fab_loc_fabric(&L);
    if (rc == 0)
        rc = fab_loc_nodes(&L);
    if (rc == 0)
        rc = fab_loc_groups(&L);
    if (rc == 0) {
        fab_loc_paths_to_group(&L);
        fab_loc_fold(&L);
    }
    for (int i = 0; i < n && rc == 0; i++)
        for (int j = i + 1; j < n && rc == 0; j++)
            if (L.open[i * n + j])
                rc = fab_loc_add(&L, FAB_SUSPECT_PAIR, i, j, 1, 1);
    free(L.open);
    if (rc != 0)
        fab_locate_free(out);
    return rc;
}

int fab_locate_stands_out(const fab_locate_t *l, int n, int i, int j)
{
    unsigned char bits = l->slow[i * n + j];
    int fabric = 0;

    if (bits == 0 || bits == 0xff)
        return 0;
    for (int s = 0; s < l->nsuspects; s++)
        fabric |= l->suspects[s].kind == FAB_SUSPECT_FABRIC;
    return (bits & (FAB_SLOW_BW | FAB_SLOW_LAT)) || ((bits & FAB_SLOW_LINE) && !fabric);
}

typedef struct fab_retest {
    double score; /* the pair's worst share of the median (latency: its inverse); lower: worse */
    int a, b;
} fab_retest_t;

static int fab_retest_cmp(const void *x, const void *y)
{
    const fab_retest_t *p = x, *q = y;

    if (p->score != q->score)
        return (p->score > q->score) - (p->score < q->score);
    return p->a != q->a ? (p->a > q->a) - (p->a < q->a) : (p->b > q->b) - (p->b < q->b);
}

int fab_locate_retests(const fab_locate_in_t *in, const fab_locate_t *l, int per_member, int *list,
                       int *stood)
{
    int n = in->n, cnt = 0, *taken = calloc((size_t)n + 1, sizeof(int));
    fab_retest_t *r = malloc(sizeof(*r) * ((size_t)l->nslow + 1));

    *stood = 0;
    for (int i = 0; r && taken && i < n; i++)
        for (int j = i + 1; j < n; j++) {
            size_t a = (size_t)i * n + j, b = (size_t)j * n + i;
            double sc = in->bw ? fmin(in->bw[a], in->bw[b]) / l->bw_median
                               : l->lat_median / fmax(in->lat[a], in->lat[b]);

            if (fab_locate_stands_out(l, n, i, j) && *stood < l->nslow)
                r[(*stood)++] = (fab_retest_t){isfinite(sc) ? sc : 0, i, j};
        }
    if (!r || !taken) {
        free(r);
        free(taken);
        return -1;
    }
    /* a node named on its own: -1 - its pairs taken so far (the others count nothing) */
    for (int s = 0; s < l->nsuspects; s++)
        if (l->suspects[s].kind == FAB_SUSPECT_NODE && l->suspects[s].a >= 0)
            taken[l->suspects[s].a] = -1;
    qsort(r, (size_t)*stood, sizeof(*r), fab_retest_cmp);
    for (int k = 0; k < *stood && cnt < per_member * n; k++) {
        int a = r[k].a, b = r[k].b;

        if ((taken[a] < 0 && -1 - taken[a] >= per_member) ||
            (taken[b] < 0 && -1 - taken[b] >= per_member))
            continue;
        taken[a] -= taken[a] < 0;
        taken[b] -= taken[b] < 0;
        list[2 * cnt] = a;
        list[2 * cnt++ + 1] = b;
    }
    free(r);
    free(taken);
    return cnt;
}

void fab_locate_free(fab_locate_t *l)
{
    free(l->slow);
    free(l->suspects);
    free(l->node_suspect);
    memset(l, 0, sizeof(*l));
}

const char *fab_suspect_kind_name(fab_suspect_kind_t k)
{
    static const char *const names[] = {"node", "path", "group", "pair", "fabric"};

    return (unsigned)k < 5 ? names[k] : "?";
}

/* Member (or switch) i by its name in list, by number when there is no list; "" for -1. */
static void fab_loc_name(char *const *list, int i, char *out, size_t len)
{
    if (i < 0)
        out[0] = '\0';
    else if (list)
        snprintf(out, len, "%s", list[i]);
    else
        snprintf(out, len, "%d", i);
}

void fab_suspect_text(const fab_suspect_t *s, char *const *names, char *const *gnames, char *buf,
                      size_t len)
{
    char a[300], b[300]; /* a host name (up to 255 bytes) and ":rank" */

    fab_loc_name(s->kind == FAB_SUSPECT_GROUP ? gnames : names, s->a, a, sizeof(a));
    fab_loc_name(names, s->b, b, sizeof(b));
    switch (s->kind) {
    case FAB_SUSPECT_NODE:
        snprintf(buf, len, "node %s (or its link): slow with %d of its %d peers", a, s->slow,
                 s->pairs);
        break;
    case FAB_SUSPECT_PATH:
        snprintf(buf, len,
                 "the path into node %s from other switches (a switch link serving it): slow "
                 "with %d of its %d peers off its switch, fine with those on it",
                 a, s->slow, s->pairs);
        break;
    case FAB_SUSPECT_GROUP:
        snprintf(buf, len,
                 "switch group %s (its uplinks or the switch): %d of its %d pairs to other "
                 "switches slow, spread over its nodes",
                 a, s->slow, s->pairs);
        break;
    case FAB_SUSPECT_FABRIC:
        snprintf(buf, len,
                 "the fabric as a whole: %d of its %d pairs below the line rate's share (the "
                 "ports' speed, the line rate assumed, or a fabric-wide setting; not one node)",
                 s->slow, s->pairs);
        break;
    default:
        snprintf(buf, len, "the link or path between %s and %s: slow on its own", a, b);
    }
}
