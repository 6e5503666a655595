/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernels this build has, in the order of FAB_KERNELS in CMakeLists.txt (the registry is
 * generated from that list). */
#ifndef FAB_KERNEL_REGISTRY_H
#define FAB_KERNEL_REGISTRY_H

#include "kernel/fab_kernel.h"

extern const fab_kernel_t *const fab_kernels[];
extern const int fab_nkernels;
/* The kernel called name, or NULL. */
const fab_kernel_t *fab_kernel_find(const char *name);

#endif
