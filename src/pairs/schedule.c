/* SPDX-License-Identifier: BSD-3-Clause */
/* The pairs kernels' schedules (pairs/schedule.h). */
#include <string.h>

#include "pairs/schedule.h"

static const char *const fab_sched_names[] = {"rounds", "shift", "serial"};

const char *fab_sched_name(fab_sched_t s)
{
    return (unsigned)s < 3 ? fab_sched_names[s] : "?";
}

int fab_sched_parse(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, fab_sched_names[i]) == 0)
            return i;
    return -1;
}

int fab_sched_rounds(fab_sched_t s, int n)
{
    if (n < 2)
        return 0;
    if (s == FAB_SCHED_SERIAL)
        return n * (n - 1) / 2;
    if (s == FAB_SCHED_SHIFT)
        return n - 1;
    return n % 2 ? n : n - 1;
}

/* The circle method: with m = n rounded up to even, member m-1 stays put and the others turn
 * one place per round; in round r, r meets m-1 and r+k meets r-k (mod m-1). The padding member
 * of an odd n is the bye. */
static void fab_sched_circle(int n, int r, int *partner)
{
    int m = n % 2 ? n + 1 : n, ring = m - 1;

    for (int i = 0; i < n; i++)
        partner[i] = -1;
    for (int k = 0; k < m / 2; k++) {
        int a = k == 0 ? m - 1 : (r + k) % ring, b = (r - k + ring) % ring;

        if (k == 0)
            b = r;
        if (a < n && b < n) {
            partner[a] = b;
            partner[b] = a;
        }
    }
}

/* Round r of serial: the r-th pair (a, b), a < b, in row order. */
static void fab_sched_nth_pair(int n, int r, int *partner)
{
    int a = 0;

    for (int i = 0; i < n; i++)
        partner[i] = -1;
    while (r >= n - 1 - a) {
        r -= n - 1 - a;
        a++;
    }
    partner[a] = a + 1 + r;
    partner[a + 1 + r] = a;
}

void fab_sched_round(fab_sched_t s, int n, int r, int *partner)
{
    if (s == FAB_SCHED_SERIAL)
        fab_sched_nth_pair(n, r, partner);
    else if (s == FAB_SCHED_SHIFT)
        for (int m = 0; m < n; m++)
            partner[m] = (m + r + 1) % n;
    else
        fab_sched_circle(n, r, partner);
}
