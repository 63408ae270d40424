/* sync — push (snapshot, upload per class), pull (list, fetch, check all,
 * then merge) and merge of a local file. */
#include "share/sync.h"
#include "share/manifest.h"
#include "core/device.h"
#include "core/sysfs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Room for a checked copy's path: share_tmpdir_near's, then /stage-XXXXXX. */
#define STAGED_PATH 4200

static void emit(share_event_fn fn, void *arg, int kind, const char *name, const struct share_report *rep,
                 const char *msg, long long size)
{
    if (!fn) return;
    struct share_event ev = { .kind = kind, .name = name, .report = rep, .msg = msg, .size_bytes = size };
    fn(&ev, arg);
}

void share_note(share_event_fn fn, void *arg, const char *name, const char *msg)
{
    emit(fn, arg, SHARE_NOTE, name, NULL, msg, -1);
}

/* A merge that failed after the file passed every check (a full disk, an
 * I/O error): its transaction is rolled back, files merged before it stay.
 * The message names the file as well as the local database. */
static int merge_failed(const char *file, sl_err *e)
{
    return sl_prefix(e, SL_EFAIL, "%s was not merged (none of its rows were kept)", file);
}

/* file is this store's own database (or its -wal or -shm): refused before
 * it is opened, since reading it with open() and closing it would drop the
 * POSIX locks SQLite holds on it in this process (store.c, check_path). */
static int refuse_own_database(store *s, const char *file, sl_err *e)
{
    struct stat f, mine;
    if (stat(file, &f) != 0) return 0; /* share_stage says why it cannot be read */
    static const char *const suffix[] = { "", "-wal", "-shm" };
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s%s", store_path(s), suffix[i]);
        if (stat(path, &mine) == 0 && mine.st_dev == f.st_dev && mine.st_ino == f.st_ino)
            return sl_fail(e, SL_EUSAGE, "%s is this database itself (%s): nothing to merge; give another file, or "
                           "another --db", file, store_path(s));
    }
    return 0;
}

int share_merge_file(store *s, const char *file, const char *label, long long max_bytes, struct share_report *rep,
                     sl_err *e)
{
    char dir[4096], staged[STAGED_PATH];
    if (refuse_own_database(s, file, e) < 0) return -1;
    if (share_tmpdir_near(store_path(s), dir, sizeof dir, e) < 0) return -1;
    snprintf(staged, sizeof staged, "%s/stage" SHARE_SUFFIX, dir);
    int rc = share_stage(file, label, max_bytes, staged, e);
    if (rc == 0) rc = store_share_check(s, staged, label ? label : file, e);
    if (rc == 0 && store_share_merge(s, staged, rep, e) < 0) rc = merge_failed(label ? label : file, e);
    share_tmpdir_remove(dir);
    store_share_merge_done(s);
    return rc;
}

/* Checked copies kept on disk between the check and the merge, up to this
 * much in all; past it, a file is unpacked (and a file the user gave,
 * checked) again to be merged. */
#define KEEP_STAGED_BYTES (256LL << 20)
#define CHECK_THREADS_MAX 4

/* Unpacking a file and its integrity_check are CPU work (a one-off perf
 * profile of a bench/merge run put reading and checking at 0.5 s of 2.2 s;
 * no script reruns that split), and files are independent: they are
 * checked on up to one thread per CPU. The store's connection is only read
 * while checking, and SQLite serialises calls on it (serialized threading
 * mode, checked). */
struct check_pool {
    store *s;
    char *const *files;
    int n;
    long long max_bytes;
    const char *dir;          /* share_tmpdir_near */
    char (*staged)[STAGED_PATH];  /* per file: its checked copy, or "" */
    sl_err *err;
    int *rc;            /* per file: 0 checked, -1 refused, 1 not reached */
    atomic_int next;
    atomic_bool stop;
    pthread_mutex_t lock;
    long long kept;
};

/* Whether a checked copy may stay on disk until its merge (within the
 * cap kept, which counts what the others keep). */
static bool keep_staged(pthread_mutex_t *lock, long long *kept, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return false;
    if (lock) pthread_mutex_lock(lock);
    bool keep = *kept + (long long)st.st_size <= KEEP_STAGED_BYTES;
    if (keep) *kept += (long long)st.st_size;
    if (lock) pthread_mutex_unlock(lock);
    return keep;
}

static void check_one(struct check_pool *p, int i)
{
    char *staged = p->staged[i];
    snprintf(staged, STAGED_PATH, "%s/%d" SHARE_SUFFIX, p->dir, i);
    int rc = share_stage(p->files[i], NULL, p->max_bytes, staged, &p->err[i]);
    if (rc == 0) rc = store_share_check(p->s, staged, p->files[i], &p->err[i]);
    if (rc == 0 && keep_staged(&p->lock, &p->kept, staged)) {
        p->rc[i] = 0;
        return;
    }
    if (rc == 0) unlink(staged);
    staged[0] = 0;
    p->rc[i] = rc;
    if (rc < 0) atomic_store(&p->stop, true);
}

static void *check_worker(void *arg)
{
    struct check_pool *p = arg;
    for (;;) {
        int i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n || atomic_load(&p->stop)) return NULL;
        check_one(p, i);
    }
}

static int check_threads(int n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int t = cpus < 1 ? 1 : cpus > CHECK_THREADS_MAX ? CHECK_THREADS_MAX : (int)cpus;
    if (!store_share_check_concurrent()) t = 1;
    return t < n ? t : n;
}

/* Check every file; the first refusal in the order given is the error.
 * Files are handed out in order, so every file before a refused one was
 * checked. */
static int check_all(struct check_pool *p, sl_err *e)
{
    pthread_t tid[CHECK_THREADS_MAX];
    int nt = check_threads(p->n), started = 0;
    for (int i = 1; i < nt; i++)
        if (pthread_create(&tid[started], NULL, check_worker, p) == 0) started++;
    check_worker(p);
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    for (int i = 0; i < p->n; i++)
        if (p->rc[i] < 0) {
            if (e) *e = p->err[i];
            return -1;
        }
    return 0;
}

