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

#endif
