/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 calls of fabricbench, forwarded to the library once it is loaded with dlopen
 * (output/h5load.h). Linking it would load it, and libcurl, gnutls, krb5, ldap and 30 more of
 * its dependencies, into every rank at start: 7 MB resident per rank and about a third of a
 * rank's start-up instructions (docs/PERFORMANCE.md, issue 29). Only rank 0 writes files.
 *
 * Each function the harness calls is defined here with the header's prototype (the compiler
 * checks it) and forwards to the library's; the library's global identifiers (H5T_NATIVE_INT
 * is H5open() then H5T_NATIVE_INT_g) are copied after its H5open. The executable exports none
 * of these names, so the library's own calls stay inside it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hdf5.h>
#include <stdio.h>

#include "core/log.h"
#include "output/h5load.h"

#ifndef FAB_HDF5_SONAME
#define FAB_HDF5_SONAME "libhdf5.so"
#endif

/* ret, error value, name, parameters, arguments */
#define FAB_H5_FUNCS(X)                                                                            \
    X(herr_t, -1, H5open, (void), ())                                                              \
    X(herr_t, -1, H5check_version, (unsigned a, unsigned b, unsigned c), (a, b, c))                \
    X(herr_t, -1, H5get_libversion, (unsigned *a, unsigned *b, unsigned *c), (a, b, c))            \
    X(herr_t, -1, H5free_memory, (void *a), (a))                                                   \
    X(herr_t, -1, H5Eset_auto2, (hid_t a, H5E_auto2_t b, void *c), (a, b, c))                      \
    X(herr_t, -1, H5Aclose, (hid_t a), (a))                                                        \
    X(hid_t, -1, H5Acreate2, (hid_t a, const char *b, hid_t c, hid_t d, hid_t e, hid_t f),         \
      (a, b, c, d, e, f))                                                                          \
    X(herr_t, -1, H5Adelete, (hid_t a, const char *b), (a, b))                                     \
    X(htri_t, -1, H5Aexists, (hid_t a, const char *b), (a, b))                                     \
    X(hid_t, -1, H5Aget_space, (hid_t a), (a))                                                     \
    X(hid_t, -1, H5Aget_type, (hid_t a), (a))                                                      \
    X(hid_t, -1, H5Aopen, (hid_t a, const char *b, hid_t c), (a, b, c))                            \
    X(herr_t, -1, H5Aread, (hid_t a, hid_t b, void *c), (a, b, c))                                 \
    X(herr_t, -1, H5Awrite, (hid_t a, hid_t b, const void *c), (a, b, c))                          \
    X(herr_t, -1, H5Dclose, (hid_t a), (a))                                                        \
    X(hid_t, -1, H5Dcreate2,                                                                       \
      (hid_t a, const char *b, hid_t c, hid_t d, hid_t e, hid_t f, hid_t g),                       \
      (a, b, c, d, e, f, g))                                                                       \
    X(hid_t, -1, H5Dget_space, (hid_t a), (a))                                                     \
    X(hid_t, -1, H5Dget_type, (hid_t a), (a))                                                      \
    X(hid_t, -1, H5Dopen2, (hid_t a, const char *b, hid_t c), (a, b, c))                           \
    X(herr_t, -1, H5Dread, (hid_t a, hid_t b, hid_t c, hid_t d, hid_t e, void *f),                 \
      (a, b, c, d, e, f))                                                                          \
    X(herr_t, -1, H5Dset_extent, (hid_t a, const hsize_t b[]), (a, b))                             \
    X(herr_t, -1, H5Dvlen_reclaim, (hid_t a, hid_t b, hid_t c, void *d), (a, b, c, d))             \
    X(herr_t, -1, H5Dwrite, (hid_t a, hid_t b, hid_t c, hid_t d, hid_t e, const void *f),          \
      (a, b, c, d, e, f))                                                                          \
    X(herr_t, -1, H5Fclose, (hid_t a), (a))                                                        \
    X(hid_t, -1, H5Fcreate, (const char *a, unsigned b, hid_t c, hid_t d), (a, b, c, d))           \
    X(herr_t, -1, H5Fflush, (hid_t a, H5F_scope_t b), (a, b))                                      \
    X(ssize_t, -1, H5Fget_file_image, (hid_t a, void *b, size_t c), (a, b, c))                     \
    X(hid_t, -1, H5Fopen, (const char *a, unsigned b, hid_t c), (a, b, c))                         \
    X(herr_t, -1, H5Gclose, (hid_t a), (a))                                                        \
    X(hid_t, -1, H5Gcreate2, (hid_t a, const char *b, hid_t c, hid_t d, hid_t e), (a, b, c, d, e)) \
    X(herr_t, -1, H5Gget_info, (hid_t a, H5G_info_t * b), (a, b))                                  \
    X(hid_t, -1, H5Gopen2, (hid_t a, const char *b, hid_t c), (a, b, c))                           \
    X(htri_t, -1, H5Lexists, (hid_t a, const char *b, hid_t c), (a, b, c))                         \
    X(herr_t, -1, H5Literate,                                                                      \
      (hid_t a, H5_index_t b, H5_iter_order_t c, hsize_t * d, H5L_iterate_t e, void *f),           \
      (a, b, c, d, e, f))                                                                          \
    X(herr_t, -1, H5Oget_info_by_name, (hid_t a, const char *b, H5O_info_t *c, hid_t d),           \
      (a, b, c, d))                                                                                \
    X(herr_t, -1, H5Pclose, (hid_t a), (a))                                                        \
    X(hid_t, -1, H5Pcreate, (hid_t a), (a))                                                        \
    X(herr_t, -1, H5Pset_chunk, (hid_t a, int b, const hsize_t c[]), (a, b, c))                    \
    X(herr_t, -1, H5Pset_deflate, (hid_t a, unsigned b), (a, b))                                   \
    X(herr_t, -1, H5Pset_fapl_core, (hid_t a, size_t b, hbool_t c), (a, b, c))                     \
    X(herr_t, -1, H5Pset_file_image, (hid_t a, void *b, size_t c), (a, b, c))                      \
    X(herr_t, -1, H5Pset_shuffle, (hid_t a), (a))                                                  \
    X(herr_t, -1, H5Sclose, (hid_t a), (a))                                                        \
    X(hid_t, -1, H5Screate, (H5S_class_t a), (a))                                                  \
    X(hid_t, -1, H5Screate_simple, (int a, const hsize_t b[], const hsize_t c[]), (a, b, c))       \
    X(int, -1, H5Sget_simple_extent_dims, (hid_t a, hsize_t b[], hsize_t c[]), (a, b, c))          \
    X(int, -1, H5Sget_simple_extent_ndims, (hid_t a), (a))                                         \
    X(hssize_t, -1, H5Sget_simple_extent_npoints, (hid_t a), (a))                                  \
    X(herr_t, -1, H5Sselect_hyperslab,                                                             \
      (hid_t a, H5S_seloper_t b, const hsize_t c[], const hsize_t d[], const hsize_t e[],          \
       const hsize_t f[]),                                                                         \
      (a, b, c, d, e, f))                                                                          \
    X(herr_t, -1, H5Tclose, (hid_t a), (a))                                                        \
    X(hid_t, -1, H5Tcopy, (hid_t a), (a))                                                          \
    X(H5T_class_t, H5T_NO_CLASS, H5Tget_class, (hid_t a), (a))                                     \
    X(size_t, 0, H5Tget_size, (hid_t a), (a))                                                      \
    X(htri_t, -1, H5Tis_variable_str, (hid_t a), (a))                                              \
    X(herr_t, -1, H5Tset_cset, (hid_t a, H5T_cset_t b), (a, b))                                    \
    X(herr_t, -1, H5Tset_size, (hid_t a, size_t b), (a, b))

