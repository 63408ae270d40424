/* store_share_digest — what a host's runs are, in a few bytes: the count,
 * the newest start time and a SHA-256 over the sorted run UUIDs. push puts
 * the digest of its object into the class manifest; pull compares it with
 * the same digest of the local store and skips an object whose runs it
 * holds already. Nothing here reads a clock: a clock that went backwards
 * between pulls cannot make a pull skip a run. */
#include "db/store_share.h"

#include <openssl/evp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex_of(const unsigned char *md, unsigned len, char *out)
{
    for (unsigned i = 0; i < len; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static void digest_finish(EVP_MD_CTX *cx, struct share_digest *d)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(cx, md, &len);
    hex_of(md, len, d->runs_sha256);
}

static struct share_digest *digest_add(struct share_digest **v, int *n, int *cap, const char *host)
{
    *v = xgrow(*v, *n, cap, sizeof **v, 16);
    struct share_digest *d = &(*v)[(*n)++];
    snprintf(d->host, sizeof d->host, "%s", host);
    return d;
}

/* Hosts that have runs, in host order, each with its runs' digest. */
static int run_digests(store *s, struct share_digest **v, int *n, int *cap, sl_err *e)
{
    sqlite3_stmt *st;
    const char *q = "SELECT host_uuid, uuid, started FROM runs ORDER BY host_uuid, uuid";
    if (sqlite3_prepare_v2(store_db(s), q, -1, &st, NULL) != SQLITE_OK) return store_fail(s, e, "reading runs");
    EVP_MD_CTX *cx = EVP_MD_CTX_new();
    struct share_digest *d = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *host = (const char *)sqlite3_column_text(st, 0);
        const char *uuid = (const char *)sqlite3_column_text(st, 1);
        const char *started = (const char *)sqlite3_column_text(st, 2);
        if (!host || !uuid) continue;
        if (!d || strcmp(d->host, host) != 0) {
            if (d) digest_finish(cx, d);
            d = digest_add(v, n, cap, host);
            EVP_DigestInit_ex(cx, EVP_sha256(), NULL);
        }
        EVP_DigestUpdate(cx, uuid, strlen(uuid));
        EVP_DigestUpdate(cx, "\n", 1);
        d->runs++;
        if (started && strcmp(started, d->newest) > 0) snprintf(d->newest, sizeof d->newest, "%s", started);
        if (started && (!d->oldest[0] || strcmp(started, d->oldest) < 0))
            snprintf(d->oldest, sizeof d->oldest, "%s", started);
    }
    if (d) digest_finish(cx, d);
    EVP_MD_CTX_free(cx);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(s, e, "reading runs");
}

static int cmp_digest(const void *a, const void *b)
{
    return strcmp(((const struct share_digest *)a)->host, ((const struct share_digest *)b)->host);
}

int store_share_digests(store *s, struct share_digest **out, sl_err *e)
{
    struct share_digest *v = NULL;
    int n = 0, cap = 0;
    if (run_digests(s, &v, &n, &cap, e) < 0) {
        free(v);
        return -1;
    }
    /* Known hosts without runs: the digest of no runs. */
    int with_runs = n;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT uuid FROM hosts ORDER BY uuid", -1, &st, NULL) != SQLITE_OK) {
        free(v);
        return store_fail(s, e, "reading hosts");
    }
    struct share_digest none = { .runs = 0 };
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_Digest("", 0, md, &len, EVP_sha256(), NULL);
    hex_of(md, len, none.runs_sha256);
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct share_digest key = { .runs = 0 };
        snprintf(key.host, sizeof key.host, "%s", (const char *)sqlite3_column_text(st, 0));
        struct share_digest *found = with_runs ? bsearch(&key, v, (size_t)with_runs, sizeof *v, cmp_digest) : NULL;
        if (found) found->known = true;
        else {
            struct share_digest *d = digest_add(&v, &n, &cap, key.host);
            snprintf(d->runs_sha256, sizeof d->runs_sha256, "%s", none.runs_sha256);
            d->known = true;
        }
    }
    sqlite3_finalize(st);
    if (n > 1) qsort(v, (size_t)n, sizeof *v, cmp_digest);
    *out = v;
    return n;
}

const struct share_digest *share_digest_find(const struct share_digest *v, int n, const char *host)
{
    if (n <= 0) return NULL;
    struct share_digest key = { .runs = 0 };
    snprintf(key.host, sizeof key.host, "%s", host);
    return bsearch(&key, v, (size_t)n, sizeof *v, cmp_digest);
}
