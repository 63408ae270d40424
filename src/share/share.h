/* share — moving result databases between machines. A remote is a URL
 * served by one transport (file://, http(s):// WebDAV, s3://, sftp://, and a
 * fake one for tests), each an ops struct in its own file. Objects are named
 * "<hardware-class>/<host-uuid>.sluicedb" under the URL. A central store
 * (postgresql://) keeps runs one by one instead: its transport has row
 * operations (struct share_row_ops) in place of objects. */
#ifndef SLUICE_SHARE_H
#define SLUICE_SHARE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "core/err.h"
#include <jansson.h>

struct share_validator;   /* db/store_share.h */

#define SHARE_SUFFIX ".sluicedb"
/* What push uploads: the snapshot zstd-compressed. Pull takes both. */
#define SHARE_ZST_SUFFIX ".sluicedb.zst"
#define SHARE_ZSTD_LEVEL 3
/* Default cap on a downloaded or merged file (--max-size). */
#define SHARE_DEFAULT_MAX_BYTES (512LL << 20)

struct share_opts {
    const char *endpoint;     /* s3: https://host[:port] of any S3-compatible store */
    const char *region;       /* s3: signing region (else AWS_REGION, else us-east-1) */
    bool insecure;            /* TLS / SSH host keys not verified */
    int retries;              /* attempts after the first on transient errors */
    long retry_base_ms;       /* first backoff; doubles each time */
    long long max_bytes;      /* cap on a download */
    bool progress;            /* progress lines on stderr (a terminal) */
    const atomic_bool *cancel;/* set from another thread to stop: the transfer
                               * ends as a failure, the store as it was */
    /* A server that answers slowly, or sends a few bytes a second, must not
     * hold a pull (and the store's files) forever: the whole command has a
     * deadline, and a transfer slower than min_speed_bps for min_speed_s
     * fails (and is retried while time is left). 0: the defaults below. */
    long timeout_s;           /* --timeout */
    long min_speed_bps;       /* --min-speed BYTES[/SECONDS] */
    long min_speed_s;
    long long deadline_ms;    /* set by share_open: CLOCK_MONOTONIC ms when timeout_s runs out */
    int parallel;             /* downloads at once (get_many); 0: SHARE_DEFAULT_PARALLEL */
};
#define SHARE_DEFAULT_PARALLEL 8
#define SHARE_PARALLEL_MAX 32
#define SHARE_DEFAULT_TIMEOUT_S 1800
#define SHARE_DEFAULT_MIN_SPEED_BPS 1024
#define SHARE_DEFAULT_MIN_SPEED_S 30
/* What every push and pull starts from (the CLI and the UI): 4 retries from
 * 500 ms, the download cap, no progress lines. */
void share_opts_defaults(struct share_opts *o);

/* One entry of a one-level listing: a class folder or an object in it. */
struct share_entry {
    char name[256];
    bool is_dir;
    long long size_bytes;     /* -1 when the listing does not say */
};

struct share_list {
    struct share_entry *v;
    int n, cap;
};

struct share_remote;

/* One object of share_transport.get_many: key, local_path and v as get
 * takes them; rc as get returns it, err its message when -1. */
struct share_get {
    const char *key, *local_path;
    struct share_validator *v;
    int rc;
    sl_err err;
};

/* A transport: what a URL scheme can do. Keys are relative to the remote's
 * base ("class/uuid.sluicedb"); dirs are "" (the base) or "class". */
struct share_transport {
    const char *name;
    const char *const *schemes;       /* URL schemes it serves */
    bool uses_curl;
    /* Store the local file under key; the object appears whole or not at all
     * where the protocol allows (temporary name, then rename/MOVE). */
    int (*put)(struct share_remote *r, const char *key, const char *local_path, sl_err *e);
    /* One level of names under dir; a missing dir is an empty list. */
    int (*list)(struct share_remote *r, const char *dir, struct share_list *out, sl_err *e);
    /* Fetch key into local_path (created 0600), at most opts.max_bytes.
     * With v, a conditional GET: only if the file changed since v (its
     * ETag as If-None-Match, its Last-Modified as If-Modified-Since; the
     * file transport compares size, mtime and inode), and v then holds
     * what the server sent (both "" where it sends neither). 1: unchanged,
     * nothing fetched (v as it was); 0 fetched; -1 error. Transports with
     * no validators fetch, and clear v. */
    int (*get)(struct share_remote *r, const char *key, const char *local_path, struct share_validator *v,
               sl_err *e);
    /* get for n keys at once: up to opts.parallel in flight, over the
     * connections the remote keeps open; each outcome in its share_get.
     * NULL: share_get_all calls get for each in turn. */
    void (*get_many)(struct share_remote *r, struct share_get *g, int n);
    /* A conditional write, or NULL where the transport has none: store
     * local_path under key only if the object still holds the bytes whose
     * SHA-256 is expect_sha256 ("": only if there is no object). 0 stored,
     * 1 it changed meanwhile (nothing written), -1 error. */
    int (*put_if)(struct share_remote *r, const char *key, const char *local_path, const char *expect_sha256,
                  sl_err *e);
    /* Delete key; one already gone is no error. NULL where the transport
     * cannot delete here (fake): push then leaves stale objects. */
    int (*remove)(struct share_remote *r, const char *key, sl_err *e);
    /* Release what the transport keeps in r->priv beyond the block itself. */
    void (*close)(struct share_remote *r);
    /* A central store that keeps runs one by one instead of objects, or
     * NULL (then put, list and get are NULL: push and pull go through
     * share_push_rows and share_pull_rows). */
    const struct share_row_ops *rows;
};

