/* SPDX-License-Identifier: BSD-3-Clause */
/* The group `matrix` of a pairs kernel (output/h5matrix.h): n x n datasets, the members' names,
 * the round each pair ran in, the retests, and at the end the verdict. Rewritten whole when
 * pairs/pairs.c hands it over (after rounds), each rewrite committed like a row, so a killed
 * run keeps the rounds handed over. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/h5matrix.h"
#include "output/h5write.h"

/* An n x n dataset of `type` (created at the first call, overwritten after). */
static herr_t fab_h5m_square(hid_t g, const char *name, hid_t type, int n, const void *v)
{
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)n};
    hid_t ds, space;
    herr_t rc;

    if (!v)
        return 0;
    if (H5Lexists(g, name, H5P_DEFAULT) > 0) {
        ds = H5Dopen2(g, name, H5P_DEFAULT);
    } else {
        space = H5Screate_simple(2, dims, NULL);
        ds = H5Dcreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(space);
    }
    if (ds < 0)
        return -1;
    rc = H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(ds);
    return rc;
}

/* The verdict: thresholds and medians as attributes, the pairs' verdict bits, each member's
 * suspect (-1: none) and one line per suspect. */
static herr_t fab_h5m_verdict(hid_t g, const fab_matrix_t *m)
{
    const fab_locate_t *v = m->verdict;
    char **lines = calloc((size_t)v->nsuspects + 1, sizeof(char *));
    herr_t rc = 0;

    if (!lines)
        return -1;
    fab_h5_attr_str(g, "verdict", v->nsuspects ? "suspects" : "healthy");
    fab_h5_attr_str(g, "fabric_error_port", m->err_port); /* "" none */
    fab_h5_attr_f64(g, "bw_median_MBps", v->bw_median);
    fab_h5_attr_f64(g, "lat_median_us", v->lat_median);
    fab_h5_attr_i64(g, "pairs_measured", v->npairs);
    fab_h5_attr_i64(g, "pairs_slow", v->nslow);
    fab_h5_attr_f64(g, "slow_bw_share", m->bw_frac);
    fab_h5_attr_f64(g, "slow_latency_factor", m->lat_factor);
    fab_h5_attr_f64(g, "line_rate_MBps", m->line_MBps > 0 ? m->line_MBps : NAN);
    fab_h5_attr_f64(g, "seconds", m->seconds);
    if (m->retest)
        fab_h5_attr_i64(g, "pairs_load_only", m->load_only);
    for (int i = 0; i < v->nsuspects && rc >= 0; i++) {
        char buf[1024];

        snprintf(buf, sizeof(buf), "%s: ", fab_suspect_kind_name(v->suspects[i].kind));
        fab_suspect_text(&v->suspects[i], m->names, m->gnames, buf + strlen(buf),
                         sizeof(buf) - strlen(buf));
        lines[i] = strdup(buf);
        rc = lines[i] ? 0 : -1;
    }
    if (rc >= 0)
        rc = fab_h5m_square(g, "pair_slow", H5T_NATIVE_UCHAR, m->n, v->slow);
    if (rc >= 0 && H5Lexists(g, "node_suspect", H5P_DEFAULT) <= 0) {
        hsize_t n = (hsize_t)m->n;
        hid_t space = H5Screate_simple(1, &n, NULL);
        hid_t ds = H5Dcreate2(g, "node_suspect", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT);

        rc = ds < 0 ? -1
                    : H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v->node_suspect);
        if (ds >= 0)
            H5Dclose(ds);
        H5Sclose(space);
    }
    if (rc >= 0 && H5Lexists(g, "suspects", H5P_DEFAULT) <= 0)
        rc = fab_h5_strings(g, "suspects", lines, (hsize_t)v->nsuspects);
    for (int i = 0; i < v->nsuspects; i++)
        free(lines[i]);
    free(lines);
    return rc;
}

