/* sync — push (snapshot, upload per class), pull (list, fetch, check all,
 * then merge) and merge of a local file. */
#include "sync.h"
#include "device.h"
#include "sysfs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void emit(share_event_fn fn, void *arg, int kind, const char *name, const struct share_report *rep,
                 const char *msg, long long size)
{
    if (!fn) return;
    struct share_event ev = { .kind = kind, .name = name, .report = rep, .msg = msg, .size_bytes = size };
    fn(&ev, arg);
}

/* A merge that failed after the file passed every check (a full disk, an
 * I/O error): its transaction is rolled back, files merged before it stay.
 * The message names the file as well as the local database. */
static int merge_failed(const char *file, sl_err *e)
{
    return sl_prefix(e, SL_EFAIL, "%s was not merged (none of its rows were kept)", file);
}

int share_merge_file(store *s, const char *file, long long max_bytes, struct share_report *rep, sl_err *e)
{
    struct share_image img;
    if (share_image_read(file, NULL, max_bytes, &img, e) < 0) return -1;
    int rc = store_share_check(s, &img, file, e);
    if (rc == 0 && store_share_merge(s, &img, rep, e) < 0) rc = merge_failed(file, e);
    share_image_free(&img);
    store_share_merge_done(s);
    return rc;
}

/* Checked images kept in memory between the check and the merge, up to this
 * much in all; past it, a file is read and checked again to be merged. */
#define KEEP_CHECKED_BYTES (1LL << 30)
#define CHECK_THREADS_MAX 4

/* Reading a file into fresh memory and its integrity_check are CPU work (a
 * one-off perf profile of a bench/merge run put them at 0.5 s of 2.2 s; no
 * script reruns that split), and files are independent: they are checked on
 * up to one thread per CPU. The store's connection is only read while
 * checking, and SQLite serialises calls on it (serialized threading mode,
 * checked). */
struct check_pool {
    store *s;
    char *const *files;
    int n;
    long long max_bytes;
    struct share_image *img;
    sl_err *err;
    int *rc;            /* per file: 0 checked, -1 refused, 1 not reached */
    atomic_int next;
    atomic_bool stop;
    pthread_mutex_t lock;
    long long kept;
};

static void check_one(struct check_pool *p, int i)
{
    int rc = share_image_read(p->files[i], NULL, p->max_bytes, &p->img[i], &p->err[i]);
    if (rc == 0) rc = store_share_check(p->s, &p->img[i], p->files[i], &p->err[i]);
    bool keep = false;
    if (rc == 0) {
        pthread_mutex_lock(&p->lock);
        if (p->kept + (long long)p->img[i].len <= KEEP_CHECKED_BYTES) {
            p->kept += (long long)p->img[i].len;
            keep = true;
        }
        pthread_mutex_unlock(&p->lock);
    }
    if (!keep) share_image_free(&p->img[i]);
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
    /* Every file is read and checked before the first merge, as pull does:
     * one bad file leaves the store as it was. */
    struct check_pool p = { .s = s, .files = files, .n = n, .max_bytes = max_bytes };
    p.img = xcalloc((size_t)n, sizeof *p.img);
    p.err = xcalloc((size_t)n, sizeof *p.err);
    p.rc = xcalloc((size_t)n, sizeof *p.rc);
    for (int i = 0; i < n; i++) p.rc[i] = 1;
    atomic_init(&p.next, 0);
    atomic_init(&p.stop, false);
    pthread_mutex_init(&p.lock, NULL);
    int rc = check_all(&p, e);
    struct share_image *img = p.img;
    for (int i = 0; i < n && rc == 0; i++) {
        /* Not kept: read again, and checked again, so that what is merged
         * is exactly what passed even if the file changed since. */
        if (!img[i].bytes) {
            rc = share_image_read(files[i], NULL, max_bytes, &img[i], e);
            if (rc == 0) rc = store_share_check(s, &img[i], files[i], e);
        }
        struct share_report rep;
        if (rc == 0 && store_share_merge(s, &img[i], &rep, e) < 0) rc = merge_failed(files[i], e);
        share_image_free(&img[i]);
        if (rc == 0) emit(fn, arg, SHARE_MERGED, files[i], &rep, NULL, -1);
    }
    for (int i = 0; i < n; i++) share_image_free(&img[i]);
    pthread_mutex_destroy(&p.lock);
    free(p.img);
    free(p.err);
    free(p.rc);
    store_share_merge_done(s);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Hardware classes of this host's disks (device_class), sorted, unique. */
static int share_host_classes(char ***out, sl_err *e)
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
    if (rc == 0 && (nc = push_classes(po, snap, uuid, &classes, e)) < 0) rc = -1;
    if (rc == 0) rc = share_zstd_compress(snap, packed, e);
    int pushed = 0;
    for (int i = 0; rc == 0 && i < nc; i++) {
        char key[512];
        snprintf(key, sizeof key, "%s/%s" SHARE_ZST_SUFFIX, classes[i], uuid);
        rc = share_cancelled(r) ? share_fail_cancelled(e, "push") : r->ops->put(r, key, packed, e);
        if (rc == 0) {
            emit(fn, arg, SHARE_PUSHED, key, NULL, NULL, -1);
            pushed++;
        }
    }
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
    char path[4300];
    bool ok;
};

