/* `fabricbench show FILE.h5`: every run and table of a result file, printed in the live
 * layout, so a file can be inspected where there is no Python. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "out/columns.h"
#include "out/runmeta.h"
#include "out/show.h"
#include "out/text.h"

#include "fab_schema.h"

/* An attribute as text, or "" when absent; "?" when it is not one value (a file fabricbench
 * did not write: reading an array into one value would overrun it). */
static void fab_show_attr(hid_t obj, const char *name, char *out, size_t len)
{
    hid_t attr, type, space;
    char *v = NULL;
    hssize_t npoints;

    out[0] = '\0';
    if (H5Aexists(obj, name) <= 0)
        return;
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    space = H5Aget_space(attr);
    npoints = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    if (space >= 0)
        H5Sclose(space);
    type = H5Aget_type(attr);
    if (npoints != 1) {
        snprintf(out, len, "?");
    } else if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0 &&
               H5Aread(attr, type, &v) >= 0 && v) {
        snprintf(out, len, "%s", v);
        H5free_memory(v);
    } else if (H5Tget_class(type) == H5T_INTEGER) {
        long long n = 0;

        H5Aread(attr, H5T_NATIVE_LLONG, &n);
        snprintf(out, len, "%lld", n);
    } else if (H5Tget_class(type) == H5T_FLOAT) {
        double d = 0;

        H5Aread(attr, H5T_NATIVE_DOUBLE, &d);
        snprintf(out, len, "%g", d);
    }
    H5Tclose(type);
    H5Aclose(attr);
}

/* A dataset of variable-length strings (the placement, one per rank), one line each. */
static void fab_show_strings(hid_t g, const char *dset, const char *label, FILE *f)
{
    hid_t ds, space, type;
    hssize_t n;
    char **v;

    if (H5Lexists(g, dset, H5P_DEFAULT) <= 0 || (ds = H5Dopen2(g, dset, H5P_DEFAULT)) < 0)
        return;
    space = H5Dget_space(ds);
    n = H5Sget_simple_extent_npoints(space);
    type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    v = n > 0 ? calloc((size_t)n, sizeof(char *)) : NULL;
    if (v && H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
        for (hssize_t i = 0; i < n; i++)
            if (v[i])
                fprintf(f, "# %s: %s\n", label, v[i]);
        H5Dvlen_reclaim(type, space, H5P_DEFAULT, v);
    }
    free(v);
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(ds);
}

typedef struct fab_names {
    char **v;
    int n;
} fab_names_t;

static herr_t fab_show_collect(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    fab_names_t *names = data;
    char **grown = realloc(names->v, sizeof(char *) * (size_t)(names->n + 1));

    (void)g;
    (void)info;
    if (!grown)
        return -1;
    names->v = grown;
    names->v[names->n++] = strdup(name);
    return 0;
}

/* The children of a group, in name order (run_0000, 00_latency, ...). */
static fab_names_t fab_show_children(hid_t g)
{
    fab_names_t names = {NULL, 0};

    H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, fab_show_collect, &names);
    return names;
}

static void fab_show_names_free(fab_names_t *names)
{
    for (int i = 0; i < names->n; i++)
        free(names->v[i]);
    free(names->v);
}

static fab_status_t fab_show_table(hid_t table, fab_kind_t kind, FILE *f)
{
    double *cols[FAB_MAX_COLUMNS] = {NULL};
    hsize_t n = 0;
    bool first = true;
    fab_status_t st = FAB_OK;

    for (int c = 0; c < fab_ncolumns && st == FAB_OK; c++) {
        hid_t ds = H5Dopen2(table, fab_columns[c].name, H5P_DEFAULT), space;
        hsize_t len = 0;

        if (ds < 0)
            continue; /* a column this file does not have prints as nan */
        space = H5Dget_space(ds);
        if (H5Sget_simple_extent_ndims(space) != 1) {
            FAB_ERROR("column %s is not a 1-D dataset: not a table fabricbench wrote",
                      fab_columns[c].name);
            st = FAB_ERR_IO;
        } else {
            H5Sget_simple_extent_dims(space, &len, NULL);
        }
        H5Sclose(space);
        if (st != FAB_OK) {
            H5Dclose(ds);
            break;
        }
        if (first)
            n = len;
        first = false;
        cols[c] = malloc(sizeof(double) * (len ? len : 1));
        if (!cols[c])
            st = FAB_ERR_NOMEM;
        else if (len != n ||
                 H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, cols[c]) < 0)
            st = FAB_ERR_IO;
        H5Dclose(ds);
    }
    fab_out_text_columns(f, kind);
    for (hsize_t i = 0; i < n && st == FAB_OK; i++) {
        double v[FAB_MAX_COLUMNS];

        for (int c = 0; c < fab_ncolumns; c++)
            v[c] = cols[c] ? cols[c][i] : NAN;
        fab_out_text_values(f, kind, v);
    }
    for (int c = 0; c < fab_ncolumns; c++)
        free(cols[c]);
    return st;
}

