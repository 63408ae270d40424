/* sysfs — the only door to /proc, /sys and /etc: every path is absolute as the
 * kernel names it ("/proc/sys/vm/dirty_ratio") and gets the root prefix set by
 * --root / SLUICE_ROOT, so the whole program can run against a fixture tree. */
#ifndef SLUICE_SYSFS_H
#define SLUICE_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "core/err.h"

/* Set the root prefix ("" or "/" mean the real system). Fails when root is
 * not an existing directory. */
int sysfs_set_root(const char *root, sl_err *e);
/* The prefix in force: "" for the real system, else an absolute path. */
const char *sysfs_root(void);
bool sysfs_is_real_root(void);
/* Refuse writes to the real system without root: -1 with a message naming
 * what (a command or an action) needs it; 0 under a fixture root. */
int sysfs_require_root(const char *what, sl_err *e);

/* root + path into buf; -1 if it does not fit. */
int sysfs_path(char *buf, size_t n, const char *path);
/* How many paths this module has looked up since the start: every read,
 * write, stat, listing and link of a kernel file passes through sysfs_path
 * once. What a screen costs is the difference across its refresh. */
long sysfs_access_count(void);

/* Read a small value file, whitespace trimmed at both ends. Returns the
 * length, or -1 with e filled (e->errnum is ENOENT when the file is absent). */
int sysfs_read(const char *path, char *buf, size_t n, sl_err *e);
/* Read a whole text file (cpuinfo, vmstat) up to cap bytes into a malloc'ed,
 * NUL-terminated buffer the caller frees. -1 with e filled on error. */
int sysfs_read_text(const char *path, size_t cap, char **out, sl_err *e);
/* The same from the machine sluice runs on, whatever the root: what a probe
 * writing into a real directory under a test root does to this host's page
 * cache shows only there (/proc/vmstat). */
int sysfs_read_text_host(const char *path, size_t cap, char **out, sl_err *e);
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

/* --- configuration files under /etc (boot persistence, saved profiles) --- */

/* Replace the file at path (inside the root) with data, atomically: a
 * temporary file created O_EXCL|O_NOFOLLOW in the same directory, written,
 * fsynced, renamed over path, then the directory fsynced. Readers see the old
 * or the new file, never a part. The directory must exist (sysfs_mkdirs).
 * -1 with e naming the file and the errno text; the temporary is removed. */
int sysfs_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode, sl_err *e);
/* The same, but only when nothing is at path yet: 0 written, 1 when path
 * exists (nothing written), -1 with e. */
int sysfs_write_file_new(const char *path, const char *data, size_t len, mode_t mode, sl_err *e);
/* The same for a file the user named that is not a system path (an export
 * written where the user asked): path is used as given, not under the root. */
int sysfs_write_local_atomic(const char *path, const char *data, size_t len, mode_t mode, sl_err *e);
/* Staging, for a set of files that must change together (boot install):
 * sysfs_stage_file writes data to a new temporary file beside path (inside
 * the root), fsynced, and puts the temporary's real path in tmp;
 * sysfs_stage_symlink does the same for a symlink to target (written as
 * given: an absolute target names a path on the target system). Nothing but
 * the temporary is created; -1 with e naming path, the temporary removed.
 * sysfs_commit_staged renames tmp over path and fsyncs the directory (-1
 * with e; tmp is then still there); sysfs_discard_staged removes tmp. */
int sysfs_stage_file(const char *path, const char *data, size_t len, mode_t mode, char *tmp, size_t n, sl_err *e);
int sysfs_stage_symlink(const char *target, const char *path, char *tmp, size_t n, sl_err *e);
int sysfs_commit_staged(const char *tmp, const char *path, sl_err *e);
void sysfs_discard_staged(const char *tmp);
/* mkdir -p inside the root; existing directories are fine. */
int sysfs_mkdirs(const char *dir, mode_t mode, sl_err *e);
/* Remove an empty directory inside the root (what a failed install had
 * created): 0, or -1 when it is absent, not empty or cannot be removed. */
int sysfs_rmdir(const char *dir);
/* Remove a file or symlink inside the root and fsync its directory. An absent
 * file is not an error (returns 1). */
int sysfs_unlink(const char *path, sl_err *e);
/* The target of a symlink inside the root as written; -1 when it is not one. */
int sysfs_readlink(const char *path, char *buf, size_t n, sl_err *e);
bool sysfs_is_symlink(const char *path);
/* Where the running sluice binary lives on the real system (not the root):
 * what a generated unit must run. -1 when unknown. */
int sysfs_self_exe(char *buf, size_t n);
/* A process of this real system (not the root, like sysfs_self_exe): its
 * state letter from /proc/PID/stat ('Z': exited, not yet waited for) and
 * when it started, in seconds since the epoch (to within a second: the boot
 * time /proc/stat gives is whole seconds). -1 when there is no such process
 * or its stat cannot be read. */
int sysfs_process(long pid, char *state, double *start_epoch_s);
/* Whether process pid of this real system still runs and is the one that
 * had started by started_by_s (epoch seconds; 0: unknown): a zombie has
 * exited and only waits for its parent, and a process that started later
 * has a recycled pid. When /proc cannot tell, it runs (never wrongly
 * declared dead). The one test for probe scratch owners and session holders. */
bool sysfs_process_runs(long pid, double started_by_s);
/* When this real system booted (/proc/stat btime), epoch seconds; -1 when
 * unknown. */
int sysfs_boot_time(double *epoch_s);
/* This process's pid namespace ("pid:[4026531836]") into buf; -1 when
 * /proc cannot say. */
int sysfs_pid_namespace(char *buf, size_t n);
/* The tuning lock file at path inside the root: opened read-write and
 * created (mode 0600, its directory 0755) when create, else read-only.
 * Never follows a symlink. The descriptor, or -1 with e naming the file. */
int sysfs_open_lock(const char *path, bool create, sl_err *e);

#endif
