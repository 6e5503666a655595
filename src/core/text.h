/* SPDX-License-Identifier: BSD-3-Clause */
/* Bounded text building and trimming, for messages and lists. */
#ifndef FAB_CORE_TEXT_H
#define FAB_CORE_TEXT_H

#include <stddef.h>

/* Append printf-style text at buf + *at (bounded by len); *at grows by what the text needed,
 * so *at >= len says the text was cut. */
void fab_appendf(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* s without leading and trailing white space (the end is cut in place). */
char *fab_trim(char *s);
/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when the byte at s does not
 * start one (a stray continuation byte, an overlong form, a surrogate, a cut sequence). */
size_t fab_utf8_seq(const unsigned char *s);
/* Whether s is valid UTF-8 throughout. */
int fab_utf8_valid(const char *s);
/* s as valid UTF-8: each byte that is not part of a valid sequence becomes the four
 * characters \xNN (its value in hex). A new string (free it), NULL when out of memory. */
char *fab_utf8_clean(const char *s);
/* Text from a file or a command line, made safe for a terminal into out (len bytes): C0
 * controls, DEL and each byte that is not valid UTF-8 as \xNN, the C1 controls, line and
 * paragraph separators and bidirectional controls as \uNNNN; cut to fit. */
void fab_text_safe(const char *in, char *out, size_t len);

/* The edit distance (Levenshtein) of two short strings (under 128 characters; longer ones
 * get the longer length), for "did you mean". */
size_t fab_edit_distance(const char *a, const char *b);

#endif