static fab_status_t fab_show_kernel(hid_t kg, FILE *f)
{
    char name[64], summary[256], kind[32], ranks[64], policy[160], window[32], status[64];
    hid_t table;
    fab_status_t st;

    fab_show_attr(kg, "kernel", name, sizeof(name));
    fab_show_attr(kg, "summary", summary, sizeof(summary));
    fab_show_attr(kg, "kind", kind, sizeof(kind));
    fab_show_attr(kg, "ranks", ranks, sizeof(ranks));
    fab_show_attr(kg, "iteration_policy", policy, sizeof(policy));
    fab_show_attr(kg, "window", window, sizeof(window));
    fab_show_attr(kg, "status", status, sizeof(status));
    fprintf(f, "#\n# kernel: %s: %s\n# ranks: %s\n# iterations: %s\n", name, summary, ranks,
            policy);
    if (strcmp(window, "0") != 0 && window[0])
        fprintf(f, "# window: %s messages per iteration\n", window);
    {
        char dtype[32], op[16], arith[192], root[32];

        fab_show_attr(kg, "dtype", dtype, sizeof(dtype));
        fab_show_attr(kg, "op", op, sizeof(op));
        fab_show_attr(kg, "dtype_arithmetic", arith, sizeof(arith));
        fab_show_attr(kg, "root", root, sizeof(root));
        if (dtype[0])
            fprintf(f, "# dtype: %s%s%s%s%s%s\n", dtype, op[0] ? ", op " : "", op,
                    arith[0] ? " (" : "", arith, arith[0] ? ")" : "");
        if (root[0] && strcmp(root, "-2") != 0)
            fprintf(f, "# root: %s%s\n", strcmp(root, "-1") == 0 ? "rotating" : "fixed, rank ",
                    strcmp(root, "-1") == 0 ? "" : root);
    }
    {
        char detail[1024], opts[1024];

        fab_show_attr(kg, "detail", detail, sizeof(detail));
        fab_show_attr(kg, "options", opts, sizeof(opts));
        if (detail[0])
            fprintf(f, "# %s: %s\n", name, detail);
        if (opts[0])
            fprintf(f, "# options: %s\n", opts);
    }
    fprintf(f, "# status: %s\n", status);
    table = H5Gopen2(kg, "table", H5P_DEFAULT);
    if (table < 0)
        return FAB_ERR_IO;
    st = fab_show_table(table,
                        strcmp(kind, "latency") == 0      ? FAB_KIND_LATENCY
                        : strcmp(kind, "collective") == 0 ? FAB_KIND_COLLECTIVE
                                                          : FAB_KIND_BANDWIDTH,
                        f);
    H5Gclose(table);
    return st;
}

static fab_status_t fab_show_run(hid_t run, const char *name, FILE *f)
{
    char v[2048];
    hid_t kernels;
    fab_names_t names;
    fab_status_t st = FAB_OK;

    fprintf(f, "# run: %s\n", name);
    for (int i = 0; i < fab_nmeta; i++) {
        const fab_meta_field_t *m = &fab_meta_fields[i];

        if (!m->show || !(m->where & FAB_META_H5))
            continue;
        fab_show_attr(run, m->name, v, sizeof(v));
        if (v[0])
            fprintf(f, "# %s: %s\n", m->show, strcmp(v, "nan") == 0 ? "unknown" : v);
    }
    fab_show_strings(run, "placement", "placement", f);
    kernels = H5Gopen2(run, "kernels", H5P_DEFAULT);
    if (kernels < 0)
        return FAB_ERR_IO;
    names = fab_show_children(kernels);
    for (int i = 0; i < names.n && st == FAB_OK; i++) {
        hid_t kg = H5Gopen2(kernels, names.v[i], H5P_DEFAULT);

        st = kg >= 0 ? fab_show_kernel(kg, f) : FAB_ERR_IO;
        if (kg >= 0)
            H5Gclose(kg);
    }
    fab_show_names_free(&names);
    H5Gclose(kernels);
    return st;
}

fab_status_t fab_show(const char *path, FILE *f)
{
    hid_t file, runs;
    char schema[64], version[16], want[16];
    fab_names_t names;
    fab_status_t st = FAB_OK;

    fab_log_init(-1, "fabricbench show");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        FAB_ERROR("cannot open %s as an HDF5 file (missing, unreadable or not HDF5)", path);
        return FAB_ERR_IO;
    }
    fab_show_attr(file, "schema", schema, sizeof(schema));
    fab_show_attr(file, "schema_version", version, sizeof(version));
    runs = strcmp(schema, FAB_SCHEMA_NAME) == 0 ? H5Gopen2(file, "runs", H5P_DEFAULT) : -1;
    if (runs < 0) {
        FAB_ERROR("%s is an HDF5 file but not a fabricbench result file (schema '%s')", path,
                  schema);
        H5Fclose(file);
        return FAB_ERR_USAGE;
    }
    snprintf(want, sizeof(want), "%d", FAB_SCHEMA_VERSION);
    if (strcmp(version, want) != 0) {
        FAB_ERROR("%s has schema version %s; this fabricbench reads version %d", path, version,
                  FAB_SCHEMA_VERSION);
        H5Gclose(runs);
        H5Fclose(file);
        return FAB_ERR_USAGE;
    }
    fprintf(f, "# file: %s (schema %s version %s)\n", path, schema, version);
    names = fab_show_children(runs);
    for (int i = 0; i < names.n && st == FAB_OK; i++) {
        hid_t run = H5Gopen2(runs, names.v[i], H5P_DEFAULT);

        if (i)
            fprintf(f, "#\n");
        st = run >= 0 ? fab_show_run(run, names.v[i], f) : FAB_ERR_IO;
        if (run >= 0)
            H5Gclose(run);
    }
    fab_show_names_free(&names);
    H5Gclose(runs);
    H5Fclose(file);
    if (st != FAB_OK)
        FAB_ERROR("%s: a run could not be read completely", path);
    return st;
}
