/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON Lines and CSV exports, for monitoring and scripts: the same columns, names and units
 * as the HDF5 table (output/columns.c), and the same run and kernel metadata (output/runmeta.c,
 * output/kernelmeta.c). Each line is flushed as soon as it is written; path "-" is stdout. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json.h"
#include "core/launchopts.h"
#include "core/log.h"
#include "core/measopts.h"
#include "core/outopts.h"
#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "measure/row.h"
#include "measure/sink.h"
#include "net/fabric.h"
#include "net/runinfo.h"
#include "output/claim.h"
#include "output/columns.h"
#include "output/export.h"
#include "output/jsonrec.h"
#include "output/kernelmeta.h"
#include "output/outputs.h"
#include "output/runmeta.h"

#include "fab_schema.h"

typedef struct fab_export {
    FILE *f;
    char path[1024];
    bool csv;
    bool is_stdout;             /* "-": stdout, not closed here */
    bool failed;                /* a write failed: said once */
    bool skip_header;           /* appending to a CSV file that has one */
    uint64_t rows;              /* of the kernel now running */
    fab_claim_t claim;          /* held from the constructor to close (core/file.h) */
    const fab_measopts_t *mopt; /* a collective's type, reduction, root (the kernel records) */
} fab_export_t;

static fab_status_t fab_export_flush(fab_export_t *e)
{
    if (fflush(e->f) != 0 || ferror(e->f)) {
        if (!e->failed)
            FAB_ERROR("cannot write %s: %s", e->is_stdout ? "JSON/CSV to standard output" : e->path,
                      strerror(errno ? errno : EIO));
        e->failed = true;
        return FAB_ERR_IO;
    }
    return FAB_OK;
}

static fab_status_t fab_export_run_begin(void *arg, const fab_run_info_t *info)
{
    fab_export_t *e = arg;
    fab_jw_t j = {e->f, true};

    if (e->csv && e->skip_header)
        return FAB_OK;
    if (e->csv) {
        fprintf(e->f, "kernel");
        for (int c = 0; c < fab_ncolumns; c++)
            fprintf(e->f, ",%s", fab_columns[c].name);
        fputc('\n', e->f);
        e->skip_header = true; /* --repeat: one header for every run's rows */
        return fab_export_flush(e);
    }
    fprintf(e->f, "{\"record\":\"run\"");
    fab_jw_str(&j, "schema", FAB_SCHEMA_NAME);
    fab_jw_int(&j, "schema_version", FAB_SCHEMA_VERSION);
    fab_jsonrec_meta(&j, info, FAB_META_BEGIN);
    fab_jsonrec_units(&j);
    fprintf(e->f, "}\n");
    return fab_export_flush(e);
}

static fab_status_t fab_export_kernel_begin(void *arg, const fab_kinst_t *ki, const int *pair,
                                            const fab_world_t *w, const char *detail,
                                            const char *policy)
{
    fab_export_t *e = arg;
    fab_jw_t j = {e->f, true};
    fab_kmeta_t km;

    e->rows = 0;
    if (e->csv)
        return FAB_OK;
    fab_kmeta_fill(&km, ki, e->mopt, pair, w, detail, policy);
    fprintf(e->f, "{\"record\":\"kernel\"");
    fab_jsonrec_kernel(&j, &km);
    fprintf(e->f, "}\n");
    return fab_export_flush(e);
}

static fab_status_t fab_export_kernel_end(void *arg, const fab_kinst_t *ki, fab_status_t st)
{
    fab_export_t *e = arg;
    fab_jw_t j = {e->f, true};

    if (e->csv)
        return FAB_OK;
    fprintf(e->f, "{\"record\":\"kernel_end\"");
    fab_jw_str(&j, "kernel", ki->k->name);
    fab_jw_str(&j, "status", fab_status_done(st));
    fab_jw_int(&j, "rows", (long long)e->rows);
    fprintf(e->f, "}\n");
    return fab_export_flush(e);
}

static fab_status_t fab_export_run_end(void *arg, const fab_run_info_t *info)
{
    fab_export_t *e = arg;
    fab_jw_t j = {e->f, true};

    if (e->csv)
        return fab_export_flush(e);
    fprintf(e->f, "{\"record\":\"end\"");
    fab_jsonrec_meta(&j, info, FAB_META_END);
    fprintf(e->f, "}\n");
    return fab_export_flush(e);
}

