/* sysfs — the only door to /proc, /sys and /etc: every path is absolute as the
 * kernel names it ("/proc/sys/vm/dirty_ratio") and gets the root prefix set by
 * --root / SLUICE_ROOT, so the whole program can run against a fixture tree. */
#ifndef SLUICE_SYSFS_H
#define SLUICE_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include "err.h"

/* Set the root prefix ("" or "/" mean the real system). Fails when root is
 * not an existing directory. */
int sysfs_set_root(const char *root, sl_err *e);
/* The prefix in force: "" for the real system, else an absolute path. */
const char *sysfs_root(void);
bool sysfs_is_real_root(void);

/* root + path into buf; -1 if it does not fit. */
int sysfs_path(char *buf, size_t n, const char *path);

/* Read a small value file, whitespace trimmed at both ends. Returns the
 * length, or -1 with e filled (e->errnum is ENOENT when the file is absent). */
int sysfs_read(const char *path, char *buf, size_t n, sl_err *e);
/* Read a whole text file (cpuinfo, vmstat) up to cap bytes into a malloc'ed,
 * NUL-terminated buffer the caller frees. -1 with e filled on error. */
int sysfs_read_text(const char *path, size_t cap, char **out, sl_err *e);
/* Read a value file as a signed integer. */
int sysfs_read_ll(const char *path, long long *out, sl_err *e);

/* Write value + "\n" with a single write(2) (the kernel parses one write).
 * -1 with e filled: the message names the path and the errno text. */
int sysfs_write(const char *path, const char *value, sl_err *e);

bool sysfs_exists(const char *path);
bool sysfs_is_dir(const char *path);
/* Names in a directory, sorted, without "." and "..". Returns the count and
 * a malloc'ed array of malloc'ed strings (free with sysfs_names_free), or -1. */
int sysfs_list(const char *dir, char ***names, sl_err *e);
void sysfs_names_free(char **names, int n);
/* Where a symlink (e.g. /sys/block/sda) really lives, as a path inside the
 * root ("/sys/devices/.../block/sda"). -1 if it does not resolve. */
int sysfs_resolve(const char *path, char *buf, size_t n, sl_err *e);

#endif