int share_merge_files(store *s, char *const *files, int n, long long max_bytes, share_event_fn fn, void *arg,
                      sl_err *e)
{
    /* Every file is unpacked and checked before the first merge, as pull
     * does: one bad file leaves the store as it was. */
    for (int i = 0; i < n; i++)
        if (refuse_own_database(s, files[i], e) < 0) return -1;
    char dir[4096];
    if (share_tmpdir_near(store_path(s), dir, sizeof dir, e) < 0) return -1;
    struct check_pool p = { .s = s, .files = files, .n = n, .max_bytes = max_bytes, .dir = dir };
    p.staged = xcalloc((size_t)n, sizeof *p.staged);
    p.err = xcalloc((size_t)n, sizeof *p.err);
    p.rc = xcalloc((size_t)n, sizeof *p.rc);
    for (int i = 0; i < n; i++) p.rc[i] = 1;
    atomic_init(&p.next, 0);
    atomic_init(&p.stop, false);
    pthread_mutex_init(&p.lock, NULL);
    int rc = check_all(&p, e);
    for (int i = 0; i < n && rc == 0; i++) {
        /* Not kept: unpacked and checked again, so that what is merged is
         * exactly what passed even if the file changed since. */
        char *staged = p.staged[i];
        if (!staged[0]) {
            snprintf(staged, STAGED_PATH, "%s/%d" SHARE_SUFFIX, dir, i);
            rc = share_stage(files[i], NULL, max_bytes, staged, e);
            if (rc == 0) rc = store_share_check(s, staged, files[i], e);
        }
        struct share_report rep;
        if (rc == 0 && store_share_merge(s, staged, &rep, e) < 0) rc = merge_failed(files[i], e);
        if (staged[0]) unlink(staged);
        if (rc == 0) emit(fn, arg, SHARE_MERGED, files[i], &rep, NULL, -1);
    }
    share_tmpdir_remove(dir);
    pthread_mutex_destroy(&p.lock);
    free(p.staged);
    free(p.err);
    free(p.rc);
    store_share_merge_done(s);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Hardware classes of this host's disks (device_class), sorted, unique. */
int share_host_classes(char ***out, sl_err *e)
{
    struct device *v;
    int n = device_list(&v, e);
    if (n < 0) return -1;
    char **classes = xcalloc((size_t)n + 1, sizeof *classes);
    int k = 0;
    for (int i = 0; i < n; i++) {
        char c[256];
        device_class(&v[i], c, sizeof c);
        bool dup = false;
        for (int j = 0; j < k; j++) dup |= strcmp(classes[j], c) == 0;
        if (!dup && share_name_valid(c)) classes[k++] = xstrdup(c);
    }
    free(v);
    qsort(classes, (size_t)k, sizeof *classes, cmp_str);
    *out = classes;
    return k;
}

static bool is_stacked(const struct device *d)
{
    static const char *const virt[] = { "loop", "dm", "md", "zram", "virtual", "unknown" };
    for (size_t i = 0; i < sizeof virt / sizeof virt[0]; i++)
        if (strcmp(d->transport, virt[i]) == 0) return true;
    return false;
}

static int find_disk(const struct device *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0) return i;
    return -1;
}

/* The class of this host's main disk: the one holding /, else the first. */
static int share_main_class(char *buf, size_t n, sl_err *e)
{
    struct device *v;
    int nd = device_list(&v, e);
    if (nd < 0) return -1;
    if (nd == 0) {
        free(v);
        return sl_fail(e, SL_EFAIL, "no disks found: give the hardware class with --class");
    }
    /* The disk under / (through LVM or RAID to its first member), else the
     * first real disk. Under --root, / of this machine means nothing. */
    int pick = -1;
    char disk[64];
    sl_err ignore;
    if (sysfs_is_real_root() && device_for_path("/", disk, sizeof disk, &ignore) == 0) {
        pick = find_disk(v, nd, disk);
        if (pick >= 0 && v[pick].slaves[0]) {
            char first[64];
            sscanf(v[pick].slaves, "%63s", first);
            int member = find_disk(v, nd, first);
            if (member >= 0) pick = member;
        }
    }
    for (int i = 0; pick < 0 && i < nd; i++)
        if (!is_stacked(&v[i])) pick = i;
    device_class(&v[pick < 0 ? 0 : pick], buf, n);
    free(v);
    return 0;
}

/* The push decides this host's UUIDs up front (the one the store knows,
 * else a new one) and writes the host and its disks into the snapshot only.
 * The store learns them once an upload succeeded, with the same UUIDs, so a
 * push that fails (server down, refused, cancelled) changes nothing, first
 * push included, and the object already uploaded keeps its name next time. */
struct push_host {
    struct host_info h;
    struct device *dev;
    struct host_record rec;
};

static int push_host_read(store *s, struct push_host *p, sl_err *e)
{
    memset(p, 0, sizeof *p);
    if (host_read(&p->h, e) < 0) return -1;
    int n = device_list(&p->dev, e);
    if (n < 0) return -1;
    p->rec.h = &p->h;
    p->rec.dev = p->dev;
    p->rec.ndev = n;
    p->rec.dev_uuid = xcalloc((size_t)n + 1, sizeof *p->rec.dev_uuid);
    for (int i = 0; i < n; i++) store_uuid(p->rec.dev_uuid[i]);
    /* One time for the snapshot's host row and the store's: written a
     * second apart, they made the next push's object differ from this one. */
    store_now(p->rec.seen);
    int known = store_share_host_uuid(s, &p->h, p->rec.uuid, e);
    if (known == 1) store_uuid(p->rec.uuid);
    return known < 0 ? -1 : 0;
}

static void push_host_free(struct push_host *p)
{
    free(p->dev);
    free(p->rec.dev_uuid);
}

/* In the store, in one transaction. A host whose facts are unchanged is not
 * written at all. */
static int push_host_record(store *s, const struct push_host *p, int pushed, sl_err *e)
{
    int rc = store_begin(s, e);
    if (rc == 0) rc = store_host_record(s, &p->rec, e);
    if (rc == 0) rc = store_commit(s, e);
    else store_rollback(s);
    if (rc < 0 && e) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        sl_fail(e, SL_EFAIL, "%d object%s uploaded as host %s, but recording this host in %s failed: %s; the next "
                "push will upload under a new host UUID if this host is still unknown there",
                pushed, pushed == 1 ? "" : "s", p->rec.uuid, store_path(s), msg);
    }
    return rc;
}

