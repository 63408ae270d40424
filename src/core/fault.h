/* fault — the test hook of SQLite's and curl's fault loops: with
 * SLUICE_FAULT=POINT:N[,POINT:N...] the Nth call (from 1, counted in this
 * process) at POINT fails as the real failure would, and one line
 * "sluice: fault injected at POINT:N" goes to stderr, so a loop over N knows
 * when a command no longer reaches it (tests/faults). Points:
 *   sysfs_write   a knob write (sysfs_write): EIO
 *   sqlite_step   a database statement (store_step, and every store_exec):
 *                 SQLITE_INTERRUPT, through a progress handler
 *   write         a file sluice writes itself (sysfs_write_local_atomic:
 *                 profiles, boot files, exports): EIO
 *   pg_batch      a batch of runs sent to or fetched from PostgreSQL: the
 *                 server ends the connection in its middle (src/share/pg.c)
 *   kill          a step that changes a file sluice writes under the root
 *                 (create, write, fsync, rename, symlink, link, unlink,
 *                 mkdir, rmdir): the process SIGKILLs itself just before it,
 *                 as a power cut or the OOM killer would (fault_kill_point;
 *                 tests/faults/boot-killed.sh)
 * Unset, it costs one relaxed load per call. */
#ifndef SLUICE_FAULT_H
#define SLUICE_FAULT_H

#include <stdbool.h>

enum fault_point { FAULT_SYSFS_WRITE, FAULT_SQLITE_STEP, FAULT_WRITE, FAULT_PG_BATCH, FAULT_KILL, FAULT_POINTS };

/* Count one call at p; true when this is the call to fail. Thread-safe. */
bool fault_hit(enum fault_point p);
/* Count one step at FAULT_KILL; on the Nth, SIGKILL this process. */
void fault_kill_point(void);

#endif