/* The host part of an object's name: NAME.sluicedb.zst (what push
 * uploads) gives 2, NAME.sluicedb (older sluice) 1, anything else 0. */
static int object_stem(const char *name, char *stem, size_t n)
{
    static const char *const suffix[] = { SHARE_SUFFIX, SHARE_ZST_SUFFIX };
    size_t len = strlen(name);
    for (int k = 1; k >= 0; k--) {
        size_t sl = strlen(suffix[k]);
        if (len > sl && strcmp(name + len - sl, suffix[k]) == 0) {
            snprintf(stem, n, "%.*s", (int)(len - sl), name);
            return k + 1;
        }
    }
    return 0;
}

/* Whether the listing also has NAME.sluicedb.zst for this NAME.sluicedb:
 * the host pushed again with a newer sluice, its old object is stale. */
static bool has_newer_object(const struct share_list *l, const char *stem)
{
    char want[300];
    snprintf(want, sizeof want, "%s" SHARE_ZST_SUFFIX, stem);
    for (int i = 0; i < l->n; i++)
        if (!l->v[i].is_dir && strcmp(l->v[i].name, want) == 0) return true;
    return false;
}

/* Objects worth fetching: NAME.sluicedb[.zst] in the wanted class folders,
 * not this host's own. */
static int find_candidates(struct share_remote *r, const struct share_pull_opts *po, const char *my_uuid,
                           struct candidate **out, sl_err *e)
{
    char **dirs = NULL;
    int nd;
    if (po->all_classes) {
        struct share_list top = { 0 };
        if (r->ops->list(r, "", &top, e) < 0) return -1;
        dirs = xcalloc((size_t)top.n + 1, sizeof *dirs);
        nd = 0;
        for (int i = 0; i < top.n; i++)
            if (top.v[i].is_dir && share_name_valid(top.v[i].name)) dirs[nd++] = xstrdup(top.v[i].name);
        share_list_free(&top);
    } else if ((nd = share_host_classes(&dirs, e)) < 0) return -1;
    struct candidate *c = NULL;
    int n = 0, cap = 0, rc = 0;
    for (int d = 0; d < nd && rc == 0; d++) {
        struct share_list l = { 0 };
        rc = r->ops->list(r, dirs[d], &l, e);
        for (int i = 0; rc == 0 && i < l.n; i++) {
            const char *name = l.v[i].name;
            char stem[256];
            int kind = l.v[i].is_dir || !share_name_valid(name) ? 0 : object_stem(name, stem, sizeof stem);
            if (kind == 0 || (my_uuid && strcmp(stem, my_uuid) == 0)) continue;
            if (kind == 1 && has_newer_object(&l, stem)) continue;
            if (n == cap) c = xrealloc(c, sizeof *c * (size_t)(cap = cap ? cap * 2 : 8));
            memset(&c[n], 0, sizeof c[n]);
            snprintf(c[n].key, sizeof c[n].key, "%s/%s", dirs[d], name);
            n++;
        }
        share_list_free(&l);
    }
    share_classes_free(dirs, nd);
    if (rc < 0) {
        free(c);
        return -1;
    }
    *out = c;
    return n;
}

