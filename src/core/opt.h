/* SPDX-License-Identifier: BSD-3-Clause */
/* One row of an option table: name, type, where the value goes, range, default and help. The
 * harness's table (cli/options.c) and each kernel's own (in kernels/) are made of these, and
 * one parser serves the command line, FABRICBENCH_* variables and `run --help` for both. */
#ifndef FAB_CORE_OPT_H
#define FAB_CORE_OPT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* Numbers in every type are written as core/num.h says (decimal, no spaces, no hex); the
 * range of a value is [min, max], or (min, max] for a row with above_min. */
typedef enum {
    FAB_OPT_FLAG,   /* bool, no argument */
    FAB_OPT_COUNT,  /* int, incremented, no argument */
    FAB_OPT_LONG,   /* long, a whole number (1e6 too) */
    FAB_OPT_INT,    /* int, a whole number */
    FAB_OPT_DOUBLE, /* double */
    FAB_OPT_SIZES,  /* fab_sizes_t: 1:4M, 8,1K,64K (each 1 B to 1G; min, max unused) */
    FAB_OPT_PAIR,   /* fab_pair_t: A,B (two different ranks, each in [min, max]) */
    FAB_OPT_SIZE,   /* size_t, one size (4K, 25M), in bytes; max 0: 1 to 1G */
    FAB_OPT_CHOICE, /* int: the index of the value in `arg`, "a|b|c" */
    FAB_OPT_STRING, /* const char *, pointing into argv or the environment; see `check` */
    FAB_OPT_RATE,   /* double, Gb/s: 100G, 25Gb/s, 800M, 56 */
    FAB_OPT_INTS,   /* fab_list_t of whole numbers: 1,4,8 or 1:8 (doubling) */
    FAB_OPT_RATES,  /* fab_list_t of rates in Gb/s: 500M,1G,2.5G or 100M:1G */
    FAB_OPT_WORDS,  /* fab_list_t of choices' indices in `arg` ("a|b|c"): b,a (no ranges) */
} fab_opt_type_t;

/* A list option's values, in the order given ("A:B": A, 2A, 4A, ... up to B, B included). */
#define FAB_LIST_MAX 32
typedef struct fab_list {
    int n;
    double v[FAB_LIST_MAX];
} fab_list_t;

typedef struct fab_pair {
    int a, b;
} fab_pair_t;

typedef struct fab_opt {
    const char *name; /* --name; environment FABRICBENCH_NAME (dashes become underscores) */
    char shortname;   /* -c, or 0 */
    fab_opt_type_t type;
    size_t offset; /* of the value in the table's value struct (offsetof) */
    double min, max;
    const char *arg;  /* what the value is, for help; CHOICE: the choices, "a|b|c" */
    const char *unit; /* for help and range errors */
    /* The default as help shows it, and the value before any option is read: parsed as the
     * option's value when it is one ("64", "25M", "ucx"); otherwise a description ("auto",
     * "none", "the port's") that leaves `unset` (numbers), NULL (strings) or nothing. */
    const char *def;
    const char *help;
    double unset;
    bool above_min; /* the range is (min, max]: min itself is refused (a time of 0 s) */
    /* STRING: the value's own check, before MPI_Init (a list's syntax, an address); on error
     * a message without the option's name in err. NULL: any non-empty text. */
    fab_status_t (*check)(const char *val, char *err, size_t errlen);
} fab_opt_t;

/* A rate in Gb/s as a person writes it, the rate options' units: 400G, 2.5G, 100M, 500K. */
void fab_rate_text(double gbps, char *buf, size_t len);
/* The choice `want` of a CHOICE or WORDS option's `arg` ("" none). */
void fab_opt_word(const fab_opt_t *d, int want, char *buf, size_t len);
/* Whether the option takes a value (all but FLAG and COUNT). */
bool fab_opt_takes_value(const fab_opt_t *d);
/* Set the value of d in the struct at base from the text val (NULL for FLAG and COUNT). On
 * error FAB_ERR_USAGE with a message naming the option in err. */
fab_status_t fab_opt_apply(const fab_opt_t *d, void *base, const char *val, char *err,
                           size_t errlen);
/* Set the value of d in the struct at base to its default (see `def`). */
void fab_opt_default(const fab_opt_t *d, void *base);
/* A FLAG or COUNT from the environment: 1/yes/true/on, 0/no/false/off, or (COUNT) 0 to 9.
 * *on: the option was switched on (false for an "off" value). */
fab_status_t fab_opt_apply_env_flag(const fab_opt_t *d, void *base, const char *val, bool *on,
                                    char *err, size_t errlen);
/* The value of d in the struct at base as text, as it would be given ("1e+08", "26214400",
 * "sum", "on"; "" for a string not set). */
void fab_opt_format(const fab_opt_t *d, const void *base, char *buf, size_t len);
/* FABRICBENCH_ and the name in capitals, dashes as underscores: FABRICBENCH_MAX_ITERS. */
void fab_opt_env_name(const fab_opt_t *d, char *buf, size_t len);

#endif
