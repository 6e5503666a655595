/* SPDX-License-Identifier: BSD-3-Clause */
/* What a stalled rank says about the ranks it waited for (core/blame.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/blame.h"
#include "core/text.h"

#define FAB_BLAME_ASK_MAX  4096 /* ranks asked at most when this rank waits for all of them */
#define FAB_BLAME_LIST     6    /* ranks listed by name in one part of the message */
#define FAB_BLAME_CHAIN    3    /* ranks followed along a chain of waits */
#define FAB_BLAME_FROZEN_S 1.0  /* a rank that did not run this long is the one that stalled */

static const char *fab_blame_host(const fab_world_t *w, int r)
{
    return w && w->hosts && r >= 0 && r < w->size ? w->hosts[r] : "?";
}

/* Whether s waits in the step this rank waits in, since about when this rank began to. */
static bool fab_blame_same_step(const fab_peer_state_t *me, const fab_peer_state_t *s,
                                double waited)
{
    return s->mode == me->mode && !s->idle && strcmp(s->phase, me->phase) == 0 &&
           strcmp(s->kernel, me->kernel) == 0 && s->bytes == me->bytes &&
           s->stuck_s >= 0.5 * waited;
}

/* A wait for one rank: ask it; if it answers that it waits for another, ask that one. */
static void fab_blame_chain(const fab_world_t *w, const fab_peer_state_t *me, double waited,
                            fab_peer_ended_t *ended, char *out, size_t len)
{
    int r = me->waits_for, seen[FAB_BLAME_CHAIN + 1] = {w->rank};
    size_t at = strlen(out);

    for (int depth = 0; depth < FAB_BLAME_CHAIN; depth++) {
        fab_peer_state_t s;
        bool got = false;
        char what[512];

        if (fab_peers_ask(&r, 1, FAB_PEER_WAIT_S, me, &s, &got, ended) < 0)
            return;
        if (!got) {
            if (depth == 0)
                fab_appendf(out, len, &at, ", which did not answer (stopped, dead or unreachable)");
            else
                fab_appendf(out, len, &at,
                            "; rank %d (%s) did not answer (stopped, dead or "
                            "unreachable)",
                            r, fab_blame_host(w, r));
            return;
        }
        fab_peer_describe(&s, what, sizeof(what));
        if (depth == 0)
            fab_appendf(out, len, &at, ", which answered: it is %s", what);
        else
            fab_appendf(out, len, &at, "; rank %d (%s) answered: it is %s", r, fab_blame_host(w, r),
                        what);
        seen[depth + 1] = r;
        if (s.waits_for == w->rank && depth == 0 && fab_blame_same_step(me, &s, waited)) {
            fab_appendf(out, len, &at,
                        ": both wait for each other in the same step, so the "
                        "transfer between them does not complete (a fabric or MPI problem, "
                        "not a stopped rank)");
            return;
        }
        if (s.waits_for < 0)
            return;
        for (int k = 0; k <= depth + 1; k++)
            if (seen[k] == s.waits_for)
                return; /* a loop: said above */
        r = s.waits_for;
    }
}

/* The ranks that did not answer (frozen: that answered only after they did not run at all)
 * as one part of the message; returns how many. */
