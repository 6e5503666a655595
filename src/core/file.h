/* SPDX-License-Identifier: BSD-3-Clause */
/* Replacing a file atomically: the new contents go to a temporary file in the same
 * directory, are synced, and renamed over the file, so that a reader (or a crash) sees either
 * the previous complete file or the new one, never a part. */
#ifndef FAB_CORE_FILE_H
#define FAB_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Write n bytes of buf to tmp (created, or truncated), sync it, rename it over path, and sync
 * the directory. Returns 0, or an errno value with the step that failed in *what ("create",
 * "write", "sync", "rename"); on failure tmp is removed and path is as it was. */
int fab_file_replace(const char *path, const char *tmp, const void *buf, size_t n,
                     const char **what);

/* A run's claim on an output path: the lock file ".NAME.lock" in the same directory, held
 * with flock for the whole run, so that two runs never write one file. */
typedef struct fab_claim {
    int fd; /* -1: none */
    char lock[4096];
} fab_claim_t;

/* Claim path. Returns 0; EWOULDBLOCK when another process holds the claim; or an errno value
 * (the directory cannot be written, ...). */
int fab_claim(const char *path, fab_claim_t *c);
/* Give the claim up (the lock file goes). Harmless on a claim not held. */
void fab_claim_release(fab_claim_t *c);

/* What is at path, for messages: NULL when nothing is there, "a regular file", "a directory",
 * "a FIFO", "a character device", "a block device", "a socket". */
const char *fab_file_kind(const char *path);
/* Whether a and b name the same file: the same device and inode when both exist, else the
 * same absolute path (directories resolved). */
bool fab_same_file(const char *a, const char *b);

/* Crash safety's cost bound: a commit (the whole file rewritten) waits until this many times
 * the last one's duration has passed since it, so commits take at most about 1/10 of a run.
 * Rows (out/hdf5.c) and the pairs matrix (measure/pairs.c) follow it. */
#define FAB_COMMIT_GAP 10.0

#endif
