/* manifest — CLASS/manifest.json: one entry per object of a class folder
 * (host, size, content SHA-256, run count, newest run, run digest), so a
 * pull fetches only the objects whose runs it lacks (#16).
 *
 * Writing it is a read-modify-write shared by every host of the class.
 * Where the transport has a conditional write (file://: the entry's folder
 * locked with flock, the manifest replaced only if it still holds the bytes
 * read), two pushes cannot lose each other's entries. Elsewhere (WebDAV, S3,
 * SFTP here) the write is checked by reading the manifest back and retried
 * when the entry is missing; a push that rewrites the manifest between
 * another's write and its read-back can still drop that entry. Nothing is
 * lost then: pull lists the folder too and fetches, whole, any object the
 * manifest does not name. */
#include "share/manifest.h"
#include "db/store_share.h"

#include <openssl/evp.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MANIFEST_MAX_BYTES (64LL << 20)
#define PUBLISH_ATTEMPTS 8

int share_sha256_file(const char *path, char out[65], sl_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return sl_fail_errno(e, SL_EFAIL, errno, "%s", path);
    EVP_MD_CTX *cx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(cx, EVP_sha256(), NULL);
    unsigned char *buf = xmalloc(1 << 16);
    int rc = 0;
    for (;;) {
        ssize_t r = read(fd, buf, 1 << 16);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) { rc = sl_fail_errno(e, SL_EFAIL, errno, "reading %s", path); break; }
        if (r == 0) break;
        EVP_DigestUpdate(cx, buf, (size_t)r);
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(cx, md, &len);
    for (unsigned i = 0; i < len; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
    EVP_MD_CTX_free(cx);
    free(buf);
    close(fd);
    return rc;
}

static bool is_hex64(const char *s)
{
    if (!s || strlen(s) != 64) return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return false;
    return true;
}

static void copy_str(json_t *o, const char *key, char *buf, size_t n)
{
    const char *v = json_string_value(json_object_get(o, key));
    snprintf(buf, n, "%s", v ? v : "");
}

/* An entry as JSON (o) into x: true when complete enough to act on. */
static bool entry_parse(const json_t *o, const char *object, struct share_manifest_entry *x)
{
    memset(x, 0, sizeof *x);
    if (!json_is_object(o)) return false;
    snprintf(x->object, sizeof x->object, "%s", object);
    copy_str((json_t *)o, "host", x->host, sizeof x->host);
    copy_str((json_t *)o, "sha256", x->sha256, sizeof x->sha256);
    copy_str((json_t *)o, "runs_sha256", x->runs_sha256, sizeof x->runs_sha256);
    copy_str((json_t *)o, "newest", x->newest, sizeof x->newest);
    copy_str((json_t *)o, "pushed", x->pushed, sizeof x->pushed);
    copy_str((json_t *)o, "oldest", x->oldest, sizeof x->oldest);
    copy_str((json_t *)o, "pruned", x->pruned, sizeof x->pruned);
    json_t *size = json_object_get(o, "size"), *runs = json_object_get(o, "runs");
    x->size = json_is_integer(size) ? json_integer_value(size) : -1;
    x->runs = json_is_integer(runs) ? json_integer_value(runs) : -1;
    x->own_only = json_is_true(json_object_get(o, "own_only"));
    return x->size >= 0 && x->runs >= 0 && is_hex64(x->sha256) && is_hex64(x->runs_sha256) &&
           share_name_valid(x->host);
}

bool share_manifest_entry(const json_t *m, const char *object, struct share_manifest_entry *x)
{
    return entry_parse(json_object_get(json_object_get(m, "objects"), object), object, x);
}

static json_t *entry_json(const struct share_manifest_entry *x)
{
    json_t *o = json_pack("{s:s, s:I, s:s, s:I, s:s, s:s, s:b, s:s}", "host", x->host, "size", (json_int_t)x->size,
                          "sha256", x->sha256, "runs", (json_int_t)x->runs, "runs_sha256", x->runs_sha256, "newest",
                          x->newest, "own_only", x->own_only, "pushed", x->pushed);
    if (x->oldest[0]) json_object_set_new(o, "oldest", json_string(x->oldest));
    if (x->pruned[0]) json_object_set_new(o, "pruned", json_string(x->pruned));
    return o;
}

json_t *share_manifest_read(const char *path, const char *label, sl_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size > MANIFEST_MAX_BYTES)
        return sl_fail(e, SL_EFAIL, "%s is larger than %lld bytes: not a sluice manifest", label, MANIFEST_MAX_BYTES),
               NULL;
    json_error_t je;
    json_t *m = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!m || !json_is_object(json_object_get(m, "objects")) ||
        json_integer_value(json_object_get(m, "sluice_manifest")) != 1) {
        sl_fail(e, SL_EFAIL, "%s is not a sluice manifest (%s)", label, m ? "no version 1 \"objects\"" : je.text);
        json_decref(m);
        return NULL;
    }
    return m;
}

/* The manifest of cls into path: 1 fetched, 0 there is none, -1 error.
 * The class listing is left in l (free it). */
