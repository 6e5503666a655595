/* JSON Lines and CSV exports, for monitoring and scripts: the same columns, names and units
 * as the HDF5 table (src/columns.c). Each line is flushed as soon as it is written. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#include "out/sink.h"
#include "fab_version.h"

typedef struct fab_export {
    FILE *f;
    char path[1024];
    bool csv;
    bool skip_header; /* appending to a CSV file that has one */
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

static fab_status_t fab_export_run_begin(void *arg, const fab_run_info_t *info, const fab_opts_t *o)
{
    fab_export_t *e = arg;
    FILE *f = e->f;

    (void)o;
    if (e->csv && e->skip_header)
        return FAB_OK;
    if (e->csv) {
        fprintf(f, "kernel");
        for (int c = 0; c < fab_ncolumns; c++)
            fprintf(f, ",%s", fab_columns[c].name);
        fputc('\n', f);
        return fab_export_flush(e);
    }
    fprintf(f, "{\"record\":\"run\"");
    fab_json_kv(f, "schema", "fabricbench-results");
    fprintf(f, ",\"schema_version\":1");
    fab_json_kv(f, "tool_version", FAB_VERSION);
    fab_json_kv(f, "git_commit", FAB_GIT_COMMIT);
    fab_json_kv(f, "start_time", info->start_time);
    fab_json_kv(f, "command_line", info->command_line);
    fab_json_kv(f, "mpi_library", info->mpi_library);
    fab_json_kv(f, "ucx_version", info->ucx_version);
    fab_json_kv(f, "hwloc_version", info->hwloc_version);
    fab_json_kv(f, "hdf5_version", info->hdf5_version);
    fab_json_kv(f, "pml", info->pml);
    fab_json_kv(f, "timer", info->timer);
    fprintf(f, ",\"timer_cost_ns\":");
    fab_json_num(f, info->timer_cost_ns);
    fprintf(f, ",\"nranks\":%d,\"nhosts\":%d", info->nranks, info->nhosts);
    fab_json_kv(f, "ranks_per_node", info->ranks_per_node);
    fprintf(f, ",\"hostnames\":[");
    for (int i = 0; i < info->nranks; i++) {
        fprintf(f, i ? "," : "");
        fab_json_str(f, info->hosts[i]);
    }
    fprintf(f, "]");
    fab_json_kv(f, "slurm_job_id", info->slurm_job);
    fab_json_kv(f, "slurm_step_id", info->slurm_step);
    fab_json_kv(f, "slurm_nodelist", info->slurm_nodelist);
    fab_json_kv(f, "results_file", info->results_file);
    if (info->fabric) {
        const fab_fabric_t *fb = info->fabric;

        fab_json_kv(f, "fabric_requested", fb->requested[0] ? fb->requested : "any");
        fab_json_kv(f, "fabric", fb->name[0] ? fb->name : "any");
        fab_json_kv(f, "fabric_device", fb->device);
        fprintf(f, ",\"fabric_port\":%d", fb->port);
        fab_json_kv(f, "fabric_netdev", fb->netdev);
        fab_json_kv(f, "fabric_env", fb->env);
        fprintf(f, ",\"line_rate_gbps\":");
        fab_json_num(f, info->line_rate_gbps > 0 ? info->line_rate_gbps : NAN);
        fab_json_kv(f, "line_rate_source", info->line_rate_from);
    }
    if (info->placement) {
        fprintf(f, ",\"placement\":[");
        for (int i = 0; i < info->nranks; i++) {
            fprintf(f, i ? "," : "");
            fab_json_str(f, info->placement[i] ? info->placement[i] : "");
        }
        fprintf(f, "]");
    }
    if (info->inventory_json)
        fprintf(f, ",\"inventory\":%s", info->inventory_json);
    fprintf(f, ",\"env\":{");
    for (int i = 0; i < info->nenv; i++) {
        const char *eq = strchr(info->env[i], '=');
        char key[256];

        if (!eq || (size_t)(eq - info->env[i]) >= sizeof(key))
            continue;
        snprintf(key, sizeof(key), "%.*s", (int)(eq - info->env[i]), info->env[i]);
        fprintf(f, i ? "," : "");
        fab_json_str(f, key);
        fputc(':', f);
        fab_json_str(f, eq + 1);
    }
    fprintf(f, "},\"units\":{");
    for (int c = 0; c < fab_ncolumns; c++) {
        fprintf(f, c ? "," : "");
        fab_json_str(f, fab_columns[c].name);
        fputc(':', f);
        fab_json_str(f, fab_columns[c].unit);
    }
    fprintf(f, "}}\n");
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
        int64_t iv;
        double dv;

        fab_column_value(c, r, &iv, &dv);
        if (!e->csv)
            fprintf(f, ",\"%s\":", fab_columns[c].name);
        else
            fputc(',', f);
        if (fab_columns[c].type == FAB_COL_F64) {
            if (e->csv && !isfinite(dv))
                fputs("", f);
            else
                fab_json_num(f, dv);
        } else {
            fprintf(f, "%lld", (long long)iv);
        }
    }
    fputs(e->csv ? "\n" : "}\n", f);
    return fab_export_flush(e);
}

