/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging to stderr with a "[rank N host]" prefix, for the harness and kernels alike. */
#ifndef FAB_CORE_LOG_H
#define FAB_CORE_LOG_H

#include <stddef.h>

typedef enum { FAB_LOG_ERROR = 0, FAB_LOG_WARN, FAB_LOG_INFO, FAB_LOG_DEBUG } fab_log_level_t;

/* Set the prefix every message carries: "[rank N host]". rank < 0: "[host]". */
void fab_log_init(int rank, const char *host);
void fab_log_set_level(fab_log_level_t level);
fab_log_level_t fab_log_get_level(void);
void fab_log(fab_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A progress line: printed at every level (--quiet is checked by the caller). */
void fab_log_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define FAB_ERROR(...) fab_log(FAB_LOG_ERROR, __VA_ARGS__)
#define FAB_WARN(...)  fab_log(FAB_LOG_WARN, __VA_ARGS__)
#define FAB_INFO(...)  fab_log(FAB_LOG_INFO, __VA_ARGS__)
#define FAB_DEBUG(...) fab_log(FAB_LOG_DEBUG, __VA_ARGS__)

#endif
