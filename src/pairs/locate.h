/* SPDX-License-Identifier: BSD-3-Clause */
/* Localisation (pairs/locate.c): from an all-pairs matrix to the slow pairs and the
 * suspects that explain them (a node or its link, the path into a node from outside its
 * switch, a switch group's uplinks, one link). Pure: unit-tested on synthetic matrices. */
#ifndef FAB_PAIRS_LOCATE_H
#define FAB_PAIRS_LOCATE_H

#include <stddef.h>

#define FAB_STR_(x) #x
#define FAB_STR(x)  FAB_STR_(x) /* a default as the option table's text */

/* Defaults of the verdict's thresholds (documented in docs/METRICS.md). */
#define FAB_LOCATE_BW_FRAC    0.90 /* a pair is slow below this share of the median pair */
#define FAB_LOCATE_LAT_FACTOR 1.5  /* ... or above this multiple of the median latency */
#define FAB_LOCATE_LINE_FRAC  0.90 /* ... or below this share of the line rate, when known */

typedef struct fab_locate_in {
    int n;             /* members (nodes) */
    const double *bw;  /* n*n MB/s, [src * n + dst]; NaN: not measured; NULL: no bandwidth */
    const double *lat; /* n*n one-way latency (us); NaN: not measured; NULL: no latency */
    const int *group;  /* n switch groups (>= 0; -1 unknown); NULL: no groups known */
    double bw_frac;    /* thresholds (the FAB_LOCATE_ defaults when 0) */
    double lat_factor;
    double line_MBps; /* > 0: also slow below line_frac of it */
    double line_frac;
    /* > 0: judge against these typical pairs instead of the matrix's medians (retests are
     * judged against the schedule's) */
    double bw_ref, lat_ref;
} fab_locate_in_t;

typedef enum {
    FAB_SUSPECT_NODE = 0,   /* slow with most peers, on and off its switch: the node or its link */
    FAB_SUSPECT_PATH = 1,   /* slow with peers off its switch only: a switch link serving it */
    FAB_SUSPECT_GROUP = 2,  /* pairs out of a switch group slow across its nodes: its uplinks */
    FAB_SUSPECT_PAIR = 3,   /* one pair slow on its own: that link or path */
    FAB_SUSPECT_FABRIC = 4, /* the typical pair below the line rate's share: something common
                             * (the ports' speed, the line rate assumed, a setting) */
} fab_suspect_kind_t;

typedef struct fab_suspect {
    fab_suspect_kind_t kind;
    int a, b;  /* node (NODE, PATH), group (GROUP), the pair's nodes (PAIR); -1 if unused */
    int slow;  /* slow pairs it explains */
    int pairs; /* measured pairs it covers */
} fab_suspect_t;

/* Bits of a pair's verdict (fab_locate_t.slow). */
#define FAB_SLOW_BW   1 /* bandwidth below the thresholds (either direction) */
#define FAB_SLOW_LAT  2 /* latency above the threshold */
#define FAB_SLOW_LINE 4 /* bandwidth below line_frac of the line rate */

typedef struct fab_locate {
    double bw_median, lat_median; /* over the measured ordered pairs (NaN: none) */
    unsigned char *slow;          /* n*n (symmetric): FAB_SLOW_ bits of the unordered pair */
    int nslow;                    /* unordered pairs slow */
    int npairs;                   /* unordered pairs measured */
    fab_suspect_t *suspects;
    int nsuspects;
    int *node_suspect; /* n: the suspect naming each node (NODE/PATH/GROUP/PAIR), -1: ok */
} fab_locate_t;

/* Whether the slow pair (i, j) of a verdict stands out from the rest, so that measuring it
 * again alone can tell something: slow against the typical pair (bandwidth or latency), or
 * below the line rate's share while the fabric as a whole is not named (when it is, that
 * rule explains every such pair, and so would a retest of each). */
int fab_locate_stands_out(const fab_locate_t *l, int n, int i, int j);
/* Judge the matrix; 0 on success, -1 when out of memory. Free with fab_locate_free. */
int fab_locate(const fab_locate_in_t *in, fab_locate_t *out);
/* The slow pairs of verdict l (of in's matrix) to measure again alone: those that stand out
 * (above), the slowest first (the lower share of the median of either direction; latency: the
 * median over the higher), at most per_member x n of them, and of the pairs of a node named
 * on its own (FAB_SUSPECT_NODE: slow with most of its peers, which its other pairs show as
 * well) at most per_member: list[2 * k], list[2 * k + 1] (room for l->nslow pairs). Returns
 * their count, -1 when out of memory; *stood: the pairs that stood out, taken or not. */
int fab_locate_retests(const fab_locate_in_t *in, const fab_locate_t *l, int per_member, int *list,
                       int *stood);
void fab_locate_free(fab_locate_t *l);
/* "node", "path", "group", "pair", "fabric". */
const char *fab_suspect_kind_name(fab_suspect_kind_t k);
/* One line describing suspect s, naming nodes by names[] and groups by gnames[] (NULL:
 * numbers). */
void fab_suspect_text(const fab_suspect_t *s, char *const *names, char *const *gnames, char *buf,
                      size_t len);

#endif
