/* SPDX-License-Identifier: BSD-3-Clause */
/* The files of the outputs, in directories others may write (docs/DEVELOPING.md, "Outputs:
 * claimed, checked, never shared"). An output path is claimed once: its directory is opened
 * (the directory part as the user named it), and everything after goes through that
 * descriptor, so a directory swapped later changes nothing. Nothing is ever written through a
 * symbolic link, a FIFO or a device: the lock file is opened O_NOFOLLOW and must be a regular
 * file with one link; temporaries have unpredictable names and are created O_EXCL|O_NOFOLLOW;
 * a file is replaced by renaming a new one over its name (which replaces a link, never follows
 * it); appending opens O_NOFOLLOW a regular file with one link. */
#ifndef FAB_CORE_FILE_H
#define FAB_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A run's claim on an output path: the lock file ".NAME.lock" in the same directory, held
 * with flock for the whole run, so that two runs never write one file. */
typedef struct fab_claim {
    int fd;          /* the lock file; -1: none */
    int dir;         /* the output's directory, opened by the claim; -1: none */
    char base[256];  /* the output's name in dir */
    char lock[4096]; /* the lock file's path (messages) */
    char tmp[4096];  /* the last temporary file's path (messages) */
} fab_claim_t;

/* Claim path. Returns 0; EWOULDBLOCK when another process holds the claim; ELOOP when the
 * lock file is a symbolic link, EINVAL when it is not a regular file, EMLINK when it has more
 * than one link (each refused, nothing opened through it); or an errno value (the directory
 * cannot be written, ...). */
int fab_claim(const char *path, fab_claim_t *c);
/* Give the claim up (the lock file goes). Harmless on a claim not held. */
void fab_claim_release(fab_claim_t *c);
/* What is at the claimed name now, in the claimed directory, a link not followed (as
 * fab_file_kind); *links (if not NULL) its hard-link count. */
const char *fab_claim_kind(const fab_claim_t *c, nlink_t *links);

/* Write n bytes of buf to a new temporary file next to the claimed name (unpredictable name,
 * O_EXCL|O_NOFOLLOW), sync it, rename it over the name (replacing a file or a link there,
 * never writing through one), and sync the directory. Returns 0, or an errno value with the
 * step that failed in *what ("create", "write", "sync", "rename"); on failure the temporary
 * file is removed and the name is as it was. c->tmp names the temporary file. */
int fab_file_replace(fab_claim_t *c, const void *buf, size_t n, const char **what);

typedef enum {
    FAB_OPEN_CREATE,  /* a new file: EEXIST when anything is at the name */
    FAB_OPEN_REPLACE, /* a new file renamed over what is at the name (a file or a link) */
    FAB_OPEN_APPEND,  /* the regular file at the name (created if none), written at its end */
} fab_open_mode_t;
/* Open the claimed name for writing (a file written as the run goes). Returns a descriptor, or
 * -1 with errno: ELOOP for a symbolic link, EINVAL for what is not a regular file, EMLINK for
 * a file with more than one link (appending would write into the other names). */
int fab_claim_open(fab_claim_t *c, fab_open_mode_t mode);
/* Open the claimed name for reading: a regular file, not through a link (-1 and errno as
 * fab_claim_open). */
int fab_claim_read(const fab_claim_t *c);

/* What is at path, for messages, a link not followed: NULL when nothing is there, "a regular
 * file", "a symbolic link", "a directory", "a FIFO", "a character device", "a block device",
 * "a socket". */
const char *fab_file_kind(const char *path);
/* Whether a and b name the same file: the same device and inode when both exist, else the
 * same absolute path (directories resolved). */
bool fab_same_file(const char *a, const char *b);

/* Crash safety's cost bound: a commit (the whole file rewritten) waits until this many times
 * the last one's duration has passed since it, so commits take at most about 1/10 of a run.
 * Rows (output/hdf5.c) and the pairs matrix (pairs/pairs.c) follow it. */
#define FAB_COMMIT_GAP 10.0

#endif
