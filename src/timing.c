/* The timer. CLOCK_MONOTONIC is read through the vDSO (no system call) on Linux. */
#include <stdlib.h>
#include <time.h>

#include "fab.h"

uint64_t fab_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fab_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double fab_timer_cost_ns(int n)
{
    enum { CALLS = 1000 };
    double *per = malloc(sizeof(*per) * (size_t)n);
    double med;

    if (!per || n <= 0) {
        free(per);
        return -1.0;
    }
    for (int r = 0; r < n; r++) {
        uint64_t t0 = fab_now_ns(), t1 = t0;

        for (int i = 0; i < CALLS; i++)
            t1 = fab_now_ns();
        per[r] = (double)(t1 - t0) / CALLS;
    }
    qsort(per, (size_t)n, sizeof(*per), fab_cmp_double);
    med = per[n / 2];
    free(per);
    return med;
}