/* A central store of rows (PostgreSQL, src/share/pg.c). Rows are JSON
 * objects as db/store_share_json.c makes them; a parent row travels as
 * {"table": T, "ident": UUID-or-hash, "row": {...}}, a run as its row.
 * Every call returns 0, or -1 with e naming the server (never a password). */
enum { SHARE_ROWS_CREATE = 1, SHARE_ROWS_MIGRATE = 2 };
typedef json_t *(*share_pick_fn)(json_t *runs, void *arg);
struct share_row_ops {
    /* Connect and check the server's sluice schema: one that is older or
     * newer than this sluice's is refused, naming both versions, unless
     * mode has SHARE_ROWS_MIGRATE (an older one is then upgraded); with
     * SHARE_ROWS_CREATE a server without one gets it. *have_schema says whether there is one
     * now; id receives the server's identity (kept with the pull cursor). */
    int (*open)(struct share_remote *r, int mode, bool *have_schema, char id[64], sl_err *e);
    /* How many runs the server holds for host, and the SHA-256 over their
     * UUIDs sorted bytewise, each followed by a newline (share_digest's). */
    int (*digest)(struct share_remote *r, const char *host, long long *runs, char sha256[65], sl_err *e);
    /* The UUIDs of host's runs the server holds (true) or pruned (false),
     * as the members of *set (a new JSON object; caller decrefs). The
     * digest covers both. */
    int (*known)(struct share_remote *r, const char *host, json_t **set, sl_err *e);
    /* One batch in one transaction: the parents (array of parent rows), then
     * the runs (array of run rows), each inserted unless the server has its
     * identity; all or nothing. A run without a hardware class (no disk
     * under it: tmpfs, a null probe) is filed under default_class. *added:
     * runs inserted. */
    int (*send)(struct share_remote *r, json_t *parents, json_t *runs, const char *default_class, long long *added,
                sl_err *e);
    /* At most limit runs of class cls (NULL: every class) not of host
     * skip_host (NULL: none), of workload (NULL: any), that the server
     * numbered after seq `after`, in
     * its order: *runs a new array, *last the number of the last one. */
    int (*fetch)(struct share_remote *r, const char *cls, const char *skip_host, const char *workload,
                 long long after, int limit, json_t **runs, long long *last, sl_err *e);
    /* The parent rows whose identity is one of the strings in idents (a JSON
     * array): *rows a new array of parent rows. */
    int (*parents)(struct share_remote *r, json_t *idents, json_t **rows, sl_err *e);
    /* Bind host's UUID on the server to key (share_host_key): the first
     * key given for a UUID is kept, and the server then takes runs under it,
     * and their removal, only from a connection that gave the same key.
     * -1 with e when the UUID is bound to another key (another machine). */
    int (*claim)(struct share_remote *r, const char *host, const char *key, sl_err *e);
    /* Retention of host's runs (claimed first), in one transaction: pick
     * is given them, an array of {"seq", "uuid", "started"}, and returns
     * the seqs to remove (a new array); the server remembers their UUIDs,
     * so a push does not send them again (known lists them with the value
     * false). dry_run: counted only. *pruned: how many. */
    int (*prune)(struct share_remote *r, const char *host, share_pick_fn pick, void *arg, bool dry_run,
                 long long *pruned, sl_err *e);
};

extern const struct share_transport share_file_transport, share_webdav_transport, share_s3_transport,
    share_sftp_transport, share_fake_transport, share_pg_transport;

