/* SPDX-License-Identifier: BSD-3-Clause */
/* A row's vectors in the HDF5 file (output/h5rows.h). */
#include <stdio.h>
#include <stdlib.h>

#include "kernel/traits.h"
#include "output/h5rows.h"
#include "output/h5write.h"

fab_status_t fab_h5_row_samples(hid_t group, const fab_kernel_t *k, const fab_row_t *r,
                                const double *samples, size_t n)
{
    double *us = malloc(sizeof(double) * (n ? n : 1));
    char name[32];
    hid_t ds;

    if (!us)
        return FAB_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        us[i] = samples[i] / fab_ktime_divisor(k) * 1e6;
    snprintf(name, sizeof(name), "%llu", (unsigned long long)r->bytes);
    ds = fab_h5_vector(group, name, us, n, true);
    free(us);
    if (ds < 0)
        return FAB_ERR_IO;
    fab_h5_attr_i64(ds, "iterations", (int64_t)r->iters);
    fab_h5_attr_i64(ds, "complete", n == r->iters);
    H5Dclose(ds);
    return FAB_OK;
}

fab_status_t fab_h5_row_blocks(hid_t kernel, const fab_row_t *r)
{
    hid_t g = fab_h5_group(kernel, "blocks"), ds = -1;
    double us[FAB_ADAPT_MAX_BLOCKS];
    unsigned n =
        r->nblock_medians < FAB_ADAPT_MAX_BLOCKS ? r->nblock_medians : FAB_ADAPT_MAX_BLOCKS;
    char name[32];

    for (unsigned i = 0; i < n; i++)
        us[i] = r->block_median[i] * 1e6;
    snprintf(name, sizeof(name), "%llu", (unsigned long long)r->bytes);
    if (g >= 0)
        ds = fab_h5_vector(g, name, us, n, false);
    if (ds >= 0) {
        fab_h5_attr_i64(ds, "regimes", r->regimes);
        H5Dclose(ds);
    }
    if (g >= 0)
        H5Gclose(g);
    return ds < 0 ? FAB_ERR_IO : FAB_OK;
}
