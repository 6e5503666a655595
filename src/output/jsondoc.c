/* SPDX-License-Identifier: BSD-3-Clause */
/* One JSON document per invocation (output/jsondoc.h):
 *
 *   {"schema": ..., "schema_version": N, "status": "running|complete|interrupted|failed",
 *    "runs": [{"status": ..., "run": {metadata, "units"},
 *              "kernels": [{kernel metadata, "status", "rows": [{column: value}, ...]}],
 *              "end": {status, end_time, stop_reason, ..., exit_code} or null}]}
 *
 * The pieces are kept as text (memory streams) and put together for every commit: a file is
 * replaced atomically (core/file.c), so a reader or a kill -9 sees the previous whole
 * document or the new one; rows commit under the HDF5 file's cost bound (FAB_COMMIT_GAP),
 * kernels and runs always. For "-" the document is printed once, when the run ends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "core/json.h"
#include "core/log.h"
#include "core/timing.h"
#include "output/claim.h"
#include "output/jsondoc.h"
#include "output/jsonrec.h"
#include "output/kernelmeta.h"
#include "output/outputs.h"
#include "output/runmeta.h"

#include "fab_schema.h"

/* Text written piece by piece into memory. */
typedef struct fab_piece {
    FILE *f;
    char *buf;
    size_t len;
} fab_piece_t;

typedef struct fab_jdoc {
    char path[1024];
    bool is_stdout, final, printed, failed;
    int repeat, nruns;
    fab_piece_t done;    /* the runs that ended, joined by ",\n" */
    fab_piece_t run;     /* the run now going: its "run" object */
    fab_piece_t kernels; /* its kernels that ended, joined by ",\n" */
    fab_piece_t khead;   /* the kernel now going: its metadata members */
    fab_piece_t rows;    /* its rows, joined by ",\n" */
    fab_piece_t end;     /* the run's end object, once known */
    bool in_run, in_kernel;
    uint64_t nrows;
    char run_status[32], kernel_status[32], doc_status[32];
    double commit_last_s;
    uint64_t commit_end_ns;
    fab_claim_t claim;
    const fab_measopts_t *mopt; /* a collective's type, reduction, root (the kernel records) */
} fab_jdoc_t;

static bool fab_piece_reset(fab_piece_t *p)
{
    if (p->f)
        fclose(p->f);
    free(p->buf);
    p->buf = NULL;
    p->len = 0;
    p->f = open_memstream(&p->buf, &p->len);
    return p->f != NULL;
}

static void fab_piece_free(fab_piece_t *p)
{
    if (p->f)
        fclose(p->f);
    free(p->buf);
    memset(p, 0, sizeof(*p));
}

/* The text so far ("" when none). */
static const char *fab_piece_text(fab_piece_t *p, size_t *len)
{
    if (!p->f || fflush(p->f) != 0 || !p->buf) {
        *len = 0;
        return "";
    }
    *len = p->len;
    return p->buf;
}

static void fab_piece_put(FILE *f, fab_piece_t *p)
{
    size_t n;
    const char *s = fab_piece_text(p, &n);

    fwrite(s, 1, n, f);
}

/* Append text as a new element of a list piece. */
static void fab_piece_sep(fab_piece_t *p)
{
    size_t n;

    fab_piece_text(p, &n);
    if (n > 0)
        fputs(",\n", p->f);
}

/* The kernel now going, as its object. */
static void fab_jdoc_put_kernel(fab_jdoc_t *d, FILE *f)
{
    size_t n;

    fputc('{', f);
    fab_piece_put(f, &d->khead);
    fputs(",\"status\":", f);
    fab_json_str(f, d->kernel_status);
    fputs(",\"rows\":[", f);
    fab_piece_text(&d->rows, &n);
    if (n > 0) {
        fputc('\n', f);
        fab_piece_put(f, &d->rows);
        fputc('\n', f);
    }
    fputs("]}", f);
}