long long share_pull(store *s, struct share_remote *r, const struct share_pull_opts *po, share_event_fn fn, void *arg,
                     sl_err *e)
{
    struct host_info h;
    char uuid[37];
    if (host_read(&h, e) < 0) return -1;
    int known = store_share_host_uuid(s, &h, uuid, e);
    if (known < 0) return -1;
    struct candidate *c;
    int n = find_candidates(r, po, known == 0 ? uuid : NULL, &c, e);
    if (n < 0) return -1;
    if (n == 0) {
        emit(fn, arg, SHARE_NOTE, r->shown, NULL, "nothing to pull for this host's hardware classes", -1);
        free(c);
        return 0;
    }
    char dir[4096];
    if (share_tmpdir(dir, sizeof dir, e) < 0) {
        free(c);
        return -1;
    }
    /* Everything is fetched and checked before the first merge: a bad object
     * stops the pull with the store as it was. */
    int bad = 0;
    sl_err first = { 0 };
    for (int i = 0; i < n; i++) {
        snprintf(c[i].path, sizeof c[i].path, "%s/%d" SHARE_SUFFIX, dir, i);
        sl_err fe;
        char label[2600];
        snprintf(label, sizeof label, "%s/%s", r->shown, c[i].key);
        struct share_image img = { 0 };
        int rc = share_cancelled(r) ? share_fail_cancelled(&fe, "pull") : r->ops->get(r, c[i].key, c[i].path, &fe);
        if (rc == 0) rc = share_image_read(c[i].path, label, r->opts.max_bytes, &img, &fe);
        if (rc == 0) rc = store_share_check(s, &img, label, &fe);
        share_image_free(&img);
        c[i].ok = rc == 0;
        if (rc == 0) {
            emit(fn, arg, SHARE_FETCHED, c[i].key, NULL, NULL, -1);
            continue;
        }
        /* Without --keep-going the first refusal is the command's error. */
        if (po->keep_going) emit(fn, arg, SHARE_REFUSED, c[i].key, NULL, fe.msg, -1);
        if (!bad++) first = fe;
        if (!po->keep_going || share_cancelled(r)) break;
    }
    long long added = 0;
    int rc = 0;
    if (bad && !po->keep_going) {
        *e = first;
        rc = -1;
    }
    /* A cancel stops every merge, --keep-going or not. */
    if (rc == 0 && share_cancelled(r)) rc = share_fail_cancelled(e, "pull");
    for (int i = 0; rc == 0 && i < n; i++) {
        if (!c[i].ok) continue;
        /* Read again from our private download: checked files are not all
         * held in memory at once. */
        struct share_report rep;
        struct share_image img;
        rc = share_image_read(c[i].path, c[i].key, r->opts.max_bytes, &img, e);
        if (rc == 0 && store_share_merge(s, &img, &rep, e) < 0) rc = merge_failed(c[i].key, e);
        share_image_free(&img);
        if (rc == 0) {
            added += share_report_added(&rep);
            emit(fn, arg, SHARE_MERGED, c[i].key, &rep, NULL, -1);
        }
    }
    store_share_merge_done(s);
    share_tmpdir_remove(dir);
    free(c);
    if (rc == 0 && bad)
        return sl_fail(e, SL_EFAIL, "%d object%s refused (see above); the others were merged", bad,
                       bad == 1 ? "" : "s");
    return rc < 0 ? -1 : added;
}