/* The library's identifiers the harness uses (set by its H5open). */
#define FAB_H5_IDS(X)                                                                              \
    X(H5P_CLS_DATASET_CREATE_ID_g)                                                                 \
    X(H5P_CLS_FILE_ACCESS_ID_g)                                                                    \
    X(H5T_C_S1_g)                                                                                  \
    X(H5T_NATIVE_DOUBLE_g)                                                                         \
    X(H5T_NATIVE_INT64_g)                                                                          \
    X(H5T_NATIVE_INT_g)                                                                            \
    X(H5T_NATIVE_LLONG_g)                                                                          \
    X(H5T_NATIVE_UCHAR_g)                                                                          \
    X(H5T_NATIVE_UINT64_g)                                                                         \
    X(H5T_STD_I32LE_g)

#define FAB_H5_PTR(ret, fail, name, params, args) static ret(*p_##name) params;
FAB_H5_FUNCS(FAB_H5_PTR)

#define FAB_H5_ID(name) hid_t name = -1;
FAB_H5_IDS(FAB_H5_ID)

static int fab_h5_state; /* 0 not tried, 1 loaded, -1 failed */

static bool fab_h5_sym(void *lib, const char *name, void *fn, size_t size)
{
    void *p = dlsym(lib, name);

    if (!p) {
        FAB_ERROR("the HDF5 library %s has no %s: %s", FAB_HDF5_SONAME, name, dlerror());
        return false;
    }
    if (size == sizeof(void *))
        *(void **)fn = p;
    return true;
}

bool fab_h5_load(void)
{
    void *lib, *p;
    bool ok = true;

    if (fab_h5_state)
        return fab_h5_state > 0;
    fab_h5_state = -1;
    lib = dlopen(FAB_HDF5_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        FAB_ERROR("cannot load the HDF5 library (%s), which the result file needs: %s; install "
                  "the HDF5 library package (Debian: libhdf5-103-1), or write no HDF5 file (-o "
                  "none with --csv FILE for the rows)",
                  FAB_HDF5_SONAME, dlerror());
        return false;
    }
#define FAB_H5_SYM(ret, fail, name, params, args)                                                  \
    ok = ok && fab_h5_sym(lib, #name, &p_##name, sizeof(p_##name));
    FAB_H5_FUNCS(FAB_H5_SYM)
    if (!ok || p_H5open() < 0)
        return false;
#define FAB_H5_COPY(name)                                                                          \
    if (ok && (ok = fab_h5_sym(lib, #name, &p, sizeof(p))))                                        \
        name = *(hid_t *)p;
    FAB_H5_IDS(FAB_H5_COPY)
    if (ok)
        fab_h5_state = 1;
    FAB_DEBUG("loaded the HDF5 library %s", FAB_HDF5_SONAME);
    return ok;
}

const char *fab_h5_version(void)
{
    static char v[32];
    unsigned maj, min, rel;

    if (!v[0]) {
        if (fab_h5_load() && p_H5get_libversion(&maj, &min, &rel) >= 0)
            snprintf(v, sizeof(v), "%u.%u.%u", maj, min, rel);
        else
            snprintf(v, sizeof(v), "unavailable");
    }
    return v;
}

#define FAB_H5_DEF(ret, fail, name, params, args)                                                  \
    ret name params                                                                                \
    {                                                                                              \
        return fab_h5_load() ? p_##name args : (ret)(fail);                                        \
    }
FAB_H5_FUNCS(FAB_H5_DEF)