herr_t fab_h5_matrix(hid_t kg, const fab_matrix_t *m)
{
    hid_t g;
    herr_t rc = 0;
    bool first = H5Lexists(kg, "matrix", H5P_DEFAULT) <= 0;

    g = first ? H5Gcreate2(kg, "matrix", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
              : H5Gopen2(kg, "matrix", H5P_DEFAULT);
    if (g < 0)
        return -1;
    if (first) {
        fab_h5_attr_str(g, "schedule", m->schedule);
        fab_h5_attr_str(g, "pairs_per", m->pairs_per);
        fab_h5_attr_i64(g, "bytes", (int64_t)m->bytes);
        fab_h5_attr_i64(g, "members", m->n);
        fab_h5_attr_i64(g, "rounds", m->rounds);
        fab_h5_attr_str(g, "policy", m->policy);
        fab_h5_attr_f64(g, "pair_time_s", m->pair_time_s);
        fab_h5_attr_f64(g, "expected_s", m->expect_s);
        fab_h5_attr_f64(g, "most_s", m->most_s);
        fab_h5_attr_str(g, "retest", m->retest ? "on" : "off");
        fab_h5_attr_f64(g, "line_rate_MBps", m->line_MBps > 0 ? m->line_MBps : NAN);
        rc = fab_h5_strings(g, "nodes", m->names, (hsize_t)m->n);
        if (rc >= 0 && m->ngroups > 0)
            rc = fab_h5_strings(g, "switches", m->gnames, (hsize_t)m->ngroups);
        if (rc >= 0) {
            hsize_t n = (hsize_t)m->n;
            hid_t space = H5Screate_simple(1, &n, NULL);
            hid_t ds = H5Dcreate2(g, "node_switch", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT);

            rc =
                ds < 0 ? -1 : H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, m->group);
            if (ds >= 0)
                H5Dclose(ds);
            H5Sclose(space);
        }
    }
    fab_h5_attr_i64(g, "rounds_done", m->rounds_done);
    fab_h5_attr_i64(g, "iterations", m->iterations);
    fab_h5_attr_i64(g, "iterations_max", m->iterations_max);
    fab_h5_attr_i64(g, "warmup", m->warmup);
    if (strcmp(m->policy, "adaptive") == 0) {
        fab_h5_attr_i64(g, "blocks_min", m->blocks_min);
        fab_h5_attr_i64(g, "pairs_imprecise", m->imprecise);
    }
    if (m->retest) {
        fab_h5_attr_i64(g, "retests", m->retests);
        fab_h5_attr_i64(g, "retested", m->retested);
    }
    if (rc >= 0)
        rc = fab_h5m_square(g, "lat_p50_us", H5T_NATIVE_DOUBLE, m->n, m->lat_p50);
    if (rc >= 0)
        rc = fab_h5m_square(g, "lat_p99_us", H5T_NATIVE_DOUBLE, m->n, m->lat_p99);
    if (rc >= 0)
        rc = fab_h5m_square(g, "bw_MBps", H5T_NATIVE_DOUBLE, m->n, m->bw);
    if (rc >= 0)
        rc = fab_h5m_square(g, "line_pct", H5T_NATIVE_DOUBLE, m->n, m->line_pct);
    if (rc >= 0)
        rc = fab_h5m_square(g, "round", H5T_NATIVE_INT, m->n, m->round);
    if (rc >= 0)
        rc = fab_h5m_square(g, "pair_iterations", H5T_NATIVE_INT, m->n, m->iters);
    if (rc >= 0 && m->retested > 0) {
        rc = fab_h5m_square(g, "retest_lat_p50_us", H5T_NATIVE_DOUBLE, m->n, m->re_lat_p50);
        if (rc >= 0)
            rc = fab_h5m_square(g, "retest_lat_p99_us", H5T_NATIVE_DOUBLE, m->n, m->re_lat_p99);
        if (rc >= 0)
            rc = fab_h5m_square(g, "retest_bw_MBps", H5T_NATIVE_DOUBLE, m->n, m->re_bw);
        if (rc >= 0)
            rc = fab_h5m_square(g, "retest_line_pct", H5T_NATIVE_DOUBLE, m->n, m->re_line_pct);
        if (rc >= 0)
            rc = fab_h5m_square(g, "retest_pair_iterations", H5T_NATIVE_INT, m->n, m->re_iters);
    }
    if (rc >= 0 && m->verdict)
        rc = fab_h5m_verdict(g, m);
    H5Gclose(g);
    return rc;
}
