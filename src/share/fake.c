/* share/fake — fake://anything: objects kept in memory, with failures on
 * demand, so unit tests drive push and pull without a server. fake://stall
 * never finishes an operation until the caller cancels it (opts.cancel): a
 * transfer that is still running, for testing cancel without timing. */
#include "share/share.h"
#include "db/store_share.h"

#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX 64

static struct fake_object {
    char key[512];
    char *data;
    size_t len;
} objects[FAKE_MAX];
static int nobjects;
static struct { char op[8]; int n; char msg[256]; } failure;

void share_fake_reset(void)
{
    for (int i = 0; i < nobjects; i++) free(objects[i].data);
    nobjects = 0;
    memset(&failure, 0, sizeof failure);
}

void share_fake_fail(const char *op, int n, const char *msg)
{
    snprintf(failure.op, sizeof failure.op, "%s", op);
    failure.n = n;
    snprintf(failure.msg, sizeof failure.msg, "%s", msg);
}

int share_fake_count(void) { return nobjects; }

static int injected(const char *op, sl_err *e)
{
    if (failure.n <= 0 || strcmp(failure.op, op) != 0) return 0;
    failure.n--;
    return sl_fail(e, SL_EFAIL, "fake %s: %s", op, failure.msg);
}

/* fake://stall: wait for the cancel; without a cancel flag, go on. */
static int stalled(struct share_remote *r, const char *op, sl_err *e)
{
    if (!r->opts.cancel || strncmp(r->url, "fake://stall", 12) != 0) return 0;
    while (!share_cancelled(r)) {
        struct timespec ts = { 0, 10000000L };
        nanosleep(&ts, NULL);
    }
    return share_fail_cancelled(e, op);
}

static struct fake_object *find(const char *key)
{
    for (int i = 0; i < nobjects; i++)
        if (strcmp(objects[i].key, key) == 0) return &objects[i];
    return NULL;
}

static int fake_put(struct share_remote *r, const char *key, const char *local_path, sl_err *e)
{
    if (injected("put", e) < 0 || stalled(r, "fake put", e) < 0) return -1;
    FILE *f = fopen(local_path, "rb");
    if (!f) return sl_fail(e, SL_EFAIL, "fake put: cannot read %s", local_path);
    size_t len = 0, cap = 65536, got;
    char *data = xmalloc(cap);
    char buf[65536];
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + got > cap) data = xrealloc(data, cap = (len + got) * 2);
        memcpy(data + len, buf, got);
        len += got;
    }
    fclose(f);
    struct fake_object *o = find(key);
    if (!o) {
        if (nobjects == FAKE_MAX) { free(data); return sl_fail(e, SL_EFAIL, "fake put: full"); }
        o = &objects[nobjects++];
        snprintf(o->key, sizeof o->key, "%s", key);
    } else free(o->data);
    o->data = data;
    o->len = len;
    return 0;
}

static int fake_list(struct share_remote *r, const char *dir, struct share_list *out, sl_err *e)
{
    if (injected("list", e) < 0 || stalled(r, "fake list", e) < 0) return -1;
    size_t dl = strlen(dir);
    for (int i = 0; i < nobjects; i++) {
        const char *k = objects[i].key;
        if (dl && (strncmp(k, dir, dl) != 0 || k[dl] != '/')) continue;
        const char *rest = dl ? k + dl + 1 : k;
        const char *slash = strchr(rest, '/');
        char name[256];
        snprintf(name, sizeof name, "%.*s", slash ? (int)(slash - rest) : (int)strlen(rest), rest);
        bool dup = false;
        for (int j = 0; j < out->n; j++) dup |= strcmp(out->v[j].name, name) == 0;
        if (!dup) share_list_add(out, name, slash != NULL, slash ? -1 : (long long)objects[i].len);
    }
    return 0;
}

static int fake_get(struct share_remote *r, const char *key, const char *local_path, struct share_validator *v,
                    sl_err *e)
{
    if (v) v->etag[0] = v->last_modified[0] = 0;   /* none: always fetched */
    if (injected("get", e) < 0 || stalled(r, "fake get", e) < 0) return -1;
    struct fake_object *o = find(key);
    if (!o) return sl_fail(e, SL_EFAIL, "fake get %s: not found", key);
    if ((long long)o->len > r->opts.max_bytes) return sl_fail(e, SL_EFAIL, "fake get %s: over the cap", key);
    FILE *f = fopen(local_path, "wbx");
    if (!f) return sl_fail(e, SL_EFAIL, "fake get: cannot create %s", local_path);
    size_t w = fwrite(o->data, 1, o->len, f);
    if (fclose(f) != 0 || w != o->len) return sl_fail(e, SL_EFAIL, "fake get: short write to %s", local_path);
    return 0;
}

static const char *const fake_schemes[] = { "fake", NULL };
const struct share_transport share_fake_transport = {
    .name = "fake", .schemes = fake_schemes, .put = fake_put, .list = fake_list, .get = fake_get,
};
