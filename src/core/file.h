/* Replacing a file atomically: the new contents go to a temporary file in the same
 * directory, are synced, and renamed over the file, so that a reader (or a crash) sees either
 * the previous complete file or the new one, never a part. */
#ifndef FAB_CORE_FILE_H
#define FAB_CORE_FILE_H

#include <stddef.h>

/* Write n bytes of buf to tmp (created, or truncated), sync it, rename it over path, and sync
 * the directory. Returns 0, or an errno value with the step that failed in *what ("create",
 * "write", "sync", "rename"); on failure tmp is removed and path is as it was. */
int fab_file_replace(const char *path, const char *tmp, const void *buf, size_t n,
                     const char **what);

#endif
