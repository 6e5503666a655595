/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel's metadata in a run (output/kernelmeta.c): one list of fields that the HDF5 file (the
 * kernel group's attributes) and the JSON outputs (kernel records, the document's kernels)
 * both write, so each has one name, type and value (docs/SCHEMA.md describes them). */
#ifndef FAB_OUTPUT_KERNELMETA_H
#define FAB_OUTPUT_KERNELMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "output/runmeta.h"

typedef struct fab_kfield {
    const char *name;
    fab_meta_type_t type; /* FAB_META_STR, FAB_META_INT or FAB_META_F64 */
    const char *s;
    int64_t i;
    double d;
} fab_kfield_t;

#define FAB_KMETA_MAX 24

/* The fields of one kernel run; strings point into the struct itself or to constants. */
typedef struct fab_kmeta {
    fab_kfield_t f[FAB_KMETA_MAX];
    int n;
    char ranks[64], policy[512], options[1024], variant[96];
} fab_kmeta_t;

/* The fields of instance ki as it starts: pair (NULL: all ranks), detail and policy as
 * kernel_begin gets them. */
void fab_kmeta_fill(fab_kmeta_t *m, const fab_kinst_t *ki, const fab_measopts_t *mopt,
                    const int *pair, const fab_world_t *w, const char *detail, const char *policy);
/* The variant of a collective's in-place instance (fab_kinst_t.inplace, --inplace). */
#define FAB_VARIANT_INPLACE "--inplace on"
/* A value of kernel k's axis option (fab_kernel_t.axis; an instance's is fab_kinst_t.axis):
 * "--streams 4", "--rate 2.5G" (with_option) or "4", "2.5G"; "" for a kernel without one. */
void fab_kernel_variant(const fab_kernel_t *k, double value, char *buf, size_t len,
                        bool with_option);
/* "latency", "bandwidth" or "collective". */
const char *fab_kind_name(fab_kind_t kind);

#endif