static fab_status_t fab_export_row(void *arg, const fab_kinst_t *ki, const fab_row_t *r,
                                   const double *samples, size_t nsamples)
{
    const fab_kernel_t *k = ki->k;
    fab_export_t *e = arg;
    FILE *f = e->f;

    (void)samples;
    (void)nsamples;
    e->rows++;
    if (e->failed) /* said once, the run stops; its end reports it (exit 3) */
        return FAB_OK;
    if (!e->csv) {
        fab_jw_t j = {f, true};

        fprintf(f, "{\"record\":\"row\"");
        fab_jw_str(&j, "kernel", k->name);
        if (k->axis) { /* an instance: its rows say which, as its kernel record does */
            char variant[96];

            fab_kernel_variant(k, ki->axis, variant, sizeof(variant), true);
            fab_jw_str(&j, "variant", variant);
        } else if (ki->inplace) { /* the in-place instance (--inplace), as its kernel record */
            fab_jw_str(&j, "variant", FAB_VARIANT_INPLACE);
        }
        fab_jw_str(&j, "kind", fab_kind_name(k->kind));
        fab_jsonrec_columns(&j, ki, r);
        fputs("}\n", f);
        return fab_export_flush(e);
    }
    fprintf(f, "%s", k->name);
    for (int c = 0; c < fab_ncolumns; c++) {
        fab_value_t v;

        fab_column_value(c, ki, r, &v);
        fputc(',', f);
        if (fab_columns[c].type == FAB_COL_STR)
            fputs(v.s, f); /* names of letters and digits: nothing to quote */
        else if (fab_columns[c].type != FAB_COL_F64)
            fprintf(f, "%lld", (long long)v.i);
        else if (isfinite(v.d))
            fab_json_num(f, v.d);
    }
    fputc('\n', f);
    return fab_export_flush(e);
}

/* The process ends right after (a stall): the end record it will not write otherwise. */
static void fab_export_mark(void *arg, const char *status, const char *reason, bool final)
{
    fab_export_t *e = arg;
    fab_jw_t j = {e->f, true};

    if (!final || e->csv)
        return;
    fprintf(e->f, "{\"record\":\"end\"");
    fab_jsonrec_stop(&j, status, reason);
    fprintf(e->f, "}\n");
    fflush(e->f);
}

static void fab_export_close(void *arg)
{
    fab_export_t *e = arg;

    if (e->f && e->is_stdout)
        fflush(e->f);
    else if (e->f)
        fclose(e->f);
    fab_claim_release(&e->claim);
    free(e);
}

/* Claims path (fab_output_claim), then opens it in the claimed directory (core/file.h): a new
 * file; under --force a new file renamed over the old one (or over a link: never written
 * through); under --append the regular file there, with one link, never through a link. */
static fab_status_t fab_export_open(fab_export_t *e, const char *path, const char *what,
                                    const fab_outopts_t *oopt)
{
    struct stat sb;
    fab_status_t st;
    int fd, err;

    st = fab_output_claim(path, what, oopt, NULL, &e->claim);
    if (st != FAB_OK)
        return st;
    fd = fab_claim_open(&e->claim, oopt->append  ? FAB_OPEN_APPEND
                                   : oopt->force ? FAB_OPEN_REPLACE
                                                 : FAB_OPEN_CREATE);
    if (fd >= 0 && fstat(fd, &sb) == 0 && (e->f = fdopen(fd, oopt->append ? "a" : "w")) != NULL) {
        e->skip_header = oopt->append && e->csv && sb.st_size > 0;
        return FAB_OK;
    }
    err = errno;
    FAB_ERROR("cannot open %s %s for writing: %s", what, path,
              err == ELOOP    ? "it is a symbolic link (fabricbench never writes through a link)"
              : err == EINVAL ? "it is not a regular file"
              : err == EMLINK ? "it has more than one hard link (--append would write into "
                                "the other names too)"
              : err == EEXIST ? "a file of that name appeared after the check"
                              : strerror(err));
    fprintf(stderr, "hint: %s\n",
            err == ELOOP || err == EINVAL || err == EEXIST
                ? "remove what is there, or choose another name"
            : err == EMLINK ? "append to a copy (cp), or choose another name"
                            : "choose a file name in a directory this user can write");
    if (fd >= 0)
        close(fd);
    fab_claim_release(&e->claim);
    return err == ELOOP || err == EINVAL || err == EMLINK || err == EEXIST ? FAB_ERR_USAGE
                                                                           : FAB_ERR_IO;
}

/* "-" is stdout: nothing to claim, --append and --force do not apply. */
fab_status_t fab_out_export_sink(const char *path, bool csv, const fab_measopts_t *mopt,
                                 const fab_outopts_t *oopt, fab_sink_t *sink)
{
    fab_export_t *e = calloc(1, sizeof(*e));
    fab_status_t st = FAB_OK;

    if (!e)
        return FAB_ERR_NOMEM;
    snprintf(e->path, sizeof(e->path), "%s", path);
    e->csv = csv;
    e->mopt = mopt;
    e->claim.fd = -1;
    e->is_stdout = fab_output_is_stdout(path);
    if (e->is_stdout && !(e->f = fab_outputs_stdout())) {
        FAB_ERROR("%s -: standard output is not open", csv ? "--csv" : "--json");
        st = FAB_ERR_IO;
    } else if (!e->is_stdout)
        st = fab_export_open(e, path, csv ? "CSV file" : "JSON Lines file", oopt);
    if (st != FAB_OK) {
        free(e);
        return st;
    }
    memset(sink, 0, sizeof(*sink));
    sink->name = csv ? "csv" : "json";
    sink->run_begin = fab_export_run_begin;
    sink->kernel_begin = fab_export_kernel_begin;
    sink->row = fab_export_row;
    sink->kernel_end = fab_export_kernel_end;
    sink->run_end = fab_export_run_end;
    sink->mark = fab_export_mark;
    sink->close = fab_export_close;
    sink->arg = e;
    return FAB_OK;
}
