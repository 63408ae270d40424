/* sync — push, pull and merge: the operations the CLI and the UI call. They
 * tie the transports (share.h) to the store (db/store_share.h). */
#ifndef SLUICE_SHARE_SYNC_H
#define SLUICE_SHARE_SYNC_H

#include "share/share.h"
#include "db/store_share.h"

#include <time.h>

/* What happened to one object or file, as it happens. */
struct share_event {
    enum { SHARE_PUSHED, SHARE_FETCHED, SHARE_MERGED, SHARE_REFUSED, SHARE_NOTE } kind;
    const char *name;                 /* key or file as the user knows it */
    const struct share_report *report;/* SHARE_MERGED */
    const char *msg;                  /* SHARE_REFUSED, SHARE_NOTE */
    long long size_bytes;
};
typedef void (*share_event_fn)(const struct share_event *ev, void *arg);

/* Check a local file (read into memory, at most max_bytes) and merge it in
 * one transaction; messages name it label (NULL: the file's path, else
 * what the user knows it as: a server's batch of runs). -1 with e: the
 * store is unchanged. */
int share_merge_file(store *s, const char *file, const char *label, long long max_bytes, struct share_report *rep,
                     sl_err *e);
/* Several local files: all read and checked first (any refusal: -1 with the
 * store unchanged), then each merged in its own transaction, reported
 * through fn as SHARE_MERGED. -1 with e if a merge fails: the files before
 * it stay merged, that one and the rest are not. */
int share_merge_files(store *s, char *const *files, int n, long long max_bytes, share_event_fn fn, void *arg,
                      sl_err *e);

struct share_push_opts {
    bool mine;                /* only this host's rows */
    bool migrate;             /* a central store: upgrade an older sluice schema */
    const char *hw_class;     /* override the classes it is filed under */
};
/* Snapshot the store and upload it as CLASS/HOST-UUID.sluicedb for every
 * hardware class this host's runs were measured on (without runs: the class
 * of the disk holding /, else the first disk). Returns objects uploaded or -1. */
int share_push(store *s, struct share_remote *r, const struct share_push_opts *po, share_event_fn fn, void *arg,
               sl_err *e);

struct share_pull_opts {
    bool all_classes;         /* every class folder, not only this host's disks' */
    bool keep_going;          /* merge the good files when some are refused */
};
/* List, download and check every object of this host's hardware classes
 * (or all), then merge each in its own transaction. Unless keep_going, any
 * download or check failure stops the pull before the first merge, so the
 * store is unchanged. Returns rows added, or -1. */
long long share_pull(store *s, struct share_remote *r, const struct share_pull_opts *po, share_event_fn fn, void *arg,
                     sl_err *e);

/* The same through a central store of rows (r->ops->rows, src/share/rows.c):
 * push sends the runs of host (this machine, bound to it by key:
 * share_row_ops.claim) in the snapshot file snap that the server lacks, in
 * batches of one transaction each (runs without a disk filed under
 * forced_class (--class) when given, else under their host's class, else
 * default_class: this host's main disk's), and returns how many it sent
 * (0: the server had them all), or -1 (the batches before the failure stay
 * on the server, whole). share_push calls it. */
long long share_push_rows(struct share_remote *r, const char *snap, const char *host, const char *key,
                          const char *forced_class, const char *default_class, bool migrate, share_event_fn fn,
                          void *arg, sl_err *e);
/* Pull the runs of this host's classes (or all) that the server numbered
 * after the last pull from it, batch by batch, each checked and merged in
 * its own transaction before the pull's cursor moves. Returns rows added,
 * or -1 (batches merged before the failure stay). share_pull calls it. */
long long share_pull_rows(store *s, struct share_remote *r, const struct share_pull_opts *po, share_event_fn fn,
                          void *arg, sl_err *e);
/* Retention: runs measured more than older_than_days ago, and per host
 * all but its newest keep_runs (0: that rule off; one of them is needed).
 * On a central store (share_row_ops.prune) only this host's runs (found in
 * s), and a run whose start is not a time is left and said. Returns how
 * many runs were (or, dry_run, would be) removed, or -1. */
struct share_prune_opts {
    int older_than_days, keep_runs;
    bool dry_run;
};
long long share_prune(store *s, struct share_remote *r, const struct share_prune_opts *po, share_event_fn fn,
                      void *arg, sl_err *e);
/* 0 when started is a run's start as sluice writes it, a real UTC time
 * (YYYY-MM-DDTHH:MM:SSZ, 1970 or later), at most skew_s past now; *t is
 * then that time. Else -1 with why ("it starts at '...', which is not a UTC
 * time" or "..., in the future"). */
int share_run_time_check(const char *started, time_t now, long skew_s, time_t *t, char *why, size_t n);
struct host_info;
/* The key binding host_uuid to this machine on a central store: SHA-256
 * hex of the machine-id (else the hostname) with the UUID. */
void share_host_key(const struct host_info *h, const char *host_uuid, char key[65]);
/* The same on an object store (share_prune calls it; src/share/prune.c):
 * the same runs go from each host's object (its oldest), the object is
 * rewritten (or, left without runs, removed with its entry: a host without
 * runs goes when its last push is older_than_days old), and its entry
 * keeps a mark, so the host's next push leaves them out. Returns runs
 * removed (dry_run: that would be), or -1. */
long long share_prune_objects(struct share_remote *r, const struct share_prune_opts *po, share_event_fn fn, void *arg,
                              sl_err *e);
/* What a central store holds for this host's hardware classes, to answer
 * from (recommend/compare --server): the server is asked for the runs of
 * those classes (or, all_classes, every run; of workload, unless NULL),
 * with the rows they hang off,
 * and they are put in a temporary database of the local schema, v->s (this
 * host's runs there are this host's, found by local's UUID for it). The
 * local store is only read. 0, or -1 with e (nothing to close);
 * share_view_close removes the database. */
struct share_view {
    store *s;
    long long runs;           /* how many the server sent */
    char shown[2048];         /* the URL, without a password */
    char dir[4096];
};
int share_view_open(store *local, const char *url, const struct share_opts *o, const char *workload,
                    bool all_classes, struct share_view *v, sl_err *e);
void share_view_close(struct share_view *v);
/* The class folders a pull reads: every one on the server (all), or
 * this host's disks' (share_host_classes). The count, or -1. */
int share_pull_classes(struct share_remote *r, bool all, char ***dirs, sl_err *e);
/* fn told msg about name, as a SHARE_NOTE (fn NULL: nobody). */
void share_note(share_event_fn fn, void *arg, const char *name, const char *msg);
/* Hardware classes of this host's disks, sorted, unique (free with
 * share_classes_free). Returns the count, or -1. */
int share_host_classes(char ***out, sl_err *e);

#endif
