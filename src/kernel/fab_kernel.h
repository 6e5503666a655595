/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel interface: everything a file in kernels/ needs, and nothing more.
 *
 * A kernel is one communication pattern. It fills a fab_kernel_t (kernel/descriptor.h) and
 * the parts of it that it needs (kernel/kext.h); the harness owns the buffers, the warm-up,
 * the iteration loop and its timestamps, validation bookkeeping, cross-rank reduction,
 * statistics, options and every output. docs/DEVELOPING.md says how to add one. */
#ifndef FAB_KERNEL_H
#define FAB_KERNEL_H

#include "kernel/descriptor.h"
#include "kernel/kext.h"

/* What kernels share: data patterns and the windowed exchange, collectives' helpers. */
#include "kernel/collective.h"
#include "kernel/kbuf.h"
#include "kernel/patterns.h"

#endif
