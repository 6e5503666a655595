/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 result file (schema in docs/SCHEMA.md), written so that a crash at any moment
 * leaves a complete file.
 *
 * How: the file lives in memory (HDF5's core driver, no backing store). After every change
 * that matters (the run's description, rows, each kernel's end, the run's end) the whole
 * image is written to a new temporary file in the same directory (core/file.h: unpredictable
 * name, O_EXCL|O_NOFOLLOW), synced, and renamed over the result file. rename() is atomic, so the
 * result file is always either the previous complete version or the new one: a kill -9 can lose the
 * rows not yet committed (rows wait while the last commit is less than FAB_COMMIT_GAP of its
 * durations ago), never corrupt one. The cost, writing the whole file per commit, is measured in
 * docs/SCHEMA.md. */
#define _DEFAULT_SOURCE 1 /* fsync, strdup */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/launchopts.h"
#include "core/log.h"
#include "core/measopts.h"
#include "core/opt.h"
#include "core/outopts.h"
#include "core/status.h"
#include "core/text.h"
#include "core/timing.h"
#include "fab_schema.h"
#include "kernel/dtype.h"
#include "measure/plan.h"
#include "measure/rounds.h"
#include "measure/sink.h"
#include "net/fabric.h"
#include "net/runinfo.h"
#include "output/claim.h"
#include "output/columns.h"
#include "output/h5matrix.h"
#include "output/h5rows.h"
#include "output/h5write.h"
#include "output/hdf5.h"
#include "output/kernelmeta.h"
#include "output/runmeta.h"
#include "pairs/pairs.h"

typedef struct fab_h5 {
    char path[1024];
    char mem[320]; /* the in-memory file's name: one that no file system has (see fab_h5_name) */
    hid_t file, run, kernel, table, samples;
    int nkernels;
    hsize_t nrows;
    bool keep_samples;
    bool append;       /* --append: an existing file gets a new run group */
    bool write_failed; /* a commit failed (disk full, ulimit -f) and no later one has fit */
    bool said_failed;
    char *good; /* the image of the last commit: a failed one rolls back to it */
    size_t good_n;
    char run_name[32], kernel_name[112]; /* the groups open now: reopened after a rollback */
    char failure[256]; /* why a commit failed: the run's stop_reason from then on */
    fab_claim_t claim; /* held from the constructor to close (core/file.h) */
    uint64_t commits;
    double commit_s, commit_max_s;
    double commit_last_s;   /* the last commit's duration */
    uint64_t commit_end_ns; /* when it ended (fab_real_ns) */
    size_t last_image;
    const fab_measopts_t *mopt; /* a collective's type, reduction, root (the kernel groups) */
} fab_h5_t;

static void fab_h5_close_id(hid_t *id, herr_t (*fn)(hid_t))
{
    if (*id >= 0)
        fn(*id);
    *id = -1;
}

/* ------------------------------------------------------------------ commit */

static fab_status_t fab_h5_commit(fab_h5_t *h);

/* After a failed commit the run says so, whatever status it ends with. */
static void fab_h5_keep_failure(fab_h5_t *h)
{
    if (!h->failure[0] || h->run < 0)
        return;
    fab_h5_attr_str(h->run, "status", "failed");
    fab_h5_attr_str(h->run, "stop_reason", h->failure);
    if (h->kernel >= 0)
        fab_h5_attr_str(h->kernel, "status", "failed");
}

/* The in-memory file's name. HDF5's core driver without a backing store keeps the file in
 * memory, but it still open(2)s the name it is given before opening an image (O_RDWR, to refuse
 * a name that exists on disk, following links) and lstat(2)s it. So the name is one path
 * component longer than any file system allows (NAME_MAX, 255): every such call fails with
 * ENAMETOOLONG and no file, link, FIFO or device is ever touched. Unique per sink. */
static void fab_h5_name(fab_h5_t *h)
{
    static unsigned serial;
    int n =
        snprintf(h->mem, sizeof(h->mem), "fabricbench-in-memory-%ld-%u-", (long)getpid(), ++serial);

    for (; n > 0 && n < 300; n++)
        h->mem[n] = 'm';
    h->mem[n > 0 ? n : 0] = '\0';
}

/* The file in memory from an image (the core driver); -1 on failure. */
static hid_t fab_h5_from_image(fab_h5_t *h, const void *img, size_t n)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f;

    H5Pset_fapl_core(fapl, 1 << 20, 0);
    H5Pset_file_image(fapl, (void *)img, n);
    f = H5Fopen(h->mem, H5F_ACC_RDWR, fapl);
    H5Pclose(fapl);
    return f;
}

/* A commit failed (disk full, ulimit -f): back to the last committed image, marked failed,
 * and one try to write that smaller file, so the file says the run failed. The row that did
 * not fit is in the other outputs (the table, JSON Lines). */
static void fab_h5_rollback(fab_h5_t *h, int err)
{
    char path[256];

    fab_h5_close_id(&h->samples, H5Gclose);
    fab_h5_close_id(&h->table, H5Gclose);
    fab_h5_close_id(&h->kernel, H5Gclose);
    fab_h5_close_id(&h->run, H5Gclose);
    fab_h5_close_id(&h->file, H5Fclose);
    if (!h->good || (h->file = fab_h5_from_image(h, h->good, h->good_n)) < 0)
        return;
    snprintf(path, sizeof(path), "/runs/%s", h->run_name);
    h->run = H5Gopen2(h->file, path, H5P_DEFAULT);
    if (h->run >= 0 && h->kernel_name[0])
        h->kernel = H5Gopen2(h->run, h->kernel_name, H5P_DEFAULT);
    if (h->kernel >= 0) {
        h->table = H5Gopen2(h->kernel, "table", H5P_DEFAULT);
        if (H5Lexists(h->kernel, "samples", H5P_DEFAULT) > 0)
            h->samples = H5Gopen2(h->kernel, "samples", H5P_DEFAULT);
    }
    if (h->table >= 0)
        h->nrows = fab_h5_length(h->table, "bytes"); /* the rows of the last good image */
    if (h->run < 0)
        return;
    snprintf(h->failure, sizeof(h->failure),
             "writing the results file failed (%s); it keeps the rows committed before",
             strerror(err));
    fab_h5_keep_failure(h);
    h->write_failed = fab_h5_commit(h) != FAB_OK; /* the smaller file fit: later ones may too */
}

/* Room a commit leaves below the file-size limit (ulimit -f) for the failure mark, which grows
 * an image by 6 KiB (measured: 63,288 -> 69,432, 366,108 -> 372,252 bytes). A commit that would
 * leave less fails as its write would (EFBIG), unwritten, so the last good image marked failed
 * always fits (compressed samples vary the room left: under load it was once under 6 KiB, and
 * the file kept "running"). A full disk has no such bound (marked where a second copy fits). */
#define FAB_H5_MARK_ROOM (32u << 10)

static int fab_h5_fsize_room(size_t size)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    return (rlim_t)size + FAB_H5_MARK_ROOM > rl.rlim_cur ? EFBIG : 0;
}

