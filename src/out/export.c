/* JSON Lines and CSV exports, for monitoring and scripts: the same columns, names and units
 * as the HDF5 table (out/columns.c), and the same run metadata (out/runmeta.c). Each line is
 * flushed as soon as it is written. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "measure/row.h"
#include "net/fabric.h"
#include "out/columns.h"
#include "out/export.h"
#include "out/runinfo.h"
#include "out/runmeta.h"
#include "out/sink.h"

#include "fab_schema.h"

typedef struct fab_export {
    FILE *f;
    char path[1024];
    bool csv;
    bool skip_header;    /* appending to a CSV file that has one */
    fab_claim_t claim;   /* held from the constructor to close (core/file.h) */
    const fab_opts_t *o; /* the run's (a collective's type and reduction columns) */
} fab_export_t;

static void fab_json_kv(FILE *f, const char *key, const char *value)
{
    fprintf(f, ",");
    fab_json_str(f, key);
    fputc(':', f);
    fab_json_str(f, value);
}

static fab_status_t fab_export_flush(fab_export_t *e)
{
    if (fflush(e->f) != 0 || ferror(e->f)) {
        FAB_ERROR("cannot write %s: %s", e->path, strerror(errno ? errno : EIO));
        return FAB_ERR_IO;
    }
    return FAB_OK;
}

/* "NAME=value" strings as a JSON object. */
static void fab_json_env(FILE *f, char *const *kv, int n)
{
    bool first = true;

    fputc('{', f);
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(kv[i], '=');
        char key[256];

        if (!eq || (size_t)(eq - kv[i]) >= sizeof(key))
            continue;
        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
        fputs(first ? "" : ",", f);
        first = false;
        fab_json_str(f, key);
        fputc(':', f);
        fab_json_str(f, eq + 1);
    }
    fputc('}', f);
}

/* The run's metadata fields (out/runmeta.c) of one phase, as ',"key":value' pairs. */
static void fab_json_meta(FILE *f, const fab_run_info_t *info, int when)
{
    for (int i = 0; i < fab_nmeta; i++) {
        const fab_meta_field_t *m = &fab_meta_fields[i];
        fab_meta_value_t v;

        if (!(m->where & FAB_META_JSONL) || m->when != when || !fab_meta_get(i, info, &v))
            continue;
        fputc(',', f);
        fab_json_str(f, m->json ? m->json : m->name);
        fputc(':', f);
        switch (m->type) {
        case FAB_META_STR:
            fab_json_str(f, v.s);
            break;
        case FAB_META_INT:
            fprintf(f, "%lld", (long long)v.i);
            break;
        case FAB_META_F64:
            fab_json_num(f, v.d);
            break;
        case FAB_META_JSON:
            fputs(v.s, f);
            break;
        case FAB_META_STRS:
            fputc('[', f);
            for (int j = 0; j < v.n; j++) {
                fputs(j ? "," : "", f);
                fab_json_str(f, v.list[j] ? v.list[j] : "");
            }
            fputc(']', f);
            break;
        case FAB_META_ENV:
            fab_json_env(f, v.list, v.n);
            break;
        }
    }
}

static fab_status_t fab_export_run_begin(void *arg, const fab_run_info_t *info, const fab_opts_t *o)
{
    fab_export_t *e = arg;
    FILE *f = e->f;

    e->o = o;
    if (e->csv && e->skip_header)
        return FAB_OK;
    if (e->csv) {
        fprintf(f, "kernel");
        for (int c = 0; c < fab_ncolumns; c++)
            fprintf(f, ",%s", fab_columns[c].name);
        fputc('\n', f);
        e->skip_header = true; /* --repeat: one header for every run's rows */
        return fab_export_flush(e);
    }
    fprintf(f, "{\"record\":\"run\"");
    fab_json_kv(f, "schema", FAB_SCHEMA_NAME);
    fprintf(f, ",\"schema_version\":%d", FAB_SCHEMA_VERSION);
    fab_json_meta(f, info, FAB_META_BEGIN);
    fprintf(f, ",\"units\":{");
    for (int c = 0; c < fab_ncolumns; c++) {
        fprintf(f, c ? "," : "");
        fab_json_str(f, fab_columns[c].name);
        fputc(':', f);
        fab_json_str(f, fab_columns[c].unit);
    }
    fprintf(f, "}}\n");
    return fab_export_flush(e);
}

