/* share — picking a transport for a URL, and the local file chores every
 * transport shares: private temporary directories, capped copies, names. */
#include "share/share.h"
#include "db/store_share.h"

#include "share/curl.h"
#include "core/units.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const struct share_transport *const transports[] = {
    &share_file_transport, &share_webdav_transport, &share_s3_transport, &share_sftp_transport,
    &share_pg_transport, &share_fake_transport,
};

void share_redact(const char *url, char *buf, size_t n)
{
    const char *sep = strstr(url, "://");
    const char *host = sep ? sep + 3 : url;
    const char *slash = strchr(host, '/');
    const char *at = strchr(host, '@');
    if (sep && at && (!slash || at < slash))
        snprintf(buf, n, "%.*s%s", (int)(host - url), url, at + 1);
    else
        snprintf(buf, n, "%s", url);
    /* postgresql://...?password=...: the value goes too. */
    for (char *p = strstr(buf, "password="); p; p = strstr(p + 1, "password=")) {
        if (p != buf && p[-1] != '?' && p[-1] != '&') continue;
        char *end = p + 9 + strcspn(p + 9, "&#");
        memmove(p + 9, end, strlen(end) + 1);
    }
}

void share_opts_defaults(struct share_opts *o)
{
    memset(o, 0, sizeof *o);
    o->retries = 4;
    o->retry_base_ms = 500;
    o->max_bytes = SHARE_DEFAULT_MAX_BYTES;
    const char *env = getenv("SLUICE_SHARE_RETRY_MS");   /* tests: retries without the wait */
    if (env && *env) o->retry_base_ms = atol(env);
}

long long share_time_left_ms(const struct share_remote *r) { return r->opts.deadline_ms - units_monotonic_ms(); }

int share_open(const char *url, const struct share_opts *o, struct share_remote **out, sl_err *e)
{
    const char *sep = strstr(url, "://");
    char shown[2048];
    share_redact(url, shown, sizeof shown);
    if (!sep || sep == url)
        return sl_fail(e, SL_EUSAGE, "%s is not a URL: use file:///DIR, https://HOST/PATH (WebDAV), "
                       "s3://BUCKET/PREFIX, sftp://HOST/PATH or postgresql://HOST/DB", shown);
    if (strlen(url) >= sizeof ((struct share_remote *)0)->url)
        return sl_fail(e, SL_EUSAGE, "URL too long: %.60s...", shown);
    size_t slen = (size_t)(sep - url);
    for (size_t i = 0; i < sizeof transports / sizeof transports[0]; i++) {
        for (const char *const *s = transports[i]->schemes; *s; s++) {
            if (strlen(*s) != slen || strncasecmp(url, *s, slen) != 0) continue;
            static bool curl_ready;
            if (transports[i]->uses_curl && !curl_ready) {
                if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
                    return sl_fail(e, SL_EFAIL, "libcurl failed to initialise");
                curl_ready = true;
            }
            struct share_remote *r = xcalloc(1, sizeof *r);
            r->ops = transports[i];
            r->opts = *o;
            if (r->opts.timeout_s <= 0) r->opts.timeout_s = SHARE_DEFAULT_TIMEOUT_S;
            if (r->opts.min_speed_bps <= 0) r->opts.min_speed_bps = SHARE_DEFAULT_MIN_SPEED_BPS;
            if (r->opts.min_speed_s <= 0) r->opts.min_speed_s = SHARE_DEFAULT_MIN_SPEED_S;
            r->opts.deadline_ms = units_monotonic_ms() + 1000LL * r->opts.timeout_s;
            snprintf(r->url, sizeof r->url, "%s", url);
            size_t len = strlen(r->url);
            while (len > slen + 3 && r->url[len - 1] == '/') r->url[--len] = 0;
            share_redact(r->url, r->shown, sizeof r->shown);
            *out = r;
            return 0;
        }
    }
    return sl_fail(e, SL_EUSAGE, "%s: unknown scheme %.*s: use file://, http://, https://, s3://, sftp:// or "
                   "postgresql://", shown,
                   (int)slen, url);
}

void share_close(struct share_remote *r)
{
    if (!r) return;
    if (r->priv && r->ops->close) r->ops->close(r);
    if (r->pool) share_curl_release(r);
    free(r->priv);
    free(r);
}

void share_get_all(struct share_remote *r, struct share_get *g, int n)
{
    if (r->ops->get_many && n > 0) {
        r->ops->get_many(r, g, n);
        return;
    }
    for (int i = 0; i < n; i++)
        g[i].rc = share_cancelled(r) ? share_fail_cancelled(&g[i].err, "pull")
                                     : r->ops->get(r, g[i].key, g[i].local_path, g[i].v, &g[i].err);
}