/* The classes a snapshot is filed under: --class, else those of this host's
 * runs (as the snapshot has its disks now), else the main disk's. */
static int push_classes(const struct share_push_opts *po, const char *snap, const char *uuid, char ***out,
                        sl_err *e)
{
    int nc = 0;
    if (!po->hw_class) nc = store_share_snapshot_classes(snap, uuid, out, e);
    if (nc != 0) return nc;
    char c[256];
    if (po->hw_class) snprintf(c, sizeof c, "%s", po->hw_class);
    else if (share_main_class(c, sizeof c, e) < 0) return -1;
    *out = xcalloc(1, sizeof **out);
    (*out)[0] = xstrdup(c);
    return 1;
}

/* Where this database records the SHA-256 of the object it last pushed
 * under key (share_validators, as its ETag). */
static void pushed_key(const char *key, char *buf, size_t n) { snprintf(buf, n, "pushed:%s", key); }

/* Before replacing this host's object in cls: another machine may push
 * under the same host UUID (a cloned disk, machine-id or database). The
 * object there is ours when its entry says the same runs as x, or the
 * bytes this database last pushed; else it is fetched, and if it holds
 * runs of this host that this database lacks, nothing is uploaded: they
 * would be lost. 0 (go on), or -1 with e. */
static int guard_identity(store *s, struct share_remote *r, const char *cls, const struct share_manifest_entry *x,
                          const struct share_manifest_entry *there, const char *dir, sl_err *e)
{
    /* No entry (none yet, or an older sluice's object): nothing to compare. */
    if (!there || strcmp(there->runs_sha256, x->runs_sha256) == 0) return 0;
    char key[512], pk[600], obj[4200], staged[4300], label[2700];
    snprintf(key, sizeof key, "%s/%s", cls, x->object);
    pushed_key(key, pk, sizeof pk);
    struct share_validator last;
    if (store_share_validator_get(s, r->shown, pk, &last, e) < 0) return -1;
    share_validator_free(&last);
    if (strcmp(last.etag, there->sha256) == 0) return 0;
    snprintf(obj, sizeof obj, "%s/theirs" SHARE_ZST_SUFFIX, dir);
    snprintf(staged, sizeof staged, "%s/theirs" SHARE_SUFFIX, dir);
    snprintf(label, sizeof label, "%s/%s", r->shown, key);
    long long missing = 0;
    int rc = r->ops->get(r, key, obj, NULL, e);
    if (rc == 0) rc = share_stage(obj, label, r->opts.max_bytes, staged, e);
    if (rc == 0) rc = store_share_runs_missing(s, staged, x->host, label, &missing, e);
    unlink(obj);
    unlink(staged);
    if (rc < 0) return sl_prefix(e, SL_EFAIL, "push: checking %s before replacing it (nothing uploaded there)", key);
    if (missing > 0)
        return sl_fail(e, SL_EFAIL, "identity clash: %s holds %lld run%s of host %s that this database does not: "
                       "another machine pushes under this host's UUID (a cloned disk, machine-id or database). Nothing "
                       "was uploaded there, so they are kept. Give the clone a new machine-id and database; if this "
                       "machine's database was recreated and those runs are to go, delete the object from the server, "
                       "then push", label, missing, missing == 1 ? "" : "s", x->host);
    return 0;
}

/* This host's entry in each class (there[i], host "" when it has none),
 * and the runs a prune took out of its objects (the newest mark among
 * them) left out of the snapshot snap: they are not sent again, as a
 * central store's prune keeps them from coming back (share_prune). mark:
 * what the new entries carry on. 0, or -1 with e. */
static int leave_out_pruned(struct share_remote *r, const char *snap, const char *uuid, char **classes, int nc,
                            struct share_manifest_entry *there, const char *dir, char mark[128], share_event_fn fn,
                            void *arg, sl_err *e)
{
    char object[300];
    snprintf(object, sizeof object, "%s" SHARE_ZST_SUFFIX, uuid);
    for (int i = 0; i < nc; i++) {
        sl_err ignore;
        if (share_entry_fetch(r, classes[i], object, dir, &there[i], &ignore) != 1) there[i].host[0] = 0;
        else if (strcmp(there[i].pruned, mark) > 0) snprintf(mark, 128, "%s", there[i].pruned);
    }
    if (!mark[0]) return 0;
    struct share_trim t = { .mark = mark };
    struct share_trimmed got = { 0 };
    if (store_share_trim(snap, "the snapshot", uuid, &t, false, &got, e) < 0) return -1;
    if (got.removed) {
        char msg[300], upto[128];
        store_share_mark_run(mark, upto, sizeof upto);
        snprintf(msg, sizeof msg, "%lld run%s left out: pruned from the server (prune), up to %s", got.removed,
                 got.removed == 1 ? "" : "s", upto);
        emit(fn, arg, SHARE_NOTE, r->shown, NULL, msg, -1);
    }
    return 0;
}

/* The object this database just pushed under key: a later push knows it
 * as its own (guard_identity). Not recorded (disk full): the next push
 * looks at the object's runs instead, nothing worse. */
static void record_pushed(store *s, struct share_remote *r, const char *key, const char *sha256)
{
    char pk[600];
    pushed_key(key, pk, sizeof pk);
    struct share_validator v;
    sl_err ignore;
    /* The same bytes again: nothing written (a push that changes nothing
     * leaves the database as it was). */
    if (store_share_validator_get(s, r->shown, pk, &v, &ignore) < 0) return;
    share_validator_free(&v);
    if (strcmp(v.etag, sha256) == 0) return;
    snprintf(v.etag, sizeof v.etag, "%s", sha256);
    v.last_modified[0] = 0;
    if (store_share_validator_set(s, r->shown, pk, &v, &ignore) < 0) return;
}

/* This host's object in a class it no longer pushes to (its disk moved,
 * its runs there pruned, an earlier --class): removed with its entry, if it
 * is still the object this database pushed there (else another machine
 * wrote it since: left, said). Best effort: what fails is said, and the
 * push stands. */
