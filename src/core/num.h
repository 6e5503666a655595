/* SPDX-License-Identifier: BSD-3-Clause */
/* Numbers as a person writes them: one grammar for every numeric option, the numbers inside
 * sizes, rates and lists, and every numeric environment variable the tool reads:
 *
 *     [+|-] DIGITS [. [DIGITS]] [e|E [+|-] DIGITS]     or     [+|-] . DIGITS [e|E [+|-] DIGITS]
 *
 * Decimal only: nothing empty, no space before, after or inside, no hexadecimal (0x10), no
 * inf or nan, no digit separators. A range is inclusive at both ends, but for `above_min`
 * (min itself refused); a whole-number range takes a whole value written any way (1e6, 2.0)
 * and refuses 1.5. A value beyond a double (1e400) is out of range; one below the smallest
 * (1e-400) is 0. README.md ("Numbers") documents it for users. */
#ifndef FAB_CORE_NUM_H
#define FAB_CORE_NUM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

typedef struct fab_range {
    double min, max;
    bool above_min;   /* (min, max]: min itself refused */
    bool whole;       /* whole numbers only */
    const char *unit; /* after the numbers in messages ("s", "iterations", "%"); NULL none */
} fab_range_t;

/* The length of the number at the start of s (0: none there) and its value in *v. */
size_t fab_num_prefix(const char *s, double *v);
/* Why s, all of it, is not a number: "it is empty", "hexadecimal is not accepted: write it in
 * decimal", ...; NULL when it is one. */
const char *fab_num_why(const char *s);
/* Whether v is in r (whole, when r asks for it). */
bool fab_num_in(const fab_range_t *r, double v);
/* s, all of it, as a number in r. On error FAB_ERR_USAGE and err says what was wrong and what
 * r accepts, without a subject: "'0x10' is not a number (hexadecimal is not accepted: write
 * it in decimal); give a whole number from 1 to 65536 messages". */
fab_status_t fab_num_parse(const char *s, const fab_range_t *r, double *v, char *err,
                           size_t errlen);
/* What r accepts, in words: "a whole number from 0 to 86400 s", "a number more than 0 and at
 * most 3600 s", "a number from 0.01 to 100%". */
void fab_range_text(const fab_range_t *r, char *buf, size_t len);
/* v as a person writes it: 86400, -1, 0.25, 1e13, 2.5e-7 (no "+", no padded exponent). */
void fab_num_text(double v, char *buf, size_t len);
/* Text from the command line or the environment, quoted for a message: control and invalid
 * bytes escaped, at most about 40 characters ("..." after a cut). */
void fab_num_quote(const char *s, char *buf, size_t len);

#endif