/* Write the in-memory image to a new temporary file, sync it, rename it over the result
 * (core/file.h: never through a link). */
static fab_status_t fab_h5_commit(fab_h5_t *h)
{
    uint64_t t0 = fab_real_ns();
    ssize_t size;
    char *buf = NULL;
    const char *what = "write";
    int err;
    double took;

    if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0 ||
        (size = H5Fget_file_image(h->file, NULL, 0)) <= 0) {
        FAB_ERROR("results file %s: HDF5 could not produce the file image", h->path);
        return FAB_ERR_IO;
    }
    buf = malloc((size_t)size);
    if (!buf || H5Fget_file_image(h->file, buf, (size_t)size) != size) {
        free(buf);
        FAB_ERROR("results file %s: no memory for the %zd-byte file image", h->path, size);
        return FAB_ERR_NOMEM;
    }
    /* the room for the failure mark is kept until a commit failed (the mark then uses it) */
    err = h->write_failed ? 0 : fab_h5_fsize_room((size_t)size);
    if (err)
        h->claim.tmp[0] = '\0'; /* nothing written: the message names the file */
    else
        err = fab_file_replace(&h->claim, buf, (size_t)size, &what);
    if (err) {
        free(buf);
        if (!h->write_failed) { /* the run stops; the rows of its block may fail alike */
            if (!h->said_failed)
                FAB_ERROR("cannot %s %s: %s; the results file %s keeps everything written before",
                          what, h->claim.tmp[0] ? h->claim.tmp : h->path, strerror(err), h->path);
            h->said_failed = true; /* said once a run */
            h->write_failed = true;
            fab_h5_rollback(h, err);
        }
        return FAB_ERR_IO;
    }
    free(h->good); /* this image is now the last good one */
    h->good = buf;
    h->good_n = (size_t)size;
    took = (double)(fab_real_ns() - t0) * 1e-9;
    h->commits++;
    h->commit_s += took;
    if (took > h->commit_max_s)
        h->commit_max_s = took;
    h->last_image = (size_t)size;
    h->commit_last_s = took;
    h->commit_end_ns = fab_real_ns();
    return FAB_OK;
}