static void retire_one(store *s, struct share_remote *r, const char *key, const char *dir, share_event_fn fn,
                       void *arg)
{
    char cls[256], msg[700], pk[600], entry[600];
    const char *object = strchr(key, '/') + 1;
    snprintf(cls, sizeof cls, "%.*s", (int)(object - key - 1), key);
    pushed_key(key, pk, sizeof pk);
    struct share_validator last;
    struct share_manifest_entry there;
    sl_err err = { 0 };
    if (store_share_validator_get(s, r->shown, pk, &last, &err) < 0) goto said;
    share_validator_free(&last);
    int have = share_entry_fetch(r, cls, object, dir, &there, &err);
    if (have == 1 && strcmp(there.sha256, last.etag) != 0) {
        snprintf(msg, sizeof msg, "left: this host's object of class %s, which it no longer pushes to, was written "
                 "since by another machine under this host's UUID (a clone?)", cls);
        emit(fn, arg, SHARE_NOTE, key, NULL, msg, -1);
        return;
    }
    snprintf(entry, sizeof entry, "%s" SHARE_ENTRY_SUFFIX, key);
    if (have == 1 && (r->ops->remove(r, key, &err) < 0 || r->ops->remove(r, entry, &err) < 0 ||
                      share_manifest_forget(r, cls, object, dir, &err) < 0)) goto said;
    if (store_share_validator_set(s, r->shown, pk, NULL, &err) < 0) goto said;
    if (have == 1)
        emit(fn, arg, SHARE_NOTE, key, NULL, "removed: this host's object of a class it no longer pushes to", -1);
    return;
said:
    snprintf(msg, sizeof msg, "left (removing this host's object of a class it no longer pushes to failed: %s)",
             err.msg);
    emit(fn, arg, SHARE_NOTE, key, NULL, msg, -1);
}

static void retire_stale(store *s, struct share_remote *r, char **classes, int nc, const char *object,
                         const char *dir, share_event_fn fn, void *arg)
{
    char **keys;
    sl_err ignore;
    int n = store_share_validator_keys(s, r->shown, "pushed:", &keys, &ignore);
    for (int i = 0; i < n; i++) {
        const char *key = keys[i] + strlen("pushed:"), *slash = strchr(key, '/');
        bool current = !slash || strcmp(slash + 1, object) != 0;
        for (int c = 0; c < nc && !current; c++)
            current = strlen(classes[c]) == (size_t)(slash - key) && strncmp(key, classes[c], (size_t)(slash - key)) == 0;
        if (current) continue;
        if (!r->ops->remove) {
            emit(fn, arg, SHARE_NOTE, key, NULL, "left: this host no longer pushes to its class, and this transport "
                 "cannot delete it here", -1);
            continue;
        }
        retire_one(s, r, key, dir, fn, arg);
    }
    if (n >= 0) share_classes_free(keys, n);
}

int share_push(store *s, struct share_remote *r, const struct share_push_opts *po, share_event_fn fn, void *arg,
               sl_err *e)
{
    if (po->hw_class && !share_name_valid(po->hw_class))
        return sl_fail(e, SL_EUSAGE, "--class %s: a class is letters, digits, '.', '_' and '-'", po->hw_class);
    struct push_host ph;
    if (push_host_read(s, &ph, e) < 0) {
        push_host_free(&ph);
        return -1;
    }
    const char *uuid = ph.rec.uuid;
    char dir[4096], snap[4200], packed[4300];
    if (share_tmpdir(dir, sizeof dir, e) < 0) {
        push_host_free(&ph);
        return -1;
    }
    snprintf(snap, sizeof snap, "%s/%s" SHARE_SUFFIX, dir, uuid);
    char **classes = NULL;
    int nc = 0;
    snprintf(packed, sizeof packed, "%s.zst", snap);
    int rc = store_share_export(s, snap, po->mine ? uuid : NULL, &ph.rec, e);
    int pushed = 0;
    if (rc == 0 && r->ops->rows) {
        /* A central store: the runs it lacks, not a file. */
        char main_class[256];
        if (po->hw_class) snprintf(main_class, sizeof main_class, "%s", po->hw_class);
        else if (share_main_class(main_class, sizeof main_class, e) < 0) rc = -1;
        char key[65];
        share_host_key(&ph.h, uuid, key);
        if (rc == 0)
            rc = share_push_rows(r, snap, uuid, key, po->hw_class, main_class, po->migrate, fn, arg, e) < 0 ? -1 : 0;
        pushed = rc == 0;
        nc = 0;
    }
    else if (rc == 0 && (nc = push_classes(po, snap, uuid, &classes, e)) < 0) rc = -1;
    /* What the server holds of this host now: its entry in each class. */
    struct share_manifest_entry *there = xcalloc((size_t)nc + 1, sizeof *there);
    char mark[128] = "";
    if (rc == 0 && nc) rc = leave_out_pruned(r, snap, uuid, classes, nc, there, dir, mark, fn, arg, e);
    if (rc == 0 && nc) rc = share_zstd_compress(snap, packed, e);
    struct share_manifest_entry x;
    if (rc == 0 && nc) rc = share_manifest_entry_for(snap, packed, uuid, &x, e);
    if (rc == 0 && nc) snprintf(x.pruned, sizeof x.pruned, "%s", mark);
    for (int i = 0; rc == 0 && i < nc; i++) {
        char key[512];
        snprintf(key, sizeof key, "%s/%s" SHARE_ZST_SUFFIX, classes[i], uuid);
        rc = share_cancelled(r) ? share_fail_cancelled(e, "push")
                                : guard_identity(s, r, classes[i], &x, there[i].host[0] ? &there[i] : NULL, dir, e);
        if (rc == 0) rc = r->ops->put(r, key, packed, e);
        if (rc == 0) {
            emit(fn, arg, SHARE_PUSHED, key, NULL, NULL, -1);
            record_pushed(s, r, key, x.sha256);
            pushed++;
            /* Then its entry in the class manifest: a pull between the two
             * sees the new object under the old entry and fetches it. */
            rc = share_manifest_publish(r, classes[i], &x, dir, e);
        }
    }
    if (rc == 0 && nc > 0) retire_stale(s, r, classes, nc, x.object, dir, fn, arg);
    free(there);
    share_tmpdir_remove(dir);
    share_classes_free(classes, nc > 0 ? nc : 0);
    /* An object carries this host's UUID now: the store keeps it, even if a
     * later class's upload failed (that failure stays the error). */
    if (pushed > 0) {
        sl_err re;
        if (push_host_record(s, &ph, pushed, &re) < 0 && rc == 0) {
            if (e) *e = re;
            rc = -1;
        }
    }
    push_host_free(&ph);
    return rc < 0 ? -1 : pushed;
}

