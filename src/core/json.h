/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON text, the one way every output writes it (JSON Lines, inventory, placement). */
#ifndef FAB_CORE_JSON_H
#define FAB_CORE_JSON_H

#include <stdio.h>

/* s as a JSON string: quoted; '"', '\\', \n and \t escaped, other control characters as
 * \u00XX, a byte that is not UTF-8 as the text \xNN (core/text.h); NULL writes "". */
void fab_json_str(FILE *f, const char *s);
/* A number with every digit a double holds (%.17g), or null when it is not finite. */
void fab_json_num(FILE *f, double v);
/* Pretty-printed JSON to one line, in place: newlines and the indentation after them go,
 * outside strings. */
void fab_json_compact(char *s);

#endif