void share_list_add(struct share_list *l, const char *name, bool is_dir, long long size_bytes)
{
    if (l->n >= 100000) return;  /* a bucket with more is not ours to pull */
    l->v = xgrow(l->v, l->n, &l->cap, sizeof *l->v, 16);
    struct share_entry *x = &l->v[l->n++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->is_dir = is_dir;
    x->size_bytes = size_bytes;
}

void share_list_free(struct share_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

bool share_list_has(const struct share_list *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (!l->v[i].is_dir && strcmp(l->v[i].name, name) == 0) return true;
    return false;
}

int share_object_stem(const char *name, char *stem, size_t n)
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

bool share_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 200 || name[0] == '.') return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("._-", *p)))
            return false;
    return true;
}

static int grew(const char *path, long long max_bytes, sl_err *e)
{
    return sl_fail(e, SL_EFAIL, "%s grew past the %lld-byte cap while being read; nothing merged", path, max_bytes);
}

/* A file to merge, opened for reading: a regular file of at most max_bytes
 * now (it may still grow while being read: see grew). Returns the
 * descriptor, its size in *size_bytes unless NULL, or -1 with e. */
static int open_capped(const char *path, long long max_bytes, long long *size_bytes, sl_err *e)
{
    /* O_NONBLOCK: opening a FIFO (or a device) for reading would wait for a
     * writer forever; it is refused by fstat before any read. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return sl_fail_errno(e, errno == ENOENT ? SL_EUSAGE : SL_EFAIL, errno, "%s", path);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return sl_fail(e, SL_EUSAGE, "%s is not a regular file (a FIFO, device or directory): give a database file "
                       "to merge; nothing merged", path);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (st.st_size > max_bytes) {
        close(fd);
        return sl_fail(e, SL_EFAIL, "%s is %lld bytes, more than the %lld-byte cap: raise --max-size if it is "
                       "really a sluice database; nothing merged", path, (long long)st.st_size, max_bytes);
    }
    if (size_bytes) *size_bytes = (long long)st.st_size;
    return fd;
}

/* in (opened by open_capped on src) onto out, refusing more than max_bytes. */
static int copy_capped(int in, int out, const char *src, const char *dst, long long max_bytes, sl_err *e)
{
    char buf[1 << 16];
    long long total = 0;
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return sl_fail_errno(e, SL_EFAIL, errno, "reading %s", src);
        if (r == 0) return 0;
        if ((total += r) > max_bytes) return grew(src, max_bytes, e);
        for (ssize_t off = 0; off < r;) {
            ssize_t w = write(out, buf + off, (size_t)(r - off));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return sl_fail_errno(e, SL_EFAIL, errno, "writing %s", dst);
            off += w;
        }
    }
}

/* src into a new private file dst, zstd data decompressed when unpack. */
static int copy_to_private(const char *src, const char *label, long long max_bytes, const char *dst, bool unpack,
                           sl_err *e)
{
    if (!label) label = src;
    int in = open_capped(src, max_bytes, NULL, e);
    if (in < 0) return -1;
    int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        close(in);
        return sl_fail_errno(e, SL_EFAIL, errno, "%s", dst);
    }
    unsigned char magic[4];
    bool zstd = unpack && pread(in, magic, sizeof magic, 0) == (ssize_t)sizeof magic &&
                share_zstd_magic(magic, sizeof magic);
    int rc = zstd ? share_zstd_decompress(in, fd, max_bytes, label, e) : copy_capped(in, fd, label, dst, max_bytes, e);
    close(in);
    if (close(fd) != 0 && rc == 0) rc = sl_fail_errno(e, SL_EFAIL, errno, "writing %s", dst);
    if (rc < 0) unlink(dst);
    return rc;
}

int share_stage(const char *src, const char *label, long long max_bytes, const char *dst, sl_err *e)
{
    return copy_to_private(src, label, max_bytes, dst, true, e);
}

void share_random_hex(char *buf, size_t n)
{
    unsigned char raw[32];
    size_t want = (n - 1 + 1) / 2;
    if (want > sizeof raw) want = sizeof raw;
    if (getrandom(raw, want, 0) != (ssize_t)want)
        for (size_t i = 0; i < want; i++) raw[i] = (unsigned char)(rand() ^ getpid());
    size_t j = 0;
    for (size_t i = 0; i < want && j + 1 < n; i++) {
        static const char hex[] = "0123456789abcdef";
        buf[j++] = hex[raw[i] >> 4];
        if (j + 1 < n) buf[j++] = hex[raw[i] & 15];
    }
    buf[j] = 0;
}

int share_private_copy(const char *src, const char *dst, long long max_bytes, sl_err *e)
{
    return copy_to_private(src, NULL, max_bytes, dst, false, e);
}

bool share_cancelled(const struct share_remote *r) { return r->opts.cancel && atomic_load(r->opts.cancel); }

int share_fail_cancelled(sl_err *e, const char *what)
{
    return sl_fail(e, SL_EFAIL, "%s: cancelled", what);
}