struct candidate {
    char key[512];
    char path[4300];          /* the download */
    bool ok;
    bool merged;
    bool staged;              /* its checked copy is on disk (staged_path) */
    struct share_validator v; /* what the server said of it (recorded once merged) */
    bool has_entry;           /* the manifest or OBJECT.json describes it: x */
    bool entry_listed;        /* OBJECT.json is there */
    char cls[256];
    struct share_manifest_entry x;
};

/* What a pull will fetch, and what it found it need not. */
struct pull_plan {
    struct candidate *c;
    int n, cap;
    int unchanged;            /* objects whose runs this store holds already */
    int not_modified;         /* objects the server said are as the last pull took them (304) */
    int classes_unchanged;    /* class manifests as the last pull took them (304) */
    store *s;
    /* Manifests fetched whole, with their validators and bytes: recorded
     * only when the whole pull succeeds (a refused object must be looked
     * at again next time, and a failed pull changes nothing). */
    struct kept_manifest { char key[512]; struct share_validator v; } *kept;
    int nkept;
    int lies;                 /* objects refused for not being what their manifest says */
    const struct share_digest *dig;   /* this store's hosts, sorted */
    int ndig;
    const char *my_uuid;
    const char *tmpdir;
};

/* Whether the listing also has NAME.sluicedb.zst for this NAME.sluicedb:
 * the host pushed again with a newer sluice, its old object is stale. */
static bool has_newer_object(const struct share_list *l, const char *stem)
{
    char want[300];
    snprintf(want, sizeof want, "%s" SHARE_ZST_SUFFIX, stem);
    return share_list_has(l, want);
}

/* The manifest's bytes with its validators, for the end of the pull
 * (record_manifests), so that a 304 for it next time stands for them. */
static void keep_manifest(struct pull_plan *p, const char *key, const char *path, struct share_validator *v)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || st.st_size > (64LL << 20) || !(v->etag[0] || v->last_modified[0])) {
        if (f) fclose(f);
        return;
    }
    p->kept = xrealloc(p->kept, sizeof *p->kept * (size_t)(p->nkept + 1));
    struct kept_manifest *k = &p->kept[p->nkept++];
    snprintf(k->key, sizeof k->key, "%s", key);
    k->v = *v;
    k->v.body = xmalloc((size_t)st.st_size + 1);
    k->v.body_len = fread(k->v.body, 1, (size_t)st.st_size, f);
    k->v.body[k->v.body_len] = 0;
    fclose(f);
}

/* After a pull that merged or refused nothing it should not have. Not
 * recorded (disk full, say): the next pull fetches the manifests whole,
 * nothing worse. */
static void record_manifests(struct pull_plan *p, struct share_remote *r, bool ok)
{
    for (int i = 0; i < p->nkept; i++) {
        sl_err ignore;
        if (ok && store_share_validator_set(p->s, r->shown, p->kept[i].key, &p->kept[i].v, &ignore) < 0) ok = false;
        share_validator_free(&p->kept[i].v);
    }
    free(p->kept);
}

/* The class manifest, read from path (NULL, with a note, when it does not
 * read: every object of the class is then fetched). */
static json_t *manifest_at(const char *path, const char *key, struct share_remote *r, share_event_fn fn, void *arg)
{
    char label[2700];
    snprintf(label, sizeof label, "%s/%s", r->shown, key);
    sl_err bad;
    json_t *m = share_manifest_read(path, label, &bad);
    if (!m) emit(fn, arg, SHARE_NOTE, key, NULL, "unreadable, so every object of the class is fetched", -1);
    return m;
}

/* The class manifest when the last pull kept it: asked for only if it
 * changed since (conditional GET). *unchanged: the server said it did not
 * (304), and the kept bytes are the manifest. NULL when there is nothing
 * kept, the manifest changed but does not read, or the request failed (the
 * listing that follows says why, if the server is really gone). */
static json_t *kept_manifest(struct share_remote *r, const char *cls, struct pull_plan *p, share_event_fn fn,
                             void *arg, bool *unchanged)
{
    char key[512], path[4200];
    snprintf(key, sizeof key, "%s/" SHARE_MANIFEST, cls);
    snprintf(path, sizeof path, "%s/manifest-%s.json", p->tmpdir, cls);
    *unchanged = false;
    struct share_validator v;
    sl_err ignore;
    json_t *m = NULL;
    if (store_share_validator_get(p->s, r->shown, key, &v, &ignore) < 0 || !v.body ||
        !(v.etag[0] || v.last_modified[0])) {
        share_validator_free(&v);
        return NULL;
    }
    int g = r->ops->get(r, key, path, &v, &ignore);
    if (g == 1) {
        /* the kept body, written afresh into our private directory (x: never
         * through a file that is already there) */
        unlink(path);
        FILE *f = fopen(path, "wbx");
        bool ok = f && fwrite(v.body, 1, v.body_len, f) == v.body_len;
        if (f && fclose(f) != 0) ok = false;
        m = ok ? manifest_at(path, key, r, fn, arg) : NULL;
        *unchanged = m != NULL;
    } else if (g == 0) {
        m = manifest_at(path, key, r, fn, arg);
        if (m) keep_manifest(p, key, path, &v);
    }
    unlink(path);
    share_validator_free(&v);
    return m;
}

/* The class manifest, when the listing has one and it reads; NULL else
 * (every object is then fetched). Its validators and bytes are kept for
 * the next pull's kept_manifest. */
