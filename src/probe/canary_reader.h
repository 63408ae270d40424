/* canary_reader — the canary's file and its paced reader, for whoever
 * watches a disk without running a probe (verify --live): a 16 MiB file of
 * incompressible data in a scratch directory of its own, read 4 KiB at a
 * random block, uncached (O_DIRECT where the filesystem allows, else the
 * page evicted first, as ioping does), every period on an absolute clock.
 * The interactivity a stalled disk costs, at a negligible load.
 *
 *     struct canary_reader *r = canary_reader_start(st, "/srv", 100000000, seed, &e);
 *     ... every sample: canary_reader_take(r, &got);   reads, summed and largest ns
 *     canary_reader_stop(r);                            the file and its directory removed
 *
 * The probe's own canary (canary.c) reads the same kind of file. */
#ifndef SLUICE_PROBE_CANARY_READER_H
#define SLUICE_PROBE_CANARY_READER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include "core/err.h"
#include "db/store.h"

#define CANARY_IO 4096

/* The canary's file: fd is O_DIRECT when direct. */
struct canary_file {
    int fd;
    bool direct;
    char path[PATH_MAX];
};
/* Create dir/canary.N, write and fsync it, open it for uncached reads.
 * -1 with e (nothing left behind). */
int canary_file_make(struct canary_file *f, const char *dir, sl_err *e);
/* One uncached read of a random block into buf (CANARY_IO bytes, 4 KiB
 * aligned); how long the kernel kept us, in ns (a failed read too). */
uint64_t canary_file_read(const struct canary_file *f, unsigned char *buf, uint64_t *rng);
/* Close and unlink. */
void canary_file_remove(struct canary_file *f);

/* What was read since the previous take: a read still in flight counts in
 * max_ns with its age so far (a read stalled for seconds is seen while it
 * stalls, not once it returns). due and due_sum_ns count the reads due at
 * every tick, those a slow read held back with the wait they would have
 * had (paced_held_back): their mean is what a read at any moment waited,
 * where sum_ns / reads counts a stall of seconds as one read. */
struct canary_take {
    uint64_t reads, sum_ns, max_ns;
    uint64_t due, due_sum_ns;
};

struct canary_reader;
/* Make a scratch directory under dir (recorded in st when not NULL, so
 * `restore --crashed` removes it after a SIGKILL), the file inside it, and
 * start the thread (every signal blocked in it). NULL with e when any of
 * it fails; nothing is then left. */
struct canary_reader *canary_reader_start(store *st, const char *dir, uint64_t period_ns, uint64_t seed, sl_err *e);
void canary_reader_take(struct canary_reader *r, struct canary_take *out);
/* Stop the thread, remove the file and the directory, forget its record. */
void canary_reader_stop(struct canary_reader *r);

#endif
