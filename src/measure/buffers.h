/* The process's message buffers: one pair of page-aligned mappings for the whole run. */
#ifndef FAB_MEASURE_BUFFERS_H
#define FAB_MEASURE_BUFFERS_H

#include <stddef.h>

#include "core/status.h"

/* The process's send and receive areas, at least `bytes` each, pages touched, the send area
 * filled with 'a' and the receive area with zeros. They stay mapped until fab_buffers_free. */
fab_status_t fab_buffers_get(size_t bytes, char **sbuf, char **rbuf);
void fab_buffers_free(void);

#endif