static json_t *class_manifest(struct share_remote *r, const char *cls, const struct share_list *l,
                              struct pull_plan *p, share_event_fn fn, void *arg, sl_err *e, bool *failed)
{
    *failed = false;
    if (!share_list_has(l, SHARE_MANIFEST)) return NULL;
    char key[512], path[4200];
    snprintf(key, sizeof key, "%s/" SHARE_MANIFEST, cls);
    snprintf(path, sizeof path, "%s/manifest-%s.json", p->tmpdir, cls);
    struct share_validator v = { 0 };
    if (r->ops->get(r, key, path, &v, e) < 0) {
        *failed = true;
        return NULL;
    }
    json_t *m = manifest_at(path, key, r, fn, arg);
    if (m) keep_manifest(p, key, path, &v);
    unlink(path);
    share_validator_free(&v);
    return m;
}

/* The objects an unchanged manifest names, as a listing would show them. */
static void list_from_manifest(const json_t *m, struct share_list *l)
{
    const char *name;
    json_t *o;
    json_object_foreach(json_object_get(m, "objects"), name, o) {
        json_t *size = json_object_get(o, "size");
        share_list_add(l, name, false, json_is_integer(size) ? json_integer_value(size) : -1);
    }
}

/* An object this store holds every run of already, by its manifest entry:
 * the host's own runs only, the host known here, the same run digest. */
static bool up_to_date(const struct pull_plan *p, const struct candidate *c, const char *stem)
{
    if (!c->has_entry || !c->x.own_only || strcmp(c->x.host, stem) != 0) return false;
    const struct share_digest *d = share_digest_find(p->dig, p->ndig, c->x.host);
    return d && d->known && d->runs == c->x.runs && strcmp(d->runs_sha256, c->x.runs_sha256) == 0;
}

/* The key under which a merged object's SHA-256 (its manifest entry's,
 * checked against the download) is recorded. */
static void merged_key(const char *key, char *buf, size_t n) { snprintf(buf, n, "merged:%s", key); }

/* An object this store merged before as its entry describes it now (the
 * same SHA-256): nothing to fetch, on any transport. Without it, an object
 * whose runs are fewer than this store holds of its host (after a prune)
 * was fetched by every pull where the server gives no validators (SFTP). */
static bool merged_as_is(const struct pull_plan *p, struct share_remote *r, const struct candidate *c)
{
    if (!c->has_entry || !c->x.sha256[0]) return false;
    char key[600];
    merged_key(c->key, key, sizeof key);
    struct share_validator v;
    sl_err ignore;
    bool same = store_share_validator_get(p->s, r->shown, key, &v, &ignore) == 0 && strcmp(v.etag, c->x.sha256) == 0;
    share_validator_free(&v);
    return same;
}

static void refuse_lie(struct pull_plan *p, const char *key, const char *msg, share_event_fn fn, void *arg)
{
    emit(fn, arg, SHARE_REFUSED, key, NULL, msg, -1);
    p->lies++;
}

/* One class folder: its objects into the plan. */
static int plan_class(struct share_remote *r, const char *cls, struct pull_plan *p, share_event_fn fn, void *arg,
                      sl_err *e)
{
    struct share_list l = { 0 };
    bool failed = false, unchanged;
    /* The manifest as the last pull took it (304): its objects are the
     * class, and the listing (the biggest answer by far) is not asked for.
     * An object pushed but never entered in the manifest (its pusher
     * killed in between) waits for the next change of the manifest. */
    json_t *m = kept_manifest(r, cls, p, fn, arg, &unchanged);
    if (unchanged) {
        list_from_manifest(m, &l);
        p->classes_unchanged++;
    } else if (r->ops->list(r, cls, &l, e) < 0) {
        json_decref(m);
        return -1;
    } else if (!m) {
        m = class_manifest(r, cls, &l, p, fn, arg, e, &failed);
    }
    for (int i = 0; !failed && i < l.n; i++) {
        const char *name = l.v[i].name;
        char stem[256];
        int kind = l.v[i].is_dir || !share_name_valid(name) ? 0 : share_object_stem(name, stem, sizeof stem);
        if (kind == 0 || (p->my_uuid && strcmp(stem, p->my_uuid) == 0)) continue;
        if (kind == 1 && has_newer_object(&l, stem)) continue;
        p->c = xgrow(p->c, p->n, &p->cap, sizeof *p->c, 8);
        struct candidate *c = &p->c[p->n];
        snprintf(c->key, sizeof c->key, "%s/%s", cls, name);
        snprintf(c->cls, sizeof c->cls, "%s", cls);
        char json_name[300];
        snprintf(json_name, sizeof json_name, "%s" SHARE_ENTRY_SUFFIX, name);
        c->entry_listed = share_list_has(&l, json_name);
        long long size = l.v[i].size_bytes;
        bool described = m && share_manifest_entry(m, name, &c->x);
        c->has_entry = described && share_entry_fits(&c->x, size);
        /* Not in the manifest (a concurrent push lost it) or out of date:
         * the object's own entry, a few hundred bytes, saves fetching it. */
        if (!c->has_entry && c->entry_listed) {
            struct share_manifest_entry own;
            int rc = share_entry_fetch(r, cls, name, p->tmpdir, &own, e);
            if (rc < 0) {
                failed = true;
                break;
            }
            if (rc == 1) {
                described = true;
                c->x = own;
                c->has_entry = share_entry_fits(&own, size);
            }
        }
        /* Neither entry gives the size the server lists: not what they say. */
        if (described && !c->has_entry) {
            char lie[300];
            snprintf(lie, sizeof lie, "the manifest says %lld bytes, the server lists %lld: altered, or pushed again "
                     "while this pull ran (pull again)", c->x.size, size);
            refuse_lie(p, c->key, lie, fn, arg);
            continue;
        }
        if (up_to_date(p, c, stem)) p->unchanged++;
        else if (merged_as_is(p, r, c)) p->not_modified++;
        else p->n++;
    }
    /* Entries naming an object the server does not have. */
    const char *name;
    json_t *v;
    json_object_foreach(json_object_get(m, "objects"), name, v) {
        char stem[256], key[512];
        if (!share_name_valid(name) || !share_object_stem(name, stem, sizeof stem) || share_list_has(&l, name)) continue;
        if (p->my_uuid && strcmp(stem, p->my_uuid) == 0) continue;
        snprintf(key, sizeof key, "%s/%s", cls, name);
        refuse_lie(p, key, "the manifest names it, but the server has no such object", fn, arg);
    }
    json_decref(m);
    share_list_free(&l);
    return failed ? -1 : 0;
}