static fab_status_t fab_export_run_end(void *arg, const fab_run_info_t *info)
{
    fab_export_t *e = arg;

    if (e->csv)
        return fab_export_flush(e);
    fprintf(e->f, "{\"record\":\"end\"");
    fab_json_kv(e->f, "status", info->status);
    fab_json_kv(e->f, "end_time", info->end_time);
    fab_json_kv(e->f, "stop_reason", info->stop_reason);
    fab_json_kv(e->f, "ucx_transports", info->ucx_tls);
    fab_json_kv(e->f, "ucx_transports_by_pair", info->ucx_pairs);
    if (info->fabric) {
        fab_json_kv(e->f, "fabric_check", info->fabric->verdict);
        fab_json_kv(e->f, "fabric_check_reason", info->fabric->verdict_why);
    }
    fprintf(e->f, "}\n");
    return fab_export_flush(e);
}

static void fab_export_close(void *arg)
{
    fab_export_t *e = arg;

    if (e->f)
        fclose(e->f);
    free(e);
}

/* Opens (creates or, with --append, appends to) path; refuses an existing file otherwise. */
fab_status_t fab_out_export_sink(const char *path, bool csv, const fab_opts_t *o, fab_sink_t *sink)
{
    fab_export_t *e = calloc(1, sizeof(*e));
    FILE *probe;

    if (!e)
        return FAB_ERR_NOMEM;
    snprintf(e->path, sizeof(e->path), "%s", path);
    e->csv = csv;
    probe = fopen(path, "r");
    if (probe && !o->append && !o->force) {
        fclose(probe);
        free(e);
        FAB_ERROR("%s file %s already exists", csv ? "CSV" : "JSON Lines", path);
        fprintf(stderr, "hint: --append adds to it, --force replaces it, or choose another "
                        "name\n");
        return FAB_ERR_USAGE;
    }
    if (probe)
        fclose(probe);
    e->f = fopen(path, o->append ? "a" : "w");
    if (e->f && o->append) {
        fseek(e->f, 0, SEEK_END);
        e->skip_header = csv && ftell(e->f) > 0;
    }
    if (!e->f) {
        FAB_ERROR("cannot open %s for writing: %s", path, strerror(errno));
        free(e);
        return FAB_ERR_IO;
    }
    memset(sink, 0, sizeof(*sink));
    sink->name = csv ? "csv" : "json";
    sink->run_begin = fab_export_run_begin;
    sink->row = fab_export_row;
    sink->run_end = fab_export_run_end;
    sink->close = fab_export_close;
    sink->arg = e;
    return FAB_OK;
}