/* ------------------------------------------------------------------ opening */

static fab_status_t fab_h5_open_existing(fab_h5_t *h, hid_t fapl)
{
    int fd = fab_claim_read(&h->claim); /* a regular file, not through a link */
    char *img = NULL, *schema = NULL;
    struct stat sb;
    size_t got = 0;
    hid_t attr = -1, type = -1;
    fab_status_t st = FAB_ERR_USAGE;

    if (fd < 0 || fstat(fd, &sb) != 0) {
        FAB_ERROR("--append: cannot read %s: %s", h->path,
                  errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return FAB_ERR_IO;
    }
    if (sb.st_size > 0 && (img = malloc((size_t)sb.st_size)) != NULL) {
        while (got < (size_t)sb.st_size) {
            ssize_t r = read(fd, img + got, (size_t)sb.st_size - got);

            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
    }
    if (img && got == (size_t)sb.st_size) {
        H5Pset_file_image(fapl, img, got);
        h->file = H5Fopen(h->mem, H5F_ACC_RDWR, fapl);
    }
    close(fd);
    free(img); /* the file-image property copies it */
    if (h->file >= 0 && H5Aexists(h->file, "schema") > 0) {
        attr = H5Aopen(h->file, "schema", H5P_DEFAULT);
        type = H5Aget_type(attr);
        if (fab_h5_one_value(attr) && H5Tis_variable_str(type) > 0 &&
            H5Aread(attr, type, &schema) >= 0 && schema && strcmp(schema, FAB_SCHEMA_NAME) == 0)
            st = FAB_OK;
        if (schema)
            H5free_memory(schema);
        H5Tclose(type);
        H5Aclose(attr);
    }
    if (st != FAB_OK) {
        FAB_ERROR("--append: %s is not a fabricbench result file (no schema attribute '%s')",
                  h->path, FAB_SCHEMA_NAME);
    } else {
        long long version = -1;

        attr = H5Aopen(h->file, "schema_version", H5P_DEFAULT);
        if (attr >= 0) {
            type = H5Aget_type(attr);
            if (!fab_h5_one_value(attr) || H5Tget_class(type) != H5T_INTEGER ||
                H5Aread(attr, H5T_NATIVE_LLONG, &version) < 0)
                version = -1;
            H5Tclose(type);
            H5Aclose(attr);
        }
        if (version != FAB_SCHEMA_VERSION) {
            if (version == -1)
                FAB_ERROR("--append: %s has no schema_version this fabricbench can read (one "
                          "integer); it writes version %d",
                          h->path, FAB_SCHEMA_VERSION);
            else
                FAB_ERROR("--append: %s has schema version %lld; this fabricbench writes "
                          "version %d",
                          h->path, version, FAB_SCHEMA_VERSION);
            st = FAB_ERR_USAGE;
        }
    }
    return st;
}

/* The file in memory: the existing one under --append, else a new one. Whether it may be
 * written at all was settled by the constructor's claim. */
static fab_status_t fab_h5_open(fab_h5_t *h)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    fab_status_t st = FAB_OK;

    H5Pset_fapl_core(fapl, 1 << 20, 0); /* in memory; commits write the image */
    if (h->append && fab_claim_kind(&h->claim, NULL)) {
        st = fab_h5_open_existing(h, fapl);
    } else {
        h->file = H5Fcreate(h->mem, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (h->file < 0) {
            FAB_ERROR("results file %s: HDF5 could not create the file", h->path);
            st = FAB_ERR_IO;
        } else {
            fab_h5_attr_str(h->file, "schema", FAB_SCHEMA_NAME);
            fab_h5_attr_i64(h->file, "schema_version", FAB_SCHEMA_VERSION);
            H5Gclose(H5Gcreate2(h->file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        }
    }
    H5Pclose(fapl);
    return st;
}

/* ------------------------------------------------------------------ sink callbacks */

/* The run's metadata fields (output/runmeta.c) of the given phase(s) as they now stand. */
static void fab_h5_meta(fab_h5_t *h, const fab_run_info_t *info, int when)
{
    for (int i = 0; i < fab_nmeta; i++) {
        const fab_meta_field_t *m = &fab_meta_fields[i];
        fab_meta_value_t v;

        if (!(m->where & FAB_META_H5) || !(m->when & when) || !fab_meta_get(i, info, &v))
            continue;
        switch (m->type) {
        case FAB_META_STR:
        case FAB_META_JSON:
            fab_h5_attr_str(h->run, m->name, v.s);
            break;
        case FAB_META_INT:
            fab_h5_attr_i64(h->run, m->name, v.i);
            break;
        case FAB_META_F64:
            fab_h5_attr_f64(h->run, m->name, v.d);
            break;
        case FAB_META_STRS:
            if (H5Lexists(h->run, m->name, H5P_DEFAULT) <= 0)
                fab_h5_strings(h->run, m->name, v.list, (hsize_t)v.n);
            break;
        case FAB_META_ENV:
            if (H5Lexists(h->run, m->name, H5P_DEFAULT) <= 0)
                fab_h5_env(h->run, m->name, v.list, v.n);
            break;
        }
    }
}

static fab_status_t fab_h5_run_begin(void *arg, const fab_run_info_t *info)
{
    fab_h5_t *h = arg;
    hid_t runs;
    H5G_info_t gi;
    char name[32];
    fab_status_t st = h->file >= 0 ? FAB_OK : fab_h5_open(h); /* open: --repeat's next run */

    if (st != FAB_OK)
        return st;
    fab_h5_close_id(&h->run, H5Gclose);
    h->nkernels = 0;
    h->commits = 0;
    h->commit_s = h->commit_max_s = 0.0;
    runs = H5Gopen2(h->file, "runs", H5P_DEFAULT);
    if (runs < 0 || H5Gget_info(runs, &gi) < 0) {
        FAB_ERROR("results file %s: no /runs group", h->path);
        return FAB_ERR_IO;
    }
    snprintf(name, sizeof(name), "run_%04llu", (unsigned long long)gi.nlinks);
    snprintf(h->run_name, sizeof(h->run_name), "%s", name);
    h->run = H5Gcreate2(runs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(runs);
    if (h->run < 0) {
        FAB_ERROR("results file %s: cannot create group /runs/%s", h->path, name);
        return FAB_ERR_IO;
    }
    fab_h5_attr_str(h->file, "latest_run", name);
    fab_h5_meta(h, info, FAB_META_BEGIN | FAB_META_END);
    H5Gclose(H5Gcreate2(h->run, "kernels", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    FAB_INFO("results go to %s, /runs/%s, committed as rows come (at most a tenth of the time)",
             h->path, name);
    return fab_h5_commit(h);
}

static fab_status_t fab_h5_kernel_begin(void *arg, const fab_kinst_t *ki, const int *pair,
                                        const fab_world_t *w, const char *detail,
                                        const char *policy)
{
    const fab_kernel_t *k = ki->k;
    fab_h5_t *h = arg;
    hid_t kernels = H5Gopen2(h->run, "kernels", H5P_DEFAULT);
    char name[96];
    fab_kmeta_t km;

    snprintf(name, sizeof(name), "%02d_%s", h->nkernels++, k->name);
    snprintf(h->kernel_name, sizeof(h->kernel_name), "kernels/%s", name);
    h->kernel = H5Gcreate2(kernels, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(kernels);
    if (h->kernel < 0)
        return FAB_ERR_IO;
    fab_kmeta_fill(&km, ki, h->mopt, pair, w, detail, policy);
    for (int i = 0; i < km.n; i++) {
        const fab_kfield_t *f = &km.f[i];

        if (f->type == FAB_META_INT)
            fab_h5_attr_i64(h->kernel, f->name, f->i);
        else if (f->type == FAB_META_F64)
            fab_h5_attr_f64(h->kernel, f->name, f->d);
        else
            fab_h5_attr_str(h->kernel, f->name, f->s);
    }
    fab_h5_attr_str(h->kernel, "status", "running");

    /* The table: one extensible dataset per column, units as attributes. */
    h->table = H5Gcreate2(h->kernel, "table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    h->nrows = 0;
    {
        char cols[FAB_MAX_COLUMNS * 32] = ""; /* every name, comma-separated */
        hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = 64;
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);

        H5Pset_chunk(dcpl, 1, &chunk);
        for (int c = 0; c < fab_ncolumns; c++) {
            const fab_column_t *col = &fab_columns[c];
            hid_t space = H5Screate_simple(1, &zero, &unlimited), type = fab_h5_col_type(col->type);
            hid_t ds = H5Dcreate2(h->table, col->name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);

            fab_h5_attr_str(ds, "units", col->unit);
            fab_h5_attr_str(ds, "description", col->doc);
            H5Dclose(ds);
            H5Sclose(space);
            H5Tclose(type);
            strncat(cols, c ? "," : "", sizeof(cols) - strlen(cols) - 1);
            strncat(cols, col->name, sizeof(cols) - strlen(cols) - 1);
        }
        H5Pclose(dcpl);
        fab_h5_attr_str(h->table, "columns", cols);
    }
    if (h->keep_samples)
        h->samples = H5Gcreate2(h->kernel, "samples", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    return fab_h5_commit(h);
}

static fab_status_t fab_h5_row(void *arg, const fab_kinst_t *ki, const fab_row_t *r,
                               const double *samples, size_t nsamples)
{
    fab_h5_t *h = arg;

    for (int c = 0; c < fab_ncolumns; c++) {
        fab_value_t v;
        herr_t rc;

        fab_column_value(c, ki, r, &v);
        rc = fab_h5_append_value(h->table, fab_columns[c].name, fab_columns[c].type, h->nrows, &v);
        if (rc < 0) {
            FAB_ERROR("results file %s: cannot append to column %s", h->path, fab_columns[c].name);
            return FAB_ERR_IO;
        }
    }
    h->nrows++;
    if (r->nblock_medians > 0 && fab_h5_row_blocks(h->kernel, r) != FAB_OK) {
        FAB_ERROR("results file %s: cannot store the block medians of %llu bytes", h->path,
                  (unsigned long long)r->bytes);
        return FAB_ERR_IO;
    }
    if (h->keep_samples && samples && h->samples >= 0 &&
        fab_h5_row_samples(h->samples, ki->k, r, samples, nsamples) != FAB_OK) {
        FAB_ERROR("results file %s: cannot store the samples of %llu bytes", h->path,
                  (unsigned long long)r->bytes);
        return FAB_ERR_IO;
    }
    /* Rows that come in a burst (the adaptive sizes stop together) share a commit: one is
     * made once FAB_COMMIT_GAP times the last one's duration has passed; the kernel's and the
     * run's end always commit, and a stall or signal commits what is there (mark). */
    if ((double)(fab_real_ns() - h->commit_end_ns) * 1e-9 < FAB_COMMIT_GAP * h->commit_last_s)
        return FAB_OK;
    return fab_h5_commit(h);
}

static fab_status_t fab_h5_matrix_cb(void *arg, const fab_kinst_t *ki, const fab_matrix_t *m)
{
    fab_h5_t *h = arg;

    (void)ki;
    return h->kernel < 0 ? FAB_OK : fab_h5_matrix(h->kernel, m) < 0 ? FAB_ERR_IO : fab_h5_commit(h);
}

static fab_status_t fab_h5_kernel_end(void *arg, const fab_kinst_t *ki, fab_status_t st)
{
    fab_h5_t *h = arg;

    (void)ki;
    if (h->kernel < 0)
        return FAB_OK;
    fab_h5_attr_str(h->kernel, "status", fab_status_done(st));
    fab_h5_attr_i64(h->kernel, "rows", (int64_t)h->nrows);
    fab_h5_close_id(&h->samples, H5Gclose);
    fab_h5_close_id(&h->table, H5Gclose);
    fab_h5_close_id(&h->kernel, H5Gclose);
    return fab_h5_commit(h);
}

static fab_status_t fab_h5_run_end(void *arg, const fab_run_info_t *info)
{
    fab_h5_t *h = arg;

    if (h->run < 0)
        return FAB_OK;
    fab_h5_close_id(&h->samples, H5Gclose);
    fab_h5_close_id(&h->table, H5Gclose);
    fab_h5_close_id(&h->kernel, H5Gclose);
    fab_h5_meta(h, info, FAB_META_END);
    fab_h5_keep_failure(h);
    /* What crash safety cost this run, measured (the last commit is not counted). */
    fab_h5_attr_i64(h->run, "commits", (int64_t)h->commits);
    fab_h5_attr_f64(h->run, "commit_seconds_total", h->commit_s);
    fab_h5_attr_f64(h->run, "commit_seconds_max", h->commit_max_s);
    return fab_h5_commit(h);
}

/* From the watchdog's thread (the main thread is stuck in MPI, or about to stop). */
static void fab_h5_mark(void *arg, const char *status, const char *reason, bool final)
{
    fab_h5_t *h = arg;
    char now[32];

    (void) final;
    if (h->run < 0 || h->write_failed)
        return;
    fab_utc_now(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ");
    fab_h5_attr_str(h->run, "status", status);
    fab_h5_attr_str(h->run, "stop_reason", reason);
    fab_h5_attr_str(h->run, "end_time", now);
    if (h->kernel >= 0)
        fab_h5_attr_str(h->kernel, "status", status);
    fab_h5_keep_failure(h);
    fab_h5_commit(h);
}

static void fab_h5_close(void *arg)
{
    fab_h5_t *h = arg;

    fab_h5_close_id(&h->samples, H5Gclose);
    fab_h5_close_id(&h->table, H5Gclose);
    fab_h5_close_id(&h->kernel, H5Gclose);
    fab_h5_close_id(&h->run, H5Gclose);
    fab_h5_close_id(&h->file, H5Fclose);
    fab_claim_release(&h->claim);
    free(h->good);
    free(h);
}

fab_status_t fab_out_hdf5_sink(const char *path, const fab_measopts_t *mopt,
                               const fab_outopts_t *oopt, bool *taken, fab_sink_t *sink)
{
    fab_h5_t *h = calloc(1, sizeof(*h));
    fab_status_t st;

    if (!h)
        return FAB_ERR_NOMEM;
    st = fab_output_claim(path, "results file", oopt, taken, &h->claim);
    if (st != FAB_OK) {
        free(h);
        return st;
    }
    h->append = oopt->append;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* we report errors ourselves */
    snprintf(h->path, sizeof(h->path), "%s", path);
    fab_h5_name(h);
    h->file = h->run = h->kernel = h->table = h->samples = -1;
    h->keep_samples = mopt->samples;
    h->mopt = mopt;
    memset(sink, 0, sizeof(*sink));
    sink->name = "hdf5";
    sink->run_begin = fab_h5_run_begin;
    sink->kernel_begin = fab_h5_kernel_begin;
    sink->row = fab_h5_row;
    sink->matrix = fab_h5_matrix_cb;
    sink->kernel_end = fab_h5_kernel_end;
    sink->run_end = fab_h5_run_end;
    sink->mark = fab_h5_mark;
    sink->close = fab_h5_close;
    sink->arg = h;
    return FAB_OK;
}