int share_pull_classes(struct share_remote *r, bool all, char ***dirs, sl_err *e)
{
    if (!all) return share_host_classes(dirs, e);
    struct share_list top = { 0 };
    if (r->ops->list(r, "", &top, e) < 0) return -1;
    *dirs = xcalloc((size_t)top.n + 1, sizeof **dirs);
    int nd = 0;
    for (int i = 0; i < top.n; i++)
        if (top.v[i].is_dir && share_name_valid(top.v[i].name)) (*dirs)[nd++] = xstrdup(top.v[i].name);
    share_list_free(&top);
    return nd;
}

static int plan_pull(struct share_remote *r, const struct share_pull_opts *po, struct pull_plan *p,
                     share_event_fn fn, void *arg, sl_err *e)
{
    char **dirs = NULL;
    int nd = share_pull_classes(r, po->all_classes, &dirs, e), rc = nd < 0 ? -1 : 0;
    for (int d = 0; d < nd && rc == 0; d++) rc = plan_class(r, dirs[d], p, fn, arg, e);
    share_classes_free(dirs, nd > 0 ? nd : 0);
    return rc;
}

static const char *mismatch(const struct candidate *c, char *msg, size_t n)
{
    struct stat st;
    char sha[65] = "";
    sl_err ignore;
    if (stat(c->path, &st) != 0 || share_sha256_file(c->path, sha, &ignore) < 0) return NULL;
    if ((long long)st.st_size != c->x.size)
        snprintf(msg, n, "the manifest says %lld bytes, the object has %lld: altered, or pushed again while this "
                 "pull ran (pull again)", c->x.size, (long long)st.st_size);
    else if (strcmp(sha, c->x.sha256) != 0)
        snprintf(msg, n, "the manifest says sha256 %.16s..., the object has %.16s...: altered, or pushed again while "
                 "this pull ran (pull again)", c->x.sha256, sha);
    else return NULL;
    return msg;
}

/* A download that is not what its manifest entry says: the reason, or NULL.
 * Before refusing, the object's own entry is read (the manifest may have
 * missed the host's latest push). */
static const char *not_as_described(struct share_remote *r, const struct pull_plan *p, struct candidate *c, char *msg,
                                    size_t n)
{
    if (!c->has_entry) return NULL;
    const char *why = mismatch(c, msg, n);
    struct share_manifest_entry own;
    sl_err ignore;
    if (why && c->entry_listed && share_entry_fetch(r, c->cls, c->x.object, p->tmpdir, &own, &ignore) == 1 &&
        strcmp(own.sha256, c->x.sha256) != 0) {
        c->x = own;
        why = mismatch(c, msg, n);
    }
    return why;
}

/* Where a candidate's checked copy goes: beside its download. */
static void staged_path(const struct candidate *c, char out[STAGED_PATH])
{
    snprintf(out, STAGED_PATH, "%.*s.db", STAGED_PATH - 8, c->path);
}

/* Download every planned object at once (several in flight over kept
 * connections, where the transport can), each asked for only if it changed
 * since a pull merged it: per object, get's result in rc and its error in
 * err. */
static void download_all(store *s, struct share_remote *r, struct pull_plan *p, int *rc, sl_err *err)
{
    struct share_get *g = xcalloc((size_t)p->n + 1, sizeof *g);
    int *at = xcalloc((size_t)p->n + 1, sizeof *at), ng = 0;
    for (int i = 0; i < p->n; i++) {
        struct candidate *c = &p->c[i];
        snprintf(c->path, sizeof c->path, "%s/%d" SHARE_SUFFIX, p->tmpdir, i);
        rc[i] = store_share_validator_get(s, r->shown, c->key, &c->v, &err[i]);
        if (rc[i] < 0) continue;
        g[ng] = (struct share_get){ .key = c->key, .local_path = c->path, .v = &c->v };
        at[ng++] = i;
    }
    share_get_all(r, g, ng);
    for (int k = 0; k < ng; k++) {
        rc[at[k]] = g[k].rc;
        if (g[k].rc < 0) err[at[k]] = g[k].err;
    }
    for (int i = 0; i < p->n; i++) share_validator_free(&p->c[i].v);
    free(g);
    free(at);
}

/* Objects refused for not being what their manifest says (named as they
 * were found), without --keep-going: the pull stops before the first merge,
 * as for any other refusal. -1 with e. */
static int stop_on_lies(const struct pull_plan *p, sl_err *e)
{
    return sl_fail(e, SL_EFAIL, "%d object%s refused (see above): nothing merged, this database is as it was; pull "
                   "again (an object pushed while this pull ran), or add --keep-going to merge the others", p->lies,
                   p->lies == 1 ? "" : "s");
}

/* Fetch and check every planned object: 0, or -1 with e when one failed a
 * check and keep_going is off (the pull then merges nothing). Objects that
 * are not what their manifest says are refused and named: with keep_going
 * the rest is fetched, without it the pull stops there. */