/* The run now going, as its object. */
static void fab_jdoc_put_run(fab_jdoc_t *d, FILE *f)
{
    size_t nk, ne;

    fputs("{\"status\":", f);
    fab_json_str(f, d->run_status);
    fputs(",\"run\":", f);
    fab_piece_put(f, &d->run);
    fputs(",\"kernels\":[", f);
    fab_piece_text(&d->kernels, &nk);
    if (nk > 0 || d->in_kernel)
        fputc('\n', f);
    fab_piece_put(f, &d->kernels);
    if (d->in_kernel) {
        fputs(nk > 0 ? ",\n" : "", f);
        fab_jdoc_put_kernel(d, f);
    }
    fputs(nk > 0 || d->in_kernel ? "\n],\"end\":" : "],\"end\":", f);
    fab_piece_text(&d->end, &ne);
    if (ne > 0)
        fab_piece_put(f, &d->end);
    else
        fputs("null", f);
    fputc('}', f);
}

/* The whole document as it stands, in a new buffer (free it); NULL when out of memory. */
static char *fab_jdoc_build(fab_jdoc_t *d, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    size_t nd;

    if (!f)
        return NULL;
    fprintf(f, "{\"schema\":");
    fab_json_str(f, FAB_SCHEMA_NAME);
    fprintf(f, ",\"schema_version\":%d,\"status\":", FAB_SCHEMA_VERSION);
    fab_json_str(f, d->doc_status);
    fputs(",\"runs\":[\n", f);
    fab_piece_put(f, &d->done);
    fab_piece_text(&d->done, &nd);
    if (d->in_run) {
        fputs(nd > 0 ? ",\n" : "", f);
        fab_jdoc_put_run(d, f);
    }
    fputs("\n]}\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Write the document: replace the file, or (stdout) print it once it is final. */
static fab_status_t fab_jdoc_commit(fab_jdoc_t *d)
{
    uint64_t t0 = fab_real_ns();
    const char *what = "write";
    size_t len = 0;
    char *buf;
    int err = 0;

    if (d->failed || (d->is_stdout && (!d->final || d->printed)))
        return d->failed ? FAB_ERR_IO : FAB_OK;
    buf = fab_jdoc_build(d, &len);
    if (!buf) {
        FAB_ERROR("JSON document: no memory to put it together");
        d->failed = true;
        return FAB_ERR_NOMEM;
    }
    if (d->is_stdout) {
        d->printed = true;
        if (!fab_outputs_stdout() || fwrite(buf, 1, len, fab_outputs_stdout()) != len ||
            fflush(fab_outputs_stdout()) != 0)
            err = errno ? errno : EIO;
    } else {
        err = fab_file_replace(&d->claim, buf, len, &what);
    }
    free(buf);
    if (err) {
        if (d->is_stdout)
            FAB_ERROR("cannot write the JSON document to standard output: %s", strerror(err));
        else
            FAB_ERROR("cannot %s %s: %s; the JSON document %s keeps what was written before", what,
                      d->claim.tmp, strerror(err), d->path);
        d->failed = true;
        return FAB_ERR_IO;
    }
    d->commit_last_s = (double)(fab_real_ns() - t0) * 1e-9;
    d->commit_end_ns = fab_real_ns();
    return FAB_OK;
}

/* The run (and with it the document, when it is the last) ended with status. */
static void fab_jdoc_close_run(fab_jdoc_t *d, const char *status)
{
    if (d->in_kernel) { /* stopped inside a kernel: it ends as the run does */
        snprintf(d->kernel_status, sizeof(d->kernel_status), "%s", status);
        fab_piece_sep(&d->kernels);
        fab_jdoc_put_kernel(d, d->kernels.f);
        d->in_kernel = false;
    }
    snprintf(d->run_status, sizeof(d->run_status), "%s", status);
    fab_piece_sep(&d->done);
    fab_jdoc_put_run(d, d->done.f);
    d->in_run = false;
    if (d->nruns >= d->repeat || strncmp(status, "complete", 8) != 0) {
        d->final = true;
        snprintf(d->doc_status, sizeof(d->doc_status), "%s",
                 strncmp(status, "complete", 8) == 0 ? "complete" : status);
    }
}

static fab_status_t fab_jdoc_run_begin(void *arg, const fab_run_info_t *info)
{
    fab_jdoc_t *d = arg;
    fab_jw_t j;

    if (!fab_piece_reset(&d->run) || !fab_piece_reset(&d->kernels) || !fab_piece_reset(&d->end))
        return FAB_ERR_NOMEM;
    j = (fab_jw_t){d->run.f, false};
    fputc('{', d->run.f);
    fab_jsonrec_meta(&j, info, FAB_META_BEGIN);
    fab_jsonrec_units(&j);
    fputc('}', d->run.f);
    d->nruns++;
    d->in_run = true;
    snprintf(d->run_status, sizeof(d->run_status), "running");
    return fab_jdoc_commit(d);
}

static fab_status_t fab_jdoc_kernel_begin(void *arg, const fab_kinst_t *ki, const int *pair,
                                          const fab_world_t *w, const char *detail,
                                          const char *policy)
{
    fab_jdoc_t *d = arg;
    fab_kmeta_t km;
    fab_jw_t j;

    if (!fab_piece_reset(&d->khead) || !fab_piece_reset(&d->rows))
        return FAB_ERR_NOMEM;
    fab_kmeta_fill(&km, ki, d->mopt, pair, w, detail, policy);
    j = (fab_jw_t){d->khead.f, false};
    fab_jsonrec_kernel(&j, &km);
    d->in_kernel = true;
    d->nrows = 0;
    snprintf(d->kernel_status, sizeof(d->kernel_status), "running");
    return fab_jdoc_commit(d);
}

static fab_status_t fab_jdoc_row(void *arg, const fab_kinst_t *ki, const fab_row_t *r,
                                 const double *samples, size_t nsamples)
{
    fab_jdoc_t *d = arg;
    fab_jw_t j = {d->rows.f, false};

    (void)samples;
    (void)nsamples;
    if (!d->rows.f)
        return FAB_ERR_NOMEM;
    if (d->failed) /* said once, the run stops; its end reports it (exit 3) */
        return FAB_OK;
    fab_piece_sep(&d->rows);
    fputc('{', d->rows.f);
    fab_jsonrec_columns(&j, ki, r);
    fputc('}', d->rows.f);
    d->nrows++;
    /* rows in a burst share a commit, as in the HDF5 file (FAB_COMMIT_GAP) */
    if ((double)(fab_real_ns() - d->commit_end_ns) * 1e-9 < FAB_COMMIT_GAP * d->commit_last_s)
        return FAB_OK;
    return fab_jdoc_commit(d);
}

static fab_status_t fab_jdoc_kernel_end(void *arg, const fab_kinst_t *ki, fab_status_t st)
{
    fab_jdoc_t *d = arg;

    (void)ki;
    if (!d->in_kernel)
        return FAB_OK;
    snprintf(d->kernel_status, sizeof(d->kernel_status), "%s", fab_status_done(st));
    fab_piece_sep(&d->kernels);
    fab_jdoc_put_kernel(d, d->kernels.f);
    d->in_kernel = false;
    return d->failed ? FAB_OK : fab_jdoc_commit(d);
}

static fab_status_t fab_jdoc_run_end(void *arg, const fab_run_info_t *info)
{
    fab_jdoc_t *d = arg;
    fab_jw_t j = {d->end.f, false};

    if (!d->in_run)
        return FAB_OK;
    fab_piece_reset(&d->end);
    j.f = d->end.f;
    fputc('{', d->end.f);
    fab_jsonrec_meta(&j, info, FAB_META_END);
    fputc('}', d->end.f);
    fab_jdoc_close_run(d, info->status);
    return fab_jdoc_commit(d);
}

/* From the watchdog's thread: a signal (the run stops at the next block end and ends here
 * as usual), or a stall (final: the process ends right after; the document is ended now). */
static void fab_jdoc_mark(void *arg, const char *status, const char *reason, bool final)
{
    fab_jdoc_t *d = arg;

    if (d->final || (!final && !d->in_run))
        return;
    if (!final) {
        snprintf(d->run_status, sizeof(d->run_status), "%s", status);
        if (d->in_kernel)
            snprintf(d->kernel_status, sizeof(d->kernel_status), "%s", status);
        snprintf(d->doc_status, sizeof(d->doc_status), "%s", status);
        fab_jdoc_commit(d);
        return;
    }
    d->repeat = d->nruns; /* no run follows */
    if (d->in_run && fab_piece_reset(&d->end)) {
        fab_jw_t j = {d->end.f, false};

        fputc('{', d->end.f);
        fab_jsonrec_stop(&j, status, reason);
        fputc('}', d->end.f);
    }
    if (d->in_run)
        fab_jdoc_close_run(d, status);
    d->final = true;
    snprintf(d->doc_status, sizeof(d->doc_status), "%s", status);
    fab_jdoc_commit(d);
}

static void fab_jdoc_close(void *arg)
{
    fab_jdoc_t *d = arg;

    /* A run left without its end (an output refused the next repetition's start): the
     * document still ends, and says so. */
    if (d->nruns > 0 && !d->final)
        fab_jdoc_mark(d, "failed", "the run ended before its end was recorded", true);
    fab_piece_free(&d->done);
    fab_piece_free(&d->run);
    fab_piece_free(&d->kernels);
    fab_piece_free(&d->khead);
    fab_piece_free(&d->rows);
    fab_piece_free(&d->end);
    fab_claim_release(&d->claim);
    free(d);
}

/* The file, claimed as the other outputs are (measure/sink.c); one that exists is refused
 * unless --force (--append does not apply: a document holds one invocation). */
static fab_status_t fab_jdoc_claim(fab_jdoc_t *d, const char *path, const fab_outopts_t *oopt)
{
    const char *kind;
    fab_outopts_t replace = *oopt;
    fab_status_t st;

    replace.append = false;
    replace.force = true; /* an existing file or link is judged below */
    st = fab_output_claim(path, "JSON document", &replace, NULL, &d->claim);
    kind = st == FAB_OK ? fab_claim_kind(&d->claim, NULL) : NULL;
    if (kind && !oopt->force) {
        bool link = strcmp(kind, "a symbolic link") == 0;

        fab_claim_release(&d->claim);
        FAB_ERROR("JSON document %s %s%s", path,
                  link ? "is a symbolic link: fabricbench never writes through a link"
                       : "already exists",
                  oopt->append ? " (--append does not apply to --json-doc: one document per "
                                 "invocation)"
                               : "");
        fprintf(stderr, "hint: --force replaces %s, or give --json-doc another name\n",
                link ? "the link by a new file (its target stays as it is)" : "it");
        return FAB_ERR_USAGE;
    }
    return st;
}

fab_status_t fab_out_jsondoc_sink(const char *path, const fab_launchopts_t *lopt,
                                  const fab_measopts_t *mopt, const fab_outopts_t *oopt,
                                  fab_sink_t *sink)
{
    fab_jdoc_t *d = calloc(1, sizeof(*d));
    fab_status_t st = FAB_OK;

    if (!d)
        return FAB_ERR_NOMEM;
    snprintf(d->path, sizeof(d->path), "%s", path);
    d->claim.fd = -1;
    d->mopt = mopt;
    d->repeat = lopt->repeat > 0 ? lopt->repeat : 1;
    d->is_stdout = fab_output_is_stdout(path);
    snprintf(d->doc_status, sizeof(d->doc_status), "running");
    if (d->is_stdout && !fab_outputs_stdout()) {
        FAB_ERROR("--json-doc -: standard output is not open");
        st = FAB_ERR_IO;
    } else if (!d->is_stdout)
        st = fab_jdoc_claim(d, path, oopt);
    if (st == FAB_OK && !fab_piece_reset(&d->done))
        st = FAB_ERR_NOMEM;
    if (st != FAB_OK) {
        fab_piece_free(&d->done);
        fab_claim_release(&d->claim);
        free(d);
        return st;
    }
    memset(sink, 0, sizeof(*sink));
    sink->name = "json-doc";
    sink->run_begin = fab_jdoc_run_begin;
    sink->kernel_begin = fab_jdoc_kernel_begin;
    sink->row = fab_jdoc_row;
    sink->kernel_end = fab_jdoc_kernel_end;
    sink->run_end = fab_jdoc_run_end;
    sink->mark = fab_jdoc_mark;
    sink->close = fab_jdoc_close;
    sink->arg = d;
    return FAB_OK;
}