static fab_status_t fab_export_run_end(void *arg, const fab_run_info_t *info)
{
    fab_export_t *e = arg;

    if (e->csv)
        return fab_export_flush(e);
    fprintf(e->f, "{\"record\":\"end\"");
    fab_json_meta(e->f, info, FAB_META_END);
    fprintf(e->f, "}\n");
    return fab_export_flush(e);
}

static fab_status_t fab_export_row(void *arg, const fab_kernel_t *k, const fab_row_t *r,
                                   const double *samples, size_t nsamples)
{
    fab_export_t *e = arg;
    FILE *f = e->f;

    (void)samples;
    (void)nsamples;
    if (e->csv)
        fprintf(f, "%s", k->name);
    else {
        fprintf(f, "{\"record\":\"row\"");
        fab_json_kv(f, "kernel", k->name);
        fab_json_kv(f, "kind",
                    k->kind == FAB_KIND_LATENCY     ? "latency"
                    : k->kind == FAB_KIND_BANDWIDTH ? "bandwidth"
                                                    : "collective");
    }
    for (int c = 0; c < fab_ncolumns; c++) {
        fab_value_t v;

        fab_column_value(c, k, e->o, r, &v);
        if (!e->csv)
            fprintf(f, ",\"%s\":", fab_columns[c].name);
        else
            fputc(',', f);
        if (fab_columns[c].type == FAB_COL_STR) {
            if (e->csv) /* names of letters and digits: nothing to quote */
                fputs(v.s, f);
            else
                fab_json_str(f, v.s);
        } else if (fab_columns[c].type == FAB_COL_F64) {
            if (e->csv && !isfinite(v.d))
                fputs("", f);
            else
                fab_json_num(f, v.d);
        } else {
            fprintf(f, "%lld", (long long)v.i);
        }
    }
    fputs(e->csv ? "\n" : "}\n", f);
    return fab_export_flush(e);
}

/* The process ends right after (a stall): the end record it will not write otherwise. */
static void fab_export_mark(void *arg, const char *status, const char *reason, bool final)
{
    fab_export_t *e = arg;
    char now[32];

    if (!final || e->csv)
        return;
    fab_utc_now(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ");
    fprintf(e->f, "{\"record\":\"end\",\"status\":");
    fab_json_str(e->f, status);
    fprintf(e->f, ",\"end_time\":");
    fab_json_str(e->f, now);
    fprintf(e->f, ",\"stop_reason\":");
    fab_json_str(e->f, reason);
    fprintf(e->f, "}\n");
    fflush(e->f);
}

static void fab_export_close(void *arg)
{
    fab_export_t *e = arg;

    if (e->f)
        fclose(e->f);
    fab_claim_release(&e->claim);
    free(e);
}

/* Claims path (fab_output_claim), then opens it: created, truncated under --force, appended
 * to under --append. Never blocks: a FIFO or device that appears in between is refused. */
fab_status_t fab_out_export_sink(const char *path, bool csv, const fab_opts_t *o, fab_sink_t *sink)
{
    fab_export_t *e = calloc(1, sizeof(*e));
    const char *what = csv ? "CSV file" : "JSON Lines file";
    struct stat sb;
    fab_status_t st;
    int fd;

    if (!e)
        return FAB_ERR_NOMEM;
    snprintf(e->path, sizeof(e->path), "%s", path);
    e->csv = csv;
    st = fab_output_claim(path, what, o, NULL, &e->claim);
    if (st != FAB_OK) {
        free(e);
        return st;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | (o->append ? O_APPEND : O_TRUNC),
              0644);
    if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
        close(fd);
        fd = -1;
        errno = EINVAL;
    }
    if (fd >= 0) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        e->f = fdopen(fd, o->append ? "a" : "w");
    }
    if (e->f && o->append)
        e->skip_header = csv && sb.st_size > 0;
    if (!e->f) {
        FAB_ERROR("cannot open %s %s for writing: %s", what, path,
                  errno == EINVAL ? "it is not a regular file" : strerror(errno));
        if (fd >= 0)
            close(fd);
        fab_claim_release(&e->claim);
        free(e);
        return FAB_ERR_IO;
    }
    memset(sink, 0, sizeof(*sink));
    sink->name = csv ? "csv" : "json";
    sink->run_begin = fab_export_run_begin;
    sink->row = fab_export_row;
    sink->run_end = fab_export_run_end;
    sink->mark = fab_export_mark;
    sink->close = fab_export_close;
    sink->arg = e;
    return FAB_OK;
}