static int fetch_all(store *s, struct share_remote *r, const struct share_pull_opts *po, struct pull_plan *p,
                     share_event_fn fn, void *arg, int *bad, sl_err *e)
{
    sl_err first = { 0 };
    long long kept = 0;
    int *got = xcalloc((size_t)p->n + 1, sizeof *got);
    sl_err *gerr = xcalloc((size_t)p->n + 1, sizeof *gerr);
    download_all(s, r, p, got, gerr);
    for (int i = 0; i < p->n; i++) {
        struct candidate *c = &p->c[i];
        sl_err fe = gerr[i];
        char label[2600], lie[300];
        snprintf(label, sizeof label, "%s/%s", r->shown, c->key);
        int rc = got[i];
        if (rc == 1) {
            p->not_modified++;
            continue;
        }
        if (rc == 0 && not_as_described(r, p, c, lie, sizeof lie)) {
            refuse_lie(p, c->key, lie, fn, arg);
            if (!po->keep_going) break;
            continue;
        }
        char staged[STAGED_PATH];
        staged_path(c, staged);
        if (rc == 0) rc = share_stage(c->path, label, r->opts.max_bytes, staged, &fe);
        if (rc == 0) rc = store_share_check(s, staged, label, &fe);
        if (rc == 0) c->staged = keep_staged(NULL, &kept, staged);
        if (rc == 0 && !c->staged) unlink(staged);
        c->ok = rc == 0;
        if (rc == 0) {
            emit(fn, arg, SHARE_FETCHED, c->key, NULL, NULL, -1);
            continue;
        }
        /* Without --keep-going the first refusal is the command's error. */
        if (po->keep_going) emit(fn, arg, SHARE_REFUSED, c->key, NULL, fe.msg, -1);
        if (!(*bad)++) first = fe;
        if (!po->keep_going || share_cancelled(r)) break;
    }
    free(got);
    free(gerr);
    if (*bad && !po->keep_going) {
        *e = first;
        return -1;
    }
    return p->lies && !po->keep_going ? stop_on_lies(p, e) : 0;
}

/* What the server said of each merged object, so that the next pull asks
 * for it only if it changed: all in one transaction after the merges (one
 * commit per object doubled a pull's syncs). Not recorded (disk full, a
 * kill before it): those objects are fetched again next time and merge
 * nothing new. */
static void record_merged(store *s, struct share_remote *r, const struct pull_plan *p)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) n += p->c[i].merged;
    sl_err ignore;
    if (!n || store_begin(s, &ignore) < 0) return;
    for (int i = 0; i < p->n; i++) {
        const struct candidate *c = &p->c[i];
        if (!c->merged) continue;
        /* and, when its entry described it (the download's SHA-256 was
         * checked against it), that it was merged as such */
        char key[600];
        merged_key(c->key, key, sizeof key);
        struct share_validator sha = { 0 };
        snprintf(sha.etag, sizeof sha.etag, "%s", c->x.sha256);
        if (store_share_validator_set(s, r->shown, c->key, &c->v, &ignore) < 0 ||
            (c->has_entry && store_share_validator_set(s, r->shown, key, &sha, &ignore) < 0)) {
            store_rollback(s);
            return;
        }
    }
    if (store_commit(s, &ignore) < 0) store_rollback(s);
}

static void note_unchanged(struct share_remote *r, const struct pull_plan *p, share_event_fn fn, void *arg)
{
    char msg[200];
    if (p->unchanged) {
        snprintf(msg, sizeof msg, "nothing new in %d unchanged object%s: this database holds their runs (the "
                 "manifest's digests match)", p->unchanged, p->unchanged == 1 ? "" : "s");
        emit(fn, arg, SHARE_NOTE, r->shown, NULL, msg, -1);
    }
    if (p->not_modified) {
        snprintf(msg, sizeof msg, "%d object%s not fetched: unchanged since a pull merged %s (the server answered "
                 "304 or the same file)", p->not_modified, p->not_modified == 1 ? "" : "s", p->not_modified == 1 ? "it" : "them");
        emit(fn, arg, SHARE_NOTE, r->shown, NULL, msg, -1);
    }
}

long long share_pull(store *s, struct share_remote *r, const struct share_pull_opts *po, share_event_fn fn, void *arg,
                     sl_err *e)
{
    if (r->ops->rows) return share_pull_rows(s, r, po, fn, arg, e);
    struct host_info h;
    char uuid[37];
    if (host_read(&h, e) < 0) return -1;
    int known = store_share_host_uuid(s, &h, uuid, e);
    if (known < 0) return -1;
    struct share_digest *dig;
    int ndig = store_share_digests(s, &dig, e);
    if (ndig < 0) return -1;
    char dir[4096];
    if (share_tmpdir_near(store_path(s), dir, sizeof dir, e) < 0) {
        free(dig);
        return -1;
    }
    struct pull_plan p = { .dig = dig, .ndig = ndig, .my_uuid = known == 0 ? uuid : NULL, .tmpdir = dir, .s = s };
    int rc = plan_pull(r, po, &p, fn, arg, e);
    if (rc == 0 && p.n == 0 && !p.unchanged && !p.lies && !p.classes_unchanged)
        emit(fn, arg, SHARE_NOTE, r->shown, NULL, "nothing to pull for this host's hardware classes", -1);
    /* Everything is fetched and checked before the first merge: a bad object
     * stops the pull with the store as it was. */
    int bad = 0;
    if (rc == 0 && p.lies && !po->keep_going) rc = stop_on_lies(&p, e);
    if (rc == 0) rc = fetch_all(s, r, po, &p, fn, arg, &bad, e);
    /* A cancel stops every merge, --keep-going or not. */
    if (rc == 0 && share_cancelled(r)) rc = share_fail_cancelled(e, "pull");
    long long added = 0;
    for (int i = 0; rc == 0 && i < p.n; i++) {
        struct candidate *c = &p.c[i];
        if (!c->ok) continue;
        /* Not kept: unpacked again from our private download (checked
         * copies are kept on disk only up to a cap). */
        struct share_report rep;
        char staged[STAGED_PATH];
        staged_path(c, staged);
        if (!c->staged) rc = share_stage(c->path, c->key, r->opts.max_bytes, staged, e);
        if (rc == 0 && store_share_merge(s, staged, &rep, e) < 0) rc = merge_failed(c->key, e);
        unlink(staged);
        if (rc == 0) {
            added += share_report_added(&rep);
            emit(fn, arg, SHARE_MERGED, c->key, &rep, NULL, -1);
            c->merged = true;
        }
    }
    record_merged(s, r, &p);
    if (p.n) store_share_merge_done(s);
    if (rc == 0) note_unchanged(r, &p, fn, arg);
    share_tmpdir_remove(dir);
    free(p.c);
    free(dig);
    int refused = bad + p.lies;
    record_manifests(&p, r, rc == 0 && !refused);
    if (rc == 0 && refused)
        return sl_fail(e, SL_EFAIL, "%d object%s refused (see above); the others were merged", refused,
                       refused == 1 ? "" : "s");
    return rc < 0 ? -1 : added;
}