static int fab_blame_list(const fab_world_t *w, const int *ranks, int n, const bool *got,
                          const fab_peer_state_t *st, bool frozen, const char *sep, char *out,
                          size_t len, size_t *at)
{
    char names[FAB_BLAME_LIST * (FAB_HOST_MAX + 16)] = "";
    size_t nat = 0;
    int k = 0;
    double most = 0;

    for (int i = 0; i < n; i++) {
        if (frozen ? !got[i] || st[i].frozen_s < FAB_BLAME_FROZEN_S : got[i])
            continue;
        if (k < FAB_BLAME_LIST)
            fab_appendf(names, sizeof(names), &nat, "%s%d (%s)", k ? ", " : "", ranks[i],
                        fab_blame_host(w, ranks[i]));
        if (frozen && st[i].frozen_s > most)
            most = st[i].frozen_s;
        k++;
    }
    if (k > FAB_BLAME_LIST)
        fab_appendf(names, sizeof(names), &nat, " and %d more", k - FAB_BLAME_LIST);
    if (k && frozen)
        fab_appendf(out, len, at,
                    "%srank%s %s answered only after not running at all for up to "
                    "%.1f s (stopped or frozen)",
                    sep, k > 1 ? "s" : "", names, most);
    else if (k)
        fab_appendf(out, len, at, "%srank%s %s did not answer (stopped, dead or unreachable)", sep,
                    k > 1 ? "s" : "", names);
    return k;
}

/* A wait for every other rank (a collective, an agreement): ask them all at once. */
static void fab_blame_all(const fab_world_t *w, const fab_peer_state_t *me, double waited,
                          fab_peer_ended_t *ended, char *out, size_t len)
{
    int n = 0, nmiss = 0, nfrozen, nelse = 0, nsame = 0, *ranks;
    fab_peer_state_t *st;
    bool *got;
    size_t at = strlen(out);
    const char *sep = ": ";

    ranks = malloc(sizeof(int) * (size_t)w->size);
    st = malloc(sizeof(*st) * (size_t)w->size);
    got = malloc(sizeof(bool) * (size_t)w->size);
    for (int r = 0; ranks && r < w->size && n < FAB_BLAME_ASK_MAX; r++)
        if (r != w->rank)
            ranks[n++] = r;
    if (!ranks || !st || !got || fab_peers_ask(ranks, n, FAB_PEER_WAIT_S, me, st, got, ended) < 0)
        goto out;
    nmiss = fab_blame_list(w, ranks, n, got, st, false, sep, out, len, &at);
    if (nmiss)
        sep = "; ";
    nfrozen = fab_blame_list(w, ranks, n, got, st, true, sep, out, len, &at);
    nmiss += nfrozen;
    if (nmiss)
        sep = "; ";
    for (int i = 0; i < n; i++) {
        char what[512];

        if (!got[i] || st[i].frozen_s >= FAB_BLAME_FROZEN_S)
            continue;
        if (fab_blame_same_step(me, &st[i], waited)) {
            nsame++;
            continue;
        }
        if (nelse++ >= FAB_BLAME_LIST / 2)
            continue;
        fab_peer_describe(&st[i], what, sizeof(what));
        fab_appendf(out, len, &at, "%srank %d (%s) is elsewhere: %s", sep, ranks[i],
                    fab_blame_host(w, ranks[i]), what);
        sep = "; ";
    }
    if (nelse > FAB_BLAME_LIST / 2)
        fab_appendf(out, len, &at, "; %d more ranks are elsewhere", nelse - FAB_BLAME_LIST / 2);
    if (!nmiss && !nelse)
        fab_appendf(out, len, &at,
                    ": every other rank answered and waits in the same step, so "
                    "the call itself does not complete (a fabric or MPI problem, not a stopped "
                    "rank)");
    else if (nsame)
        fab_appendf(out, len, &at, "; %d other rank%s wait%s in the same step", nsame,
                    nsame > 1 ? "s" : "", nsame > 1 ? "" : "s");
    if (n < w->size - 1)
        fab_appendf(out, len, &at, " (the first %d ranks asked)", n);
out:
    free(ranks);
    free(st);
    free(got);
}

void fab_blame(const fab_world_t *w, const fab_peer_state_t *me, double waited,
               fab_peer_ended_t *ended, char *out, size_t len)
{
    out[0] = '\0';
    if (!w || fab_peers_fd() < 0 || w->size < 2)
        return;
    if (me->waits_for >= 0)
        fab_blame_chain(w, me, waited, ended, out, len);
    else
        fab_blame_all(w, me, waited, ended, out, len);
}
