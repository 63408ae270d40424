/* rows_prune — retention on a central store of rows (PostgreSQL), and the
 * checks that keep its two inputs sound: a run's start time, and the host
 * a run belongs to. A host prunes its own runs only (the server refuses any
 * other's, src/share/pg.c), newest first by their start, which must be a
 * real UTC time no later than a little past now: a run dated 9999 would
 * outrank every real one, and one dated 2020-13-45 cannot be compared at
 * all. */
#include "share/sync.h"
#include "core/device.h"

#include <openssl/evp.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A host's clock may run a little ahead of the one judging its runs. */
#define PRUNE_SKEW_S (24 * 3600)

int share_run_time_check(const char *started, time_t now, long skew_s, time_t *t, char *why, size_t n)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool ok = started && strlen(started) == sizeof shape - 1;
    for (size_t i = 0; ok && i < sizeof shape - 1; i++)
        ok = shape[i] == 'd' ? isdigit((unsigned char)started[i]) != 0 : started[i] == shape[i];
    int Y = 0, M = 0, D = 0, h = 0, m = 0, s = 0;
    if (ok) ok = sscanf(started, "%4d-%2d-%2dT%2d:%2d:%2dZ", &Y, &M, &D, &h, &m, &s) == 6;
    bool leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
    ok = ok && Y >= 1970 && M >= 1 && M <= 12 && D >= 1 && D <= mdays[M - 1] + (M == 2 && leap) && h < 24 && m < 60 &&
         s < 60;
    if (!ok) {
        snprintf(why, n, "it starts at '%s', which is not a UTC time (YYYY-MM-DDTHH:MM:SSZ)", started ? started : "");
        return -1;
    }
    struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = s };
    *t = timegm(&tm);
    if (*t > now + skew_s) {
        snprintf(why, n, "it starts at '%s', in the future (more than %ld minutes past this host's clock)", started,
                 skew_s / 60);
        return -1;
    }
    return 0;
}

void share_host_key(const struct host_info *h, const char *host_uuid, char key[65])
{
    /* The machine-id never leaves this machine, so only it can make the
     * key; the host's UUID in it makes the key of one identity useless
     * for another. Without a machine-id, the hostname (weaker: guessable). */
    char text[512];
    int len = snprintf(text, sizeof text, "sluice host key\n%s\n%s", h->machine_id[0] ? h->machine_id : h->hostname,
                       host_uuid);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(text, (size_t)len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) sl_die("SHA-256 of a host key");
    for (unsigned i = 0; i < 32; i++) snprintf(key + 2 * i, 3, "%02x", md[i]);
}

struct pick {
    const struct share_prune_opts *po;
    const char *shown;
    share_event_fn fn;
    void *arg;
    time_t now;
    long long left;           /* runs left for a start that is not a time */
};

struct dated {
    long long seq;
    time_t t;
};

static int newest_first(const void *a, const void *b)
{
    const struct dated *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? 1 : -1;
    return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* share_pick_fn: of this host's runs, those past the retention. A run
 * whose start is not a time (or lies in the future) is neither pruned nor
 * counted among the newest: left, and said. */
static json_t *pick_victims(json_t *runs, void *arg)
{
    struct pick *p = arg;
    struct dated *d = xcalloc(json_array_size(runs) + 1, sizeof *d);
    size_t m = 0, i;
    json_t *x;
    json_array_foreach(runs, i, x) {
        char why[200], msg[400];
        time_t t;
        const char *uuid = json_string_value(json_object_get(x, "uuid"));
        if (share_run_time_check(json_string_value(json_object_get(x, "started")), p->now, PRUNE_SKEW_S, &t, why,
                                 sizeof why) < 0) {
            snprintf(msg, sizeof msg, "left run %s: %s; prune leaves it (delete it on the server by hand)",
                     uuid ? uuid : "?", why);
            share_note(p->fn, p->arg, p->shown, msg);
            p->left++;
            continue;
        }
        d[m++] = (struct dated){ json_integer_value(json_object_get(x, "seq")), t };
    }
    qsort(d, m, sizeof *d, newest_first);
    time_t before = p->now - (time_t)p->po->older_than_days * 86400;
    json_t *out = json_array();
    for (size_t k = 0; k < m; k++)
        if ((p->po->keep_runs > 0 && k >= (size_t)p->po->keep_runs) || (p->po->older_than_days > 0 && d[k].t < before))
            json_array_append_new(out, json_integer(d[k].seq));
    free(d);
    return out;
}

/* This host's UUID on the server and its key; 1 when the host has none
 * yet (it never pushed), 0, or -1 with e. */
static int this_host(store *s, char uuid[37], char key[65], sl_err *e)
{
    struct host_info h;
    int known = host_read(&h, e) < 0 ? -1 : store_share_host_uuid(s, &h, uuid, e);
    if (known == 0) share_host_key(&h, uuid, key);
    return known;
}

long long share_prune(store *s, struct share_remote *r, const struct share_prune_opts *po, share_event_fn fn,
                      void *arg, sl_err *e)
{
    if (po->older_than_days <= 0 && po->keep_runs <= 0)
        return sl_fail(e, SL_EUSAGE, "prune: give --older-than DAYS, --keep-runs N or both");
    if (!r->ops->rows) return share_prune_objects(r, po, fn, arg, e);
    bool have;
    char id[64], uuid[37], key[65];
    long long n = 0;
    int known = this_host(s, uuid, key, e);
    if (known < 0 || r->ops->rows->open(r, 0, &have, id, e) < 0) return -1;
    struct pick p = { .po = po, .shown = r->shown, .fn = fn, .arg = arg, .now = time(NULL) };
    if (have && known == 0 && (r->ops->rows->claim(r, uuid, key, e) < 0 ||
                               r->ops->rows->prune(r, uuid, pick_victims, &p, po->dry_run, &n, e) < 0))
        return -1;
    char msg[300];
    snprintf(msg, sizeof msg, "%s %lld run%s of this host%s", po->dry_run ? "would prune" : "pruned", n,
             n == 1 ? "" : "s", po->dry_run ? " (--dry-run: nothing removed)" : " (their UUIDs are kept: pushes do "
             "not send them again)");
    share_note(fn, arg, r->shown, msg);
    return n;
}