static int fetch(struct share_remote *r, const char *cls, const char *path, struct share_list *l, sl_err *e)
{
    memset(l, 0, sizeof *l);
    if (r->ops->list(r, cls, l, e) < 0) return -1;
    if (!share_list_has(l, SHARE_MANIFEST)) return 0;
    char key[512];
    snprintf(key, sizeof key, "%s/" SHARE_MANIFEST, cls);
    unlink(path);
    return r->ops->get(r, key, path, NULL, e) < 0 ? -1 : 1;
}

int share_entry_fetch(struct share_remote *r, const char *cls, const char *object, const char *tmpdir,
                      struct share_manifest_entry *x, sl_err *e)
{
    char key[600], path[4200];
    snprintf(key, sizeof key, "%s/%s" SHARE_ENTRY_SUFFIX, cls, object);
    snprintf(path, sizeof path, "%s/entry.json", tmpdir);
    unlink(path);
    if (r->ops->get(r, key, path, NULL, e) < 0) return -1;
    json_error_t je;
    json_t *o = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && st.st_size < 65536) o = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    unlink(path);
    /* An entry names its object: one copied beside another object is not its entry. */
    const char *named = o ? json_string_value(json_object_get(o, "object")) : NULL;
    bool ok = o && json_integer_value(json_object_get(o, "sluice_entry")) == 1 && named &&
              strcmp(named, object) == 0 && entry_parse(o, object, x);
    json_decref(o);
    return ok;
}

/* OBJECT.json beside the object: written by its host alone, so no other
 * push can lose it. */
static int put_entry(struct share_remote *r, const char *cls, const struct share_manifest_entry *x,
                     const char *tmpdir, sl_err *e)
{
    char key[600], path[4200];
    snprintf(key, sizeof key, "%s/%s" SHARE_ENTRY_SUFFIX, cls, x->object);
    snprintf(path, sizeof path, "%s/entry-out.json", tmpdir);
    json_t *o = entry_json(x);
    json_object_set_new(o, "sluice_entry", json_integer(1));
    json_object_set_new(o, "object", json_string(x->object));
    unlink(path);
    int rc = json_dump_file(o, path, JSON_COMPACT | JSON_SORT_KEYS) == 0 ? 0 : sl_fail(e, SL_EFAIL, "writing %s", path);
    json_decref(o);
    return rc < 0 ? -1 : r->ops->put(r, key, path, e);
}

