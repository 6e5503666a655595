/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing HDF5 attributes and string datasets the way the result file wants them: strings
 * variable-length and UTF-8 (bytes that are not become \xNN, core/text.h), an attribute
 * replaced when it exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "output/h5write.h"

/* A string attribute, UTF-8 (bytes that are not become \xNN, core/text.h). */
herr_t fab_h5_attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t type, space, attr;
    herr_t rc = -1;
    char *clean = NULL;

    if (!value)
        value = "";
    if (!fab_utf8_valid(value)) {
        clean = fab_utf8_clean(value);
        if (!clean)
            return -1;
        value = clean;
    }
    type = H5Tcopy(H5T_C_S1);
    space = H5Screate(H5S_SCALAR);

    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) {
        rc = H5Awrite(attr, type, &value);
        H5Aclose(attr);
    }
    H5Sclose(space);
    H5Tclose(type);
    free(clean);
    return rc;
}

herr_t fab_h5_attr_num(hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR), attr;
    herr_t rc = -1;

    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) {
        rc = H5Awrite(attr, type, value);
        H5Aclose(attr);
    }
    H5Sclose(space);
    return rc;
}

herr_t fab_h5_attr_i64(hid_t obj, const char *name, int64_t v)
{
    return fab_h5_attr_num(obj, name, H5T_NATIVE_INT64, &v);
}

herr_t fab_h5_attr_f64(hid_t obj, const char *name, double v)
{
    return fab_h5_attr_num(obj, name, H5T_NATIVE_DOUBLE, &v);
}

/* A 1-D dataset of strings (one per rank: hosts can outgrow an attribute's 64 KiB). */
herr_t fab_h5_strings(hid_t parent, const char *name, char *const *in, hsize_t n)
{
    hid_t type, space, ds;
    herr_t rc = -1;
    char **v = calloc(n ? n : 1, sizeof(*v)); /* each UTF-8, as fab_h5_attr_str */

    for (hsize_t i = 0; v && i < n; i++) {
        v[i] = fab_utf8_clean(in[i] ? in[i] : "");
        if (!v[i]) {
            for (hsize_t j = 0; j < i; j++)
                free(v[j]);
            free(v);
            v = NULL;
        }
    }
    if (!v)
        return -1;
    type = H5Tcopy(H5T_C_S1);
    space = H5Screate_simple(1, &n, NULL);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    ds = H5Dcreate2(parent, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (ds >= 0) {
        rc = H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        H5Dclose(ds);
    }
    H5Sclose(space);
    H5Tclose(type);
    for (hsize_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return rc;
}

/* "NAME=value" strings as the attributes of a group. */
void fab_h5_env(hid_t run, const char *name, char *const *kv, int n)
{
    hid_t env = H5Gcreate2(run, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

    for (int i = 0; env >= 0 && i < n; i++) {
        char key[256];
        const char *eq = strchr(kv[i], '=');

        if (!eq || (size_t)(eq - kv[i]) >= sizeof(key))
            continue;
        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
        if (!fab_utf8_valid(key)) { /* a name h5py could not decode: recorded escaped */
            char *clean = fab_utf8_clean(key);

            if (clean)
                fab_h5_attr_str(env, clean, eq + 1);
            free(clean);
            continue;
        }
        fab_h5_attr_str(env, key, eq + 1);
    }
    if (env >= 0)
        H5Gclose(env);
}

/* An attribute that holds one value (reading an array into one would overrun it). */
bool fab_h5_one_value(hid_t attr)
{
    hid_t space = H5Aget_space(attr);
    bool one = space >= 0 && H5Sget_simple_extent_npoints(space) == 1;

    if (space >= 0)
        H5Sclose(space);
    return one;
}

hid_t fab_h5_str_type(void)
{
    hid_t type = H5Tcopy(H5T_C_S1);

    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    return type;
}

hid_t fab_h5_col_type(fab_col_type_t t)
{
    return t == FAB_COL_STR   ? fab_h5_str_type()
           : t == FAB_COL_F64 ? H5Tcopy(H5T_NATIVE_DOUBLE)
           : t == FAB_COL_U64 ? H5Tcopy(H5T_NATIVE_UINT64)
                              : H5Tcopy(H5T_NATIVE_INT64);
}

herr_t fab_h5_append_value(hid_t table, const char *name, fab_col_type_t t, hsize_t at,
                           const fab_value_t *v)
{
    hid_t str;
    herr_t rc;

    if (t == FAB_COL_F64)
        return fab_h5_append(table, name, H5T_NATIVE_DOUBLE, at, &v->d);
    if (t != FAB_COL_STR)
        return fab_h5_append(table, name, H5T_NATIVE_INT64, at, &v->i);
    str = fab_h5_str_type();
    rc = fab_h5_append(table, name, str, at, &v->s);
    H5Tclose(str);
    return rc;
}

/* One element at index `at` of an extendible 1-D dataset, growing it to at + 1. */
herr_t fab_h5_append(hid_t table, const char *name, hid_t type, hsize_t at, const void *value)
{
    hid_t ds = H5Dopen2(table, name, H5P_DEFAULT), file_space, mem_space;
    hsize_t n = at + 1, one = 1;
    herr_t rc = -1;

    if (ds < 0)
        return -1;
    if (H5Dset_extent(ds, &n) >= 0) {
        file_space = H5Dget_space(ds);
        mem_space = H5Screate_simple(1, &one, NULL);
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &at, NULL, &one, NULL);
        rc = H5Dwrite(ds, type, mem_space, file_space, H5P_DEFAULT, value);
        H5Sclose(mem_space);
        H5Sclose(file_space);
    }
    H5Dclose(ds);
    return rc;
}

/* The length of the 1-D dataset `name` in `parent`; 0 when it cannot be read. */
hsize_t fab_h5_length(hid_t parent, const char *name)
{
    hid_t ds = H5Dopen2(parent, name, H5P_DEFAULT), space;
    hsize_t n = 0;

    if (ds < 0)
        return 0;
    space = H5Dget_space(ds);
    if (space >= 0 && H5Sget_simple_extent_ndims(space) == 1)
        H5Sget_simple_extent_dims(space, &n, NULL);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(ds);
    return n;
}

hid_t fab_h5_group(hid_t parent, const char *name)
{
    if (H5Lexists(parent, name, H5P_DEFAULT) > 0)
        return H5Gopen2(parent, name, H5P_DEFAULT);
    return H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

hid_t fab_h5_vector(hid_t parent, const char *name, const double *v, size_t n, bool compress)
{
    hsize_t dims = n, chunk = n < 65536 ? n : 65536;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), space, ds;

    if (compress && n > 0) {
        H5Pset_chunk(dcpl, 1, &chunk);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 4);
    }
    space = H5Screate_simple(1, &dims, NULL);
    ds = H5Dcreate2(parent, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds >= 0 && n > 0 && H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        H5Dclose(ds);
        ds = -1;
    }
    if (ds >= 0)
        fab_h5_attr_str(ds, "units", "us");
    H5Sclose(space);
    H5Pclose(dcpl);
    return ds;
}
