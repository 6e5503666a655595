/* SPDX-License-Identifier: BSD-3-Clause */
/* The run's metadata: one table of fields that the HDF5 file (run attributes, hostnames and
 * placement datasets, the env group), JSON Lines (the run and end records) and `fabricbench
 * show` all use (output/runmeta.c; docs/SCHEMA.md describes each field). */
#ifndef FAB_OUTPUT_RUNMETA_H
#define FAB_OUTPUT_RUNMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/runinfo.h"

typedef enum {
    FAB_META_STR,  /* a string */
    FAB_META_INT,  /* a whole number */
    FAB_META_F64,  /* a number; NaN: unknown (JSON null) */
    FAB_META_STRS, /* one string per rank (HDF5: a dataset; JSON: an array) */
    FAB_META_JSON, /* a JSON object (HDF5: its text as an attribute; JSON: the object) */
    FAB_META_ENV,  /* "NAME=value" strings (HDF5: the env group's attributes; JSON: an object) */
} fab_meta_type_t;

/* When a field is known: at the start (written once), or at the end (written at the start as
 * it then stands, and again at the end; JSON Lines: in the end record). */
enum { FAB_META_BEGIN = 1, FAB_META_END = 2 };
/* Which files carry it. */
enum { FAB_META_H5 = 1, FAB_META_JSONL = 2, FAB_META_FILES = 3 };

typedef struct fab_meta_value {
    const char *s;     /* STR, JSON */
    int64_t i;         /* INT */
    double d;          /* F64 */
    char *const *list; /* STRS, ENV: n strings */
    int n;
} fab_meta_value_t;

typedef struct fab_meta_field fab_meta_field_t;
struct fab_meta_field {
    const char *name; /* attribute and JSON key */
    const char *json; /* JSON key where it differs from name, else NULL */
    fab_meta_type_t type;
    /* Where the value comes from (output/runmeta.c): the member at off of the run's info or of its
     * fabric, or a value of its own; false when this run has no such field. */
    bool (*get)(const fab_meta_field_t *f, const fab_run_info_t *info, fab_meta_value_t *v);
    size_t off;
    int when;         /* FAB_META_BEGIN or FAB_META_END */
    int where;        /* FAB_META_H5 | FAB_META_JSONL */
    const char *show; /* label in `fabricbench show` (in table order), NULL: not shown */
};

extern const fab_meta_field_t fab_meta_fields[];
extern const int fab_nmeta;

/* Field i of the run described by info; false when this run has no such field (no --fabric
 * resolution, no placement gathered). */
bool fab_meta_get(int i, const fab_run_info_t *info, fab_meta_value_t *v);

#endif