struct share_remote {
    const struct share_transport *ops;
    char url[2048];           /* as given, trailing '/' removed */
    char shown[2048];         /* for messages: user:password@ removed */
    char base[2048];          /* transport-specific base (a path, an http URL, bucket+prefix) */
    struct share_opts opts;
    void *priv;               /* transport state, freed by share_close */
    void *pool;               /* curl transports: the connections kept open (src/share/curl.c) */
};

/* Pick the transport for url and prepare it. -1 with a message naming the
 * URL for an unknown scheme or a malformed URL. */
int share_open(const char *url, const struct share_opts *o, struct share_remote **out, sl_err *e);
void share_close(struct share_remote *r);
/* Milliseconds left before the remote's deadline (<= 0: passed). */
long long share_time_left_ms(const struct share_remote *r);

/* Every g[i] fetched (get_many where the transport has it, else get one
 * by one, stopping at a cancel: the rest then fail saying so). */
void share_get_all(struct share_remote *r, struct share_get *g, int n);

void share_list_add(struct share_list *l, const char *name, bool is_dir, long long size_bytes);
void share_list_free(struct share_list *l);
/* Whether l has a file (not a folder) called name. */
bool share_list_has(const struct share_list *l, const char *name);
/* The host part of an object's name: NAME.sluicedb.zst (what push
 * uploads) gives 2, NAME.sluicedb (older sluice) 1, anything else 0. */
int share_object_stem(const char *name, char *stem, size_t n);

/* Names that may be a path component of a key: [A-Za-z0-9._-], not "." "..",
 * no leading dot (temporary uploads start with one). */
bool share_name_valid(const char *name);
/* Whether the caller asked to stop (opts.cancel), and the error saying so. */
bool share_cancelled(const struct share_remote *r);
int share_fail_cancelled(sl_err *e, const char *what);
/* "user:pw@" dropped from a URL, for anything printed. */
void share_redact(const char *url, char *buf, size_t n);

/* A private 0700 directory under $TMPDIR (or /tmp) for downloads and
 * snapshots, named sluice-share.PID.XXXXXX; share_tmpdir_remove deletes it
 * and what is in it. */
int share_tmpdir(char *buf, size_t n, sl_err *e);
/* The same in the directory of the database at db_path, named
 * .sluice-share.PID.XXXXXX: what a pull or merge downloads and unpacks
 * lands on the database's own disk (never in memory, nor on a /tmp that may
 * be tmpfs), and SQLite attaches it from there. Swept like share_tmpdir's. */
int share_tmpdir_near(const char *db_path, char *buf, size_t n, sl_err *e);
void share_tmpdir_remove(const char *dir);
/* Remove the temporary directories of push and pull runs that were killed
 * (their pid no longer runs; ours only), under $TMPDIR and beside the
 * database at db_path (NULL: not there). Returns how many, the first's path
 * in first unless NULL. share_tmpdir and share_tmpdir_near sweep first; so
 * does `restore --crashed`. */
int share_tmpdir_sweep(const char *db_path, char *first, size_t fn);
/* Copy a local file into a private one, refusing more than max_bytes. */
int share_private_copy(const char *src, const char *dst, long long max_bytes, sl_err *e);
/* A file to check and merge (a download, or one the user gave), as a
 * private uncompressed database file dst (created 0600, never replaced;
 * the caller removes it): a zstd-compressed file is decompressed, a
 * plain one copied, both streamed through a small buffer, so no object is
 * ever held whole in memory. At most max_bytes are read and at most
 * max_bytes written: a small hostile object cannot inflate into gigabytes.
 * -1 with e naming label (what the user calls the file), else src; dst is
 * gone then. */
int share_stage(const char *src, const char *label, long long max_bytes, const char *dst, sl_err *e);
/* zstd (src/share/zst.c): whether bytes start a zstd frame; src compressed
 * into dst (created 0600, never replaced); the zstd stream on fd in
 * decompressed onto fd out, refused (naming label) when corrupt, truncated
 * or larger than max_bytes. */
bool share_zstd_magic(const unsigned char *b, size_t n);
int share_zstd_compress(const char *src, const char *dst, sl_err *e);
int share_zstd_decompress(int in, int out, long long max_bytes, const char *label, sl_err *e);
/* A random lowercase hex string of n-1 characters, for temporary names. */
void share_random_hex(char *buf, size_t n);

/* Fake transport controls for unit tests: objects live in memory. */
void share_fake_reset(void);
/* Fail the next n calls of an operation ("put", "list", "get") with msg. */
void share_fake_fail(const char *op, int n, const char *msg);
int share_fake_count(void);

#endif
