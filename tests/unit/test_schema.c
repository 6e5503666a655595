/* SPDX-License-Identifier: BSD-3-Clause */
/* The result schema as the analysis reads it: analysis/fabricbench_analysis/schema.json is
 * this program's output, made from the C side's one declaration of each table (the columns,
 * output/columns.c; the run's metadata fields, output/runmeta.c; a kernel's metadata fields,
 * output/kernelmeta.c, of every registered kernel) and the schema's name and version (the file's
 * own, which CMake reads into fab_schema.h). Run by ctest, it fails when the committed file
 * differs from what the tables make; `test_schema --write FILE` (the build's `schema_json`
 * target) writes it.
 *
 * usage: test_schema GOLDEN_DIR (compare with GOLDEN_DIR/../../analysis/...)
 *        test_schema --write FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/world.h"
#include "kernel/registry.h"
#include "output/columns.h"
#include "output/kernelmeta.h"
#include "output/runmeta.h"

#include "fab_schema.h"

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static const char *col_type(fab_col_type_t t)
{
    switch (t) {
    case FAB_COL_U64:
        return "u64";
    case FAB_COL_I64:
        return "i64";
    case FAB_COL_F64:
        return "f64";
    case FAB_COL_STR:
        return "str";
    }
    return "?";
}

static const char *meta_type(fab_meta_type_t t)
{
    switch (t) {
    case FAB_META_STR:
        return "str";
    case FAB_META_INT:
        return "int";
    case FAB_META_F64:
        return "f64";
    case FAB_META_STRS:
        return "strs";
    case FAB_META_JSON:
        return "json";
    case FAB_META_ENV:
        return "env";
    }
    return "?";
}

#define MAX_KATTRS 64

/* The union of every registered kernel's metadata fields, in the order they first appear. */
static int kernel_fields(const char **name, fab_meta_type_t *type)
{
    static char *hosts[2] = {"a", "a"};
    fab_world_t w = {.rank = 0, .size = 2, .hosts = hosts, .nhosts = 1, .local_ranks = 2};
    fab_opts_t o;
    int n = 0;

    fab_opts_defaults(&o);
    for (int k = 0; k < fab_nkernels; k++) {
        fab_kinst_t ki = {fab_kernels[k], NAN, false};
        fab_kmeta_t m;

        fab_kmeta_fill(&m, &ki, &o.meas, NULL, &w, "", "");
        for (int i = 0; i < m.n; i++) {
            int j = 0;

            while (j < n && strcmp(name[j], m.f[i].name) != 0)
                j++;
            if (j < n) {
                CHECK(type[j] == m.f[i].type); /* one field, one type, in every kernel */
                continue;
            }
            CHECK(n < MAX_KATTRS);
            if (n == MAX_KATTRS)
                break;
            name[n] = m.f[i].name;
            type[n++] = m.f[i].type;
        }
    }
    return n;
}

static void write_schema(FILE *f)
{
    const char *kname[MAX_KATTRS];
    fab_meta_type_t ktype[MAX_KATTRS];
    int nk = kernel_fields(kname, ktype);
    int first = 1;

    fprintf(f, "{\n  \"name\": ");
    json_string(f, FAB_SCHEMA_NAME);
    fprintf(f, ",\n  \"version\": %d,\n", FAB_SCHEMA_VERSION);
    fprintf(f, "  \"_generated\": \"by tests/unit/test_schema.c from output/columns.c, "
               "output/runmeta.c and output/kernelmeta.c (make schema_json); name and version are "
               "this file's own\",\n");
    /* the harness's columns; a kernel's own (output/columns.c's kcols) are the kernel's,
     * numbers, but for a text one (a word column, congestor_name): a reader must know it */
    fprintf(f, "  \"columns\": [");
    for (int i = 0; i < fab_ncolumns; i++) {
        const fab_column_t *c = &fab_columns[i];

        if (fab_column_kcol(i) && c->type != FAB_COL_STR)
            continue;
        fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
        first = 0;
        json_string(f, c->name);
        fprintf(f, ", \"unit\": ");
        json_string(f, c->unit);
        fprintf(f, ", \"type\": \"%s\", \"description\": ", col_type(c->type));
        json_string(f, c->doc);
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"run_attributes\": [");
    for (int i = 0; i < fab_nmeta; i++) {
        const fab_meta_field_t *m = &fab_meta_fields[i];

        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_string(f, m->name);
        fprintf(f, ", \"type\": \"%s\", \"when\": \"%s\", \"files\": \"%s\"", meta_type(m->type),
                m->when == FAB_META_END ? "end" : "begin",
                m->where == FAB_META_FILES ? "hdf5,json"
                : m->where == FAB_META_H5  ? "hdf5"
                                           : "json");
        if (m->json) {
            fprintf(f, ", \"json\": ");
            json_string(f, m->json);
        }
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"kernel_attributes\": [");
    for (int i = 0; i < nk; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_string(f, kname[i]);
        fprintf(f, ", \"type\": \"%s\"}", meta_type(ktype[i]));
    }
    fprintf(f, "\n  ]\n}\n");
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0, got;

    if (!f)
        return NULL;
    do {
        if (len + 4096 + 1 > cap) {
            char *nb = realloc(buf, cap = 2 * cap + 8192);

            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, 4096, f);
        len += got;
    } while (got > 0);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    char *made = NULL, *have, path[4096];
    size_t len = 0;
    FILE *f;

    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        f = fopen(argv[2], "w");
        if (!f) {
            perror(argv[2]);
            return 1;
        }
        write_schema(f);
        return fclose(f) == 0 && fab_test_failures == 0 ? 0 : 1;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: test_schema GOLDEN_DIR | test_schema --write FILE\n");
        return 2;
    }
    f = open_memstream(&made, &len);
    write_schema(f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/../../analysis/fabricbench_analysis/schema.json", argv[1]);
    have = read_all(path);
    CHECK(have != NULL);
    if (have && strcmp(have, made) != 0) {
        fab_test_failures++;
        fprintf(stderr,
                "%s differs from what output/columns.c, output/runmeta.c and output/kernelmeta.c "
                "declare: regenerate it (make schema_json) and commit it\n",
                path);
    }
    CHECK(fab_ncolumns > 0 && fab_nmeta > 0);
    free(have);
    free(made);
    return fab_test_report("schema");
}