int share_manifest_entry_for(const char *snap, const char *packed, const char *uuid, struct share_manifest_entry *x,
                             sl_err *e)
{
    memset(x, 0, sizeof *x);
    snprintf(x->object, sizeof x->object, "%s" SHARE_ZST_SUFFIX, uuid);
    snprintf(x->host, sizeof x->host, "%s", uuid);
    struct stat st;
    if (stat(packed, &st) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "%s", packed);
    x->size = (long long)st.st_size;
    if (share_sha256_file(packed, x->sha256, e) < 0) return -1;
    struct share_digest *d;
    int n = store_share_snapshot_digests(snap, &d, e);
    if (n < 0) return -1;
    const struct share_digest *mine = share_digest_find(d, n, uuid);
    int others = 0;
    for (int i = 0; i < n; i++) others += d[i].runs > 0 && strcmp(d[i].host, uuid) != 0;
    x->own_only = others == 0;
    if (mine) {
        x->runs = mine->runs;
        snprintf(x->runs_sha256, sizeof x->runs_sha256, "%s", mine->runs_sha256);
        snprintf(x->newest, sizeof x->newest, "%s", mine->newest);
        snprintf(x->oldest, sizeof x->oldest, "%s", mine->oldest);
    }
    free(d);
    time_t now = time(NULL);
    strftime(x->pushed, sizeof x->pushed, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    return 0;
}

bool share_entry_fits(const struct share_manifest_entry *x, long long listed_size)
{
    return listed_size < 0 || listed_size == x->size;
}

/* Make m say what the listing l holds: entries whose object is gone are
 * dropped; objects without an entry, or whose entry's size is not the
 * listed one (an entry lost to a concurrent push), get their entry from
 * OBJECT.json. Our own object (x) is set by the caller. */
static int repair(struct share_remote *r, const char *cls, const struct share_list *l, json_t *m, const char *mine,
                  const char *tmpdir, sl_err *e)
{
    json_t *objs = json_object_get(m, "objects");
    const char *name;
    json_t *v, *tmp;
    json_object_foreach_safe(objs, tmp, name, v)
        if (!share_list_has(l, name)) json_object_del(objs, name);
    for (int i = 0; i < l->n; i++) {
        char stem[256], json_name[300];
        name = l->v[i].name;
        if (l->v[i].is_dir || !share_object_stem(name, stem, sizeof stem) || strcmp(name, mine) == 0) continue;
        struct share_manifest_entry x;
        if (share_manifest_entry(m, name, &x) && share_entry_fits(&x, l->v[i].size_bytes)) continue;
        json_object_del(objs, name);
        snprintf(json_name, sizeof json_name, "%s" SHARE_ENTRY_SUFFIX, name);
        if (!share_list_has(l, json_name)) continue;
        int rc = share_entry_fetch(r, cls, name, tmpdir, &x, e);
        if (rc < 0) return -1;
        if (rc == 1 && share_entry_fits(&x, l->v[i].size_bytes)) json_object_set_new(objs, name, entry_json(&x));
    }
    return 0;
}

static void pause_a_little(int attempt)
{
    char rnd[5];
    share_random_hex(rnd, sizeof rnd);
    long ms = 20L * (attempt + 1) + strtol(rnd, NULL, 16) % 200;
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Whether the manifest read back names x's object with x's content (x
 * NULL: does not name object at all). */
static int written(struct share_remote *r, const char *cls, const char *path, const struct share_manifest_entry *x,
                   const char *object, sl_err *e)
{
    struct share_list l;
    int have = fetch(r, cls, path, &l, e);
    share_list_free(&l);
    if (have <= 0) return have < 0 ? -1 : 0;
    sl_err ignore;
    json_t *m = share_manifest_read(path, SHARE_MANIFEST, &ignore);
    struct share_manifest_entry got;
    bool ok = x ? m && share_manifest_entry(m, x->object, &got) && strcmp(got.sha256, x->sha256) == 0
                : m && !json_object_get(json_object_get(m, "objects"), object);
    json_decref(m);
    return ok;
}

/* One read-modify-write putting in x (NULL: taking object out): 0 done, 1
 * lost to another writer, -1 error. */
static int publish_once(struct share_remote *r, const char *cls, const struct share_manifest_entry *x,
                        const char *object, const char *tmpdir, sl_err *e)
{
    char path[4200], out[4200], key[512], label[700], sha[65] = "";
    snprintf(path, sizeof path, "%s/manifest-in.json", tmpdir);
    snprintf(out, sizeof out, "%s/manifest-out.json", tmpdir);
    snprintf(key, sizeof key, "%s/" SHARE_MANIFEST, cls);
    snprintf(label, sizeof label, "%s/%s", r->shown, key);
    struct share_list l;
    int have = fetch(r, cls, path, &l, e);
    json_t *m = NULL;
    sl_err bad;
    if (have > 0 && share_sha256_file(path, sha, e) < 0) have = -1;
    /* An unreadable manifest is replaced: it helps nobody, and pull lists
     * the folder anyway. */
    if (have > 0) m = share_manifest_read(path, label, &bad);
    if (!m) m = json_pack("{s:i, s:s, s:{}}", "sluice_manifest", 1, "class", cls, "objects");
    int rc = have < 0 ? -1 : repair(r, cls, &l, m, object, tmpdir, e);
    share_list_free(&l);
    if (x) json_object_set_new(json_object_get(m, "objects"), object, entry_json(x));
    else json_object_del(json_object_get(m, "objects"), object);
    unlink(out);
    if (rc == 0 && json_dump_file(m, out, JSON_COMPACT | JSON_SORT_KEYS) != 0) rc = sl_fail(e, SL_EFAIL, "writing %s", out);
    json_decref(m);
    if (rc < 0) return -1;
    if (r->ops->put_if) return r->ops->put_if(r, key, out, sha, e);
    if (r->ops->put(r, key, out, e) < 0) return -1;
    int ok = written(r, cls, path, x, object, e);
    return ok < 0 ? -1 : ok ? 0 : 1;
}

/* publish_once until it holds: 0, 1 still losing after PUBLISH_ATTEMPTS, -1. */
static int publish(struct share_remote *r, const char *cls, const struct share_manifest_entry *x, const char *object,
                   const char *tmpdir, sl_err *e)
{
    for (int i = 0; i < PUBLISH_ATTEMPTS; i++) {
        if (share_cancelled(r)) return share_fail_cancelled(e, "push");
        int rc = publish_once(r, cls, x, object, tmpdir, e);
        if (rc <= 0) return rc;
        pause_a_little(i);
    }
    return 1;
}

int share_manifest_publish(struct share_remote *r, const char *cls, const struct share_manifest_entry *x,
                           const char *tmpdir, sl_err *e)
{
    if (put_entry(r, cls, x, tmpdir, e) < 0) return -1;
    int rc = publish(r, cls, x, x->object, tmpdir, e);
    if (rc <= 0) return rc;
    return sl_fail(e, SL_EFAIL, "%s/%s/" SHARE_MANIFEST " kept changing under %d attempts (other hosts pushing at "
                   "once): %s is uploaded and pulls find it by listing; push again to have it in the manifest",
                   r->shown, cls, PUBLISH_ATTEMPTS, x->object);
}

int share_manifest_forget(struct share_remote *r, const char *cls, const char *object, const char *tmpdir, sl_err *e)
{
    int rc = publish(r, cls, NULL, object, tmpdir, e);
    if (rc <= 0) return rc;
    return sl_fail(e, SL_EFAIL, "%s/%s/" SHARE_MANIFEST " kept changing under %d attempts (other hosts pushing at "
                   "once): %s is removed, but its entry may stay until the next push to the class",
                   r->shown, cls, PUBLISH_ATTEMPTS, object);
}
