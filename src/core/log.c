/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging to stderr, every line prefixed with "[rank N host]". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"

/* "[rank N host]": a host name is at most 255 bytes (HOST_NAME_MAX + 1 in POSIX terms). */
static char fab_log_prefix[256 + 32] = "[fabricbench]";
static fab_log_level_t fab_log_level = FAB_LOG_WARN;

void fab_log_init(int rank, const char *host)
{
    if (rank >= 0)
        snprintf(fab_log_prefix, sizeof(fab_log_prefix), "[rank %d %s]", rank, host);
    else
        snprintf(fab_log_prefix, sizeof(fab_log_prefix), "[%s]", host);
}

void fab_log_set_level(fab_log_level_t level)
{
    fab_log_level = level;
}

fab_log_level_t fab_log_get_level(void)
{
    return fab_log_level;
}

void fab_log(fab_log_level_t level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    char msg[2048];
    va_list ap;

    if (level > fab_log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* One write per line, so lines from several ranks do not interleave mid-line. */
    fprintf(stderr, "%s %s: %s\n", fab_log_prefix, names[level], msg);
    fflush(stderr);
}

void fab_log_progress(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s progress: %s\n", fab_log_prefix, msg);
    fflush(stderr);
}
