/* SPDX-License-Identifier: BSD-3-Clause */
/* What the harness reads of a descriptor: each optional part (kernel/kext.h), or an empty one
 * where the kernel has none, so that a reader never tests for NULL (fab_kp2p(k)->uses_window
 * is false for a collective). Not for kernels/: they fill the parts. */
#ifndef FAB_KERNEL_TRAITS_H
#define FAB_KERNEL_TRAITS_H

#include "kernel/descriptor.h"
#include "kernel/kext.h"

#define FAB_KPART(type, fn, member)                                                                \
    static inline const type *fn(const fab_kernel_t *k)                                            \
    {                                                                                              \
        static const type none;                                                                    \
        return k->member ? k->member : &none;                                                      \
    }
FAB_KPART(fab_kopts_t, fab_kopts, options)
FAB_KPART(fab_kp2p_t, fab_kp2p, p2p)
FAB_KPART(fab_kcoll_t, fab_kcoll, coll)
FAB_KPART(fab_kcolumns_t, fab_kcolumns, columns)
FAB_KPART(fab_kbudget_t, fab_kbudget, budget)
FAB_KPART(fab_kmem_t, fab_kmem, mem)
#undef FAB_KPART

/* Which ranks take part in this run: its options' choice (ranks_now), else its own. */
static inline fab_ranks_t fab_kranks(const fab_kernel_t *k)
{
    return k->ranks_now ? k->ranks_now() : k->ranks;
}

/* Reported time = iteration time / this (ping-pong: 2; 1 unless the kernel says). */
static inline double fab_ktime_divisor(const fab_kernel_t *k)
{
    return k->p2p && k->p2p->time_divisor > 0 ? k->p2p->time_divisor : 1.0;
}

/* The name of k's axis option, NULL without one. */
static inline const char *fab_kaxis_option(const fab_kernel_t *k)
{
    return k->axis ? k->axis->option : NULL;
}

#endif
