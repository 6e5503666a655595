/* SPDX-License-Identifier: BSD-3-Clause */
/* The members of a run's JSON objects (output/jsonrec.h). */
#include <string.h>

#include "core/json.h"
#include "core/status.h"
#include "output/columns.h"
#include "output/jsonrec.h"
#include "output/runmeta.h"

void fab_jw_key(fab_jw_t *j, const char *key)
{
    if (j->more)
        fputc(',', j->f);
    j->more = true;
    fab_json_str(j->f, key);
    fputc(':', j->f);
}

void fab_jw_str(fab_jw_t *j, const char *key, const char *value)
{
    fab_jw_key(j, key);
    fab_json_str(j->f, value);
}

void fab_jw_int(fab_jw_t *j, const char *key, long long value)
{
    fab_jw_key(j, key);
    fprintf(j->f, "%lld", value);
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

void fab_jsonrec_meta(fab_jw_t *j, const fab_run_info_t *info, int when)
{
    FILE *f = j->f;

    for (int i = 0; i < fab_nmeta; i++) {
        const fab_meta_field_t *m = &fab_meta_fields[i];
        fab_meta_value_t v;

        if (!(m->where & FAB_META_JSONL) || m->when != when || !fab_meta_get(i, info, &v))
            continue;
        fab_jw_key(j, m->json ? m->json : m->name);
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
            for (int k = 0; k < v.n; k++) {
                fputs(k ? "," : "", f);
                fab_json_str(f, v.list[k] ? v.list[k] : "");
            }
            fputc(']', f);
            break;
        case FAB_META_ENV:
            fab_json_env(f, v.list, v.n);
            break;
        }
    }
}

void fab_jsonrec_units(fab_jw_t *j)
{
    fab_jw_key(j, "units");
    fputc('{', j->f);
    for (int c = 0; c < fab_ncolumns; c++) {
        fputs(c ? "," : "", j->f);
        fab_json_str(j->f, fab_columns[c].name);
        fputc(':', j->f);
        fab_json_str(j->f, fab_columns[c].unit);
    }
    fputc('}', j->f);
}

void fab_jsonrec_kernel(fab_jw_t *j, const fab_kmeta_t *m)
{
    for (int i = 0; i < m->n; i++) {
        const fab_kfield_t *f = &m->f[i];

        fab_jw_key(j, f->name);
        if (f->type == FAB_META_INT)
            fprintf(j->f, "%lld", (long long)f->i);
        else if (f->type == FAB_META_F64)
            fab_json_num(j->f, f->d);
        else
            fab_json_str(j->f, f->s);
    }
}

void fab_jsonrec_columns(fab_jw_t *j, const fab_kinst_t *ki, const fab_row_t *r)
{
    for (int c = 0; c < fab_ncolumns; c++) {
        fab_value_t v;

        fab_column_value(c, ki, r, &v);
        fab_jw_key(j, fab_columns[c].name);
        if (fab_columns[c].type == FAB_COL_STR)
            fab_json_str(j->f, v.s);
        else if (fab_columns[c].type == FAB_COL_F64)
            fab_json_num(j->f, v.d);
        else
            fprintf(j->f, "%lld", (long long)v.i);
    }
    if (r->nblock_medians > 0) {
        unsigned n =
            r->nblock_medians < FAB_ADAPT_MAX_BLOCKS ? r->nblock_medians : FAB_ADAPT_MAX_BLOCKS;

        fab_jw_key(j, "block_medians_us");
        fputc('[', j->f);
        for (unsigned i = 0; i < n; i++) {
            fputs(i ? "," : "", j->f);
            fab_json_num(j->f, r->block_median[i] * 1e6);
        }
        fputc(']', j->f);
    }
}

void fab_jsonrec_stop(fab_jw_t *j, const char *status, const char *reason)
{
    char now[32];

    fab_utc_now(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ");
    fab_jw_str(j, "status", status);
    fab_jw_str(j, "end_time", now);
    fab_jw_str(j, "stop_reason", reason);
    fab_jw_int(j, "exit_code",
               strcmp(status, "interrupted") == 0 ? FAB_EXIT_INTERRUPTED : FAB_EXIT_ENV);
}
