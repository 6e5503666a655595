/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench show FILE.h5`: every run and table of a result file, printed in the live
 * layout, so a file can be inspected where there is no Python.
 *
 * The file is read as hostile until checked: every attribute shown must be one value of a
 * string or number type, every column a 1-D numeric dataset of the table's length, every run
 * and kernel a group. The first object that is not is named in one error line (exit 3), and
 * text from the file is printed with its control characters escaped. */
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/log.h"
#include "core/status.h"
#include "core/text.h"
#include "kernel/fab_kernel.h"
#include "kernel/registry.h"
#include "output/columns.h"
#include "output/runmeta.h"
#include "output/show.h"
#include "output/table.h"
#include "output/text.h"

#include "fab_schema.h"

#define FAB_SHOW_STR_MAX (1 << 20) /* longest string attribute read */

typedef struct fab_show {
    FILE *f;
    const char *path;
    fab_status_t st;     /* the first problem found (FAB_ERR_IO), after which nothing is printed */
    bool wide;           /* --wide */
    const char *columns; /* --columns, checked; NULL: a layout */
} fab_show_t;

/* The file does not match the schema: say what, once. */
static void fab_show_bad(fab_show_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fab_show_bad(fab_show_t *s, const char *fmt, ...)
{
    char what[512], safe[2048];
    va_list ap;

    if (s->st != FAB_OK)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    fab_text_safe(what, safe, sizeof(safe)); /* names of the file's groups come in what */
    FAB_ERROR("%s: %s (not as fabricbench writes it: a damaged or edited file)", s->path, safe);
    s->st = FAB_ERR_IO;
}

/* An attribute of obj (called `where` in messages) as text, "" when absent. It must be one
 * value: a string, an integer or a floating-point number. */
static void fab_show_attr(fab_show_t *s, hid_t obj, const char *where, const char *name, char *out,
                          size_t len)
{
    hid_t attr, type, space;
    H5T_class_t cls;
    hssize_t npoints;
    char *v = NULL;

    out[0] = '\0';
    if (s->st != FAB_OK || H5Aexists(obj, name) <= 0)
        return;
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0) {
        fab_show_bad(s, "attribute %s of %s cannot be read", name, where);
        return;
    }
    space = H5Aget_space(attr);
    npoints = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    type = H5Aget_type(attr);
    cls = H5Tget_class(type);
    if (npoints != 1) {
        fab_show_bad(s, "attribute %s of %s holds %lld values, not one", name, where,
                     (long long)npoints);
    } else if (cls == H5T_STRING && H5Tis_variable_str(type) > 0) {
        if (H5Aread(attr, type, &v) >= 0 && v) {
            fab_text_safe(v, out, len);
            H5free_memory(v);
        } else {
            fab_show_bad(s, "attribute %s of %s: its string cannot be read", name, where);
        }
    } else if (cls == H5T_STRING && H5Tget_size(type) < FAB_SHOW_STR_MAX) {
        size_t sz = H5Tget_size(type);
        char *buf = calloc(1, sz + 1);

        if (buf && H5Aread(attr, type, buf) >= 0)
            fab_text_safe(buf, out, len);
        else
            fab_show_bad(s, "attribute %s of %s: its string cannot be read", name, where);
        free(buf);
    } else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        double d = 0;

        if (H5Aread(attr, H5T_NATIVE_DOUBLE, &d) < 0)
            fab_show_bad(s, "attribute %s of %s: its number cannot be read", name, where);
        else if (cls == H5T_INTEGER)
            snprintf(out, len, "%.0f", d);
        else
            snprintf(out, len, "%g", d);
    } else {
        fab_show_bad(s, "attribute %s of %s is neither a string nor a number", name, where);
    }
    if (space >= 0)
        H5Sclose(space);
    H5Tclose(type);
    H5Aclose(attr);
}

/* A 1-D dataset of variable-length strings (the placement, one per rank), one line each. */
static void fab_show_strings(fab_show_t *s, hid_t g, const char *where, const char *dset,
                             const char *label)
{
    hid_t ds, space, ftype, type;
    hssize_t n;
    char **v = NULL;

    if (s->st != FAB_OK || H5Lexists(g, dset, H5P_DEFAULT) <= 0)
        return;
    ds = H5Dopen2(g, dset, H5P_DEFAULT);
    if (ds < 0) {
        fab_show_bad(s, "%s/%s is not a dataset", where, dset);
        return;
    }
    space = H5Dget_space(ds);
    ftype = H5Dget_type(ds);
    n = H5Sget_simple_extent_npoints(space);
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Tget_class(ftype) != H5T_STRING ||
        H5Tis_variable_str(ftype) <= 0) {
        fab_show_bad(s, "%s/%s is not a 1-D dataset of strings", where, dset);
    } else if (n > 0) {
        type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, H5T_VARIABLE);
        v = calloc((size_t)n, sizeof(char *));
        if (v && H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
            for (hssize_t i = 0; i < n; i++) {
                char line[1024];

                fab_text_safe(v[i] ? v[i] : "", line, sizeof(line));
                fab_out_text_line(s->f, "# %s: %s", label, line);
            }
            H5Dvlen_reclaim(type, space, H5P_DEFAULT, v);
        } else {
            fab_show_bad(s, "%s/%s cannot be read", where, dset);
        }
        free(v);
        H5Tclose(type);
    }
    H5Tclose(ftype);
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
    names->v[names->n] = strdup(name);
    return names->v[names->n++] ? 0 : -1;
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

/* Group `name` of g (a run, a kernel, its table), or an error naming it. */
static hid_t fab_show_group(fab_show_t *s, hid_t g, const char *where, const char *name)
{
    H5O_info_t oi;
    hid_t out = -1;

    if (s->st != FAB_OK)
        return -1;
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
        fab_show_bad(s, "%s has no %s", where, name);
    else if (H5Oget_info_by_name(g, name, &oi, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_GROUP)
        fab_show_bad(s, "%s/%s is not a group", where, name);
    else if ((out = H5Gopen2(g, name, H5P_DEFAULT)) < 0)
        fab_show_bad(s, "%s/%s cannot be opened", where, name);
    return out;
}

/* Open column `name` of a table: false when the table has none, or it is not a dataset
 * (said). */
static bool fab_show_open(fab_show_t *s, hid_t table, const char *where, const char *name,
                          hid_t *ds, hid_t *space, hid_t *type)
{
    if (H5Lexists(table, name, H5P_DEFAULT) <= 0)
        return false;
    *ds = H5Dopen2(table, name, H5P_DEFAULT);
    if (*ds < 0) {
        fab_show_bad(s, "%s/%s is not a dataset", where, name);
        return false;
    }
    *space = H5Dget_space(*ds);
    *type = H5Dget_type(*ds);
    return true;
}

/* A column's rows, which must be the table's (*n, set by the first column read); false
 * (said) when they are not. */
static bool fab_show_rows(fab_show_t *s, hid_t space, const char *where, const char *name,
                          hsize_t n, bool first, hsize_t *len)
{
    if (H5Sget_simple_extent_dims(space, len, NULL) == 1 && (first || *len == n))
        return true;
    fab_show_bad(s, "column %s/%s has %llu rows, the table %llu", where, name,
                 (unsigned long long)*len, (unsigned long long)n);
    return false;
}

/* One column: a 1-D numeric dataset of *n rows (the first column found sets *n); NULL when
 * the table has no such column (it prints as nan) or on a problem. */
static double *fab_show_column(fab_show_t *s, hid_t table, const char *where, const char *name,
                               hsize_t *n, bool *first)
{
    hid_t ds, space, type;
    hsize_t len = 0;
    H5T_class_t cls;
    double *v = NULL;

    if (!fab_show_open(s, table, where, name, &ds, &space, &type))
        return NULL;
    cls = H5Tget_class(type);
    if (H5Sget_simple_extent_ndims(space) != 1)
        fab_show_bad(s, "column %s/%s is not 1-D", where, name);
    else if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        fab_show_bad(s, "column %s/%s is not numeric", where, name);
    else if (!fab_show_rows(s, space, where, name, *n, *first, &len))
        ;
    else if (!(v = malloc(sizeof(double) * (len ? len : 1))))
        s->st = FAB_ERR_NOMEM;
    else if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
        fab_show_bad(s, "column %s/%s cannot be read", where, name);
    if (s->st != FAB_OK) {
        free(v);
        v = NULL;
    } else {
        *n = len;
        *first = false;
    }
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(ds);
    return v;
}

/* A text column (a collective's type, redop): a 1-D dataset of variable-length strings of *n
 * rows, each made safe and at most FAB_SHOW_NAME_MAX long; NULL when the table has none (a
 * file written before it: the table prints -) or on a problem. */
#define FAB_SHOW_NAME_MAX 80 /* type, redop: names; quality_reason: up to 79 */

static char **fab_show_text_column(fab_show_t *s, hid_t table, const char *where, const char *name,
                                   hsize_t *n, bool *first)
{
    hid_t ds, space, ftype, type = -1;
    hsize_t len = 0;
    char **raw = NULL, **out = NULL;
    bool read = false;

    if (!fab_show_open(s, table, where, name, &ds, &space, &ftype))
        return NULL;
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Tget_class(ftype) != H5T_STRING ||
        H5Tis_variable_str(ftype) <= 0)
        fab_show_bad(s, "column %s/%s is not a 1-D dataset of strings", where, name);
    else if (!fab_show_rows(s, space, where, name, *n, *first, &len))
        ;
    else if (!(raw = calloc(len ? len : 1, sizeof(char *))) ||
             !(out = calloc(len ? len : 1, sizeof(char *))))
        s->st = FAB_ERR_NOMEM;
    if (s->st == FAB_OK && len) {
        type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, H5T_VARIABLE);
        read = H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) >= 0;
        if (!read)
            fab_show_bad(s, "column %s/%s cannot be read", where, name);
    }
    for (hsize_t i = 0; s->st == FAB_OK && i < len; i++) {
        char safe[4 * FAB_SHOW_NAME_MAX + 8];
        size_t sl = raw[i] ? strlen(raw[i]) : 0;

        if (sl > FAB_SHOW_NAME_MAX) {
            fab_show_bad(s, "column %s/%s row %llu is %zu bytes long; it holds a name", where, name,
                         (unsigned long long)i, sl);
            break;
        }
        fab_text_safe(raw[i] ? raw[i] : "", safe, sizeof(safe));
        if (!(out[i] = strdup(safe)))
            s->st = FAB_ERR_NOMEM;
    }
    if (read)
        H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw);
    free(raw);
    if (s->st != FAB_OK && out) {
        for (hsize_t i = 0; i < len; i++)
            free(out[i]);
        free(out);
        out = NULL;
    } else if (out) {
        *n = len;
        *first = false;
    }
    if (type >= 0)
        H5Tclose(type);
    H5Tclose(ftype);
    H5Sclose(space);
    H5Dclose(ds);
    return out;
}

static void fab_show_table(fab_show_t *s, hid_t table, const char *where, fab_kind_t kind,
                           const fab_kernel_t *kernel)
{
    double *cols[FAB_MAX_COLUMNS] = {NULL};
    char **text[FAB_MAX_COLUMNS] = {NULL};
    hsize_t n = 0;
    bool first = true;
    fab_text_table_t t;
    fab_text_marks_t marks;
    int busbw = fab_column_find("busbw_GBps"), nbus = 0;
    double sum = 0;

    for (int c = 0; c < fab_ncolumns && s->st == FAB_OK; c++) {
        if (fab_columns[c].type == FAB_COL_STR)
            text[c] = fab_show_text_column(s, table, where, fab_columns[c].name, &n, &first);
        else
            cols[c] = fab_show_column(s, table, where, fab_columns[c].name, &n, &first);
    }
    fab_text_table(kind, kernel, s->wide, s->columns, &t);
    fab_text_table_overlap(&t, !s->wide && !s->columns, cols[fab_column_find("overlap_pct")], n);
    fab_text_marks_init(&marks);
    if (s->st == FAB_OK)
        fab_text_heading(s->f, &t);
    for (hsize_t i = 0; i < n && s->st == FAB_OK; i++) {
        double v[FAB_MAX_COLUMNS];
        const char *str[FAB_MAX_COLUMNS];

        for (int c = 0; c < fab_ncolumns; c++) {
            v[c] = cols[c] ? cols[c][i] : NAN;
            str[c] = text[c] ? text[c][i] : NULL;
        }
        fab_text_row(s->f, &t, v, str);
        fab_text_marks_add(&marks, v, str);
        if (kind == FAB_KIND_COLLECTIVE && isfinite(v[busbw])) {
            sum += v[busbw];
            nbus++;
        }
    }
    if (s->st == FAB_OK) {
        fab_out_text_avg_busbw(s->f, sum, nbus);
        fab_out_text_marks(s->f, &marks);
    }
    for (int c = 0; c < fab_ncolumns; c++) {
        free(cols[c]);
        for (hsize_t i = 0; text[c] && i < n; i++)
            free(text[c][i]);
        free(text[c]);
    }
}

/* The kernel's attributes as its live header says them. */
static void fab_show_kernel_header(fab_show_t *s, hid_t kg, const char *w, const char *name)
{
    char summary[256], ranks[64], policy[512], window[32], status[64], dtype[32], op[16];
    char arith[192], root[32], detail[1024], opts[1024], variant[96];

    fab_show_attr(s, kg, w, "summary", summary, sizeof(summary));
    fab_show_attr(s, kg, w, "variant", variant, sizeof(variant));
    fab_show_attr(s, kg, w, "ranks", ranks, sizeof(ranks));
    fab_show_attr(s, kg, w, "iteration_policy", policy, sizeof(policy));
    fab_show_attr(s, kg, w, "window", window, sizeof(window));
    fab_show_attr(s, kg, w, "status", status, sizeof(status));
    fab_show_attr(s, kg, w, "dtype", dtype, sizeof(dtype));
    fab_show_attr(s, kg, w, "op", op, sizeof(op));
    fab_show_attr(s, kg, w, "dtype_arithmetic", arith, sizeof(arith));
    fab_show_attr(s, kg, w, "root", root, sizeof(root));
    fab_show_attr(s, kg, w, "detail", detail, sizeof(detail));
    fab_show_attr(s, kg, w, "options", opts, sizeof(opts));
    if (s->st != FAB_OK)
        return;
    fprintf(s->f, "#\n");
    fab_out_text_line(s->f, "# kernel: %s%s%s: %s", name, variant[0] ? " " : "", variant, summary);
    fab_out_text_line(s->f, "# ranks: %s", ranks);
    fab_out_text_line(s->f, "# iterations: %s", policy);
    if (strcmp(window, "0") != 0 && window[0])
        fprintf(s->f, "# window: %s messages per iteration\n", window);
    if (dtype[0])
        fab_out_text_line(s->f, "# dtype: %s%s%s%s%s%s", dtype, op[0] ? ", op " : "", op,
                          arith[0] ? " (" : "", arith, arith[0] ? ")" : "");
    if (root[0] && strcmp(root, "-2") != 0)
        fprintf(s->f, "# root: %s%s\n", strcmp(root, "-1") == 0 ? "rotating" : "fixed, rank ",
                strcmp(root, "-1") == 0 ? "" : root);
    if (detail[0])
        fab_out_text_line(s->f, "# %s: %s", name, detail);
    if (opts[0])
        fab_out_text_line(s->f, "# options: %s", opts);
    fprintf(s->f, "# status: %s\n", status);
}

/* A pairs kernel's verdict (the matrix itself: h5py, fabricbench-analyze). */
static void fab_show_matrix(fab_show_t *s, hid_t kg, const char *where)
{
    char mw[2304], verdict[32], slow[32], pairs[32], done[32], rounds[32], sched[32];
    char retest[32], retests[32], retested[32], load[32];
    hid_t g = fab_show_group(s, kg, where, "matrix");

    if (g < 0)
        return;
    snprintf(mw, sizeof(mw), "%s/matrix", where);
    fab_show_attr(s, g, mw, "verdict", verdict, sizeof(verdict));
    fab_show_attr(s, g, mw, "pairs_slow", slow, sizeof(slow));
    fab_show_attr(s, g, mw, "pairs_measured", pairs, sizeof(pairs));
    fab_show_attr(s, g, mw, "rounds_done", done, sizeof(done));
    fab_show_attr(s, g, mw, "rounds", rounds, sizeof(rounds));
    fab_show_attr(s, g, mw, "schedule", sched, sizeof(sched));
    fab_show_attr(s, g, mw, "retest", retest, sizeof(retest));
    fab_show_attr(s, g, mw, "retests", retests, sizeof(retests));
    fab_show_attr(s, g, mw, "retested", retested, sizeof(retested));
    fab_show_attr(s, g, mw, "pairs_load_only", load, sizeof(load));
    if (s->st == FAB_OK)
        fab_out_text_line(s->f, "# pairs: %s measured in %s of %s rounds (%s); verdict: %s%s%s%s",
                          pairs, done, rounds, sched,
                          verdict[0] ? verdict : "none yet (the run did not finish)",
                          slow[0] ? " (" : "", slow, slow[0] ? " slow pairs)" : "");
    if (s->st == FAB_OK && strcmp(retest, "on") == 0 && atoi(retests) > 0)
        fab_out_text_line(s->f,
                          "# retest: %s of %s slow pairs measured again alone; %s fine alone "
                          "(slow only under load)",
                          retested, retests, load[0] ? load : "n/a");
    fab_show_strings(s, g, mw, "suspects", "suspect");
    H5Gclose(g);
}

static void fab_show_kernel(fab_show_t *s, hid_t kg, const char *where)
{
    char name[64], kind[32], tw[2560];
    fab_kind_t k = FAB_KIND_BANDWIDTH;
    hid_t table;

    fab_show_attr(s, kg, where, "kernel", name, sizeof(name));
    fab_show_attr(s, kg, where, "kind", kind, sizeof(kind));
    if (s->st == FAB_OK && strcmp(kind, "latency") == 0)
        k = FAB_KIND_LATENCY;
    else if (s->st == FAB_OK && strcmp(kind, "collective") == 0)
        k = FAB_KIND_COLLECTIVE;
    else if (s->st == FAB_OK && strcmp(kind, "bandwidth") != 0)
        fab_show_bad(s, "%s: kind '%s' is none of latency, bandwidth, collective", where, kind);
    fab_show_kernel_header(s, kg, where, name);
    table = fab_show_group(s, kg, where, "table");
    snprintf(tw, sizeof(tw), "%s/table", where);
    if (table >= 0) {
        /* this build's kernel of that name, for its own table (NULL: the kind's) */
        fab_show_table(s, table, tw, k, s->st == FAB_OK ? fab_kernel_find(name) : NULL);
        H5Gclose(table);
    }
    if (s->st == FAB_OK && H5Lexists(kg, "matrix", H5P_DEFAULT) > 0)
        fab_show_matrix(s, kg, where);
}

static void fab_show_run(fab_show_t *s, hid_t run, const char *where)
{
    char v[2048], kw[1024];
    hid_t kernels;
    fab_names_t names;

    fab_text_safe(strrchr(where, '/') + 1, v, sizeof(v));
    fprintf(s->f, "# run: %s\n", v);
    for (int i = 0; i < fab_nmeta && s->st == FAB_OK; i++) {
        const fab_meta_field_t *m = &fab_meta_fields[i];

        if (!m->show || !(m->where & FAB_META_H5))
            continue;
        fab_show_attr(s, run, where, m->name, v, sizeof(v));
        if (v[0] && strcmp(m->name, "command_line") == 0) /* whole, to be copied, as live */
            fprintf(s->f, "# %s: %s\n", m->show, v);
        else if (v[0])
            fab_out_text_line(s->f, "# %s: %s", m->show, strcmp(v, "nan") == 0 ? "unknown" : v);
    }
    fab_show_strings(s, run, where, "placement", "placement");
    kernels = fab_show_group(s, run, where, "kernels");
    if (kernels < 0)
        return;
    snprintf(kw, sizeof(kw), "%s/kernels", where);
    names = fab_show_children(kernels);
    for (int i = 0; i < names.n && s->st == FAB_OK; i++) {
        hid_t kg = fab_show_group(s, kernels, kw, names.v[i]);
        char w[2048];

        snprintf(w, sizeof(w), "%s/%s", kw, names.v[i]);
        if (kg >= 0) {
            fab_show_kernel(s, kg, w);
            H5Gclose(kg);
        }
    }
    fab_show_names_free(&names);
    H5Gclose(kernels);
}

fab_status_t fab_show(const char *path, FILE *f, bool wide, const char *columns)
{
    fab_show_t s = {f, path, FAB_OK, wide, columns};
    hid_t file, runs;
    char schema[64], version[16], want[16], safe[4200];
    fab_names_t names;

    fab_log_init(-1, "fabricbench show");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (fab_file_kind(path) && strcmp(fab_file_kind(path), "a regular file") != 0) {
        FAB_ERROR("%s is %s, not a result file: give the path of an .h5 file", path,
                  fab_file_kind(path)); /* a FIFO would block the reader for good */
        return FAB_ERR_USAGE;
    }
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        FAB_ERROR("cannot open %s as an HDF5 file (missing, unreadable or not HDF5)", path);
        return FAB_ERR_IO;
    }
    fab_show_attr(&s, file, "/", "schema", schema, sizeof(schema));
    fab_show_attr(&s, file, "/", "schema_version", version, sizeof(version));
    if (s.st == FAB_OK && strcmp(schema, FAB_SCHEMA_NAME) != 0) {
        FAB_ERROR("%s is an HDF5 file but not a fabricbench result file (schema '%s')", path,
                  schema);
        H5Fclose(file);
        return FAB_ERR_USAGE;
    }
    snprintf(want, sizeof(want), "%ld", strtol(version, NULL, 10)); /* versions 1 to ours */
    if (s.st == FAB_OK &&
        (strcmp(version, want) != 0 || atol(want) < 1 || atol(want) > FAB_SCHEMA_VERSION)) {
        FAB_ERROR("%s has schema version %s; this fabricbench reads versions 1 to %d", path,
                  version, FAB_SCHEMA_VERSION);
        H5Fclose(file);
        return FAB_ERR_USAGE;
    }
    runs = fab_show_group(&s, file, "the file", "runs");
    if (runs >= 0) {
        fab_text_safe(path, safe, sizeof(safe));
        fprintf(f, "# file: %s (schema %s version %s)\n", safe, schema, version);
        names = fab_show_children(runs);
        for (int i = 0; i < names.n && s.st == FAB_OK; i++) {
            hid_t run = fab_show_group(&s, runs, "/runs", names.v[i]);
            char w[512];

            snprintf(w, sizeof(w), "/runs/%s", names.v[i]);
            if (i && run >= 0)
                fprintf(f, "#\n");
            if (run >= 0) {
                fab_show_run(&s, run, w);
                H5Gclose(run);
            }
        }
        fab_show_names_free(&names);
        H5Gclose(runs);
    }
    H5Fclose(file);
    return s.st;
}
