/* share/curl — the libcurl request runner shared by webdav, s3 and sftp. */
#include "curl.h"
#include "store_share.h"
#include "units.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define BODY_CAP (4u << 20)

struct attempt {
    struct share_remote *r;
    struct share_req *q;
    int fd;                     /* download target */
    long long written;
    bool too_big, io_error;
    int io_errno;
    bool progress_shown;
    struct share_setopt setopt;   /* an option libcurl refused: not sent */
};

void share_setopt_note(struct share_setopt *st, const char *option, CURLcode c)
{
    if (c == CURLE_OK || st->code != CURLE_OK) return;
    st->code = c;
    st->option = option;
}

void share_restrict_protocols(struct share_setopt *st, CURL *h, const char *names, long mask)
{
    CURLcode c = CURLE_UNKNOWN_OPTION;
#if LIBCURL_VERSION_NUM >= 0x075500
    c = curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, names);
#endif
    /* Built or running against a libcurl older than 7.85: the mask. */
    if (c == CURLE_UNKNOWN_OPTION) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        c = curl_easy_setopt(h, CURLOPT_PROTOCOLS, mask);
#pragma GCC diagnostic pop
    }
    share_setopt_note(st, "CURLOPT_PROTOCOLS_STR", c);
}

static size_t on_write(char *data, size_t size, size_t n, void *arg)
{
    struct attempt *a = arg;
    size_t len = size * n;
    if (a->written + (long long)len > a->r->opts.max_bytes) {
        a->too_big = true;
        return 0;
    }
    if (a->fd >= 0) {
        for (size_t off = 0; off < len;) {
            ssize_t w = write(a->fd, data + off, len - off);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                a->io_error = true;
                a->io_errno = errno;
                return 0;
            }
            off += (size_t)w;
        }
    } else {
        struct share_buf *b = &a->q->body;
        if (b->len + len > BODY_CAP) {
            a->too_big = true;
            return 0;
        }
        b->p = xrealloc(b->p, b->len + len + 1);
        memcpy(b->p + b->len, data, len);
        b->len += len;
        b->p[b->len] = 0;
    }
    a->written += (long long)len;
    return len;
}

/* "Name: value" header lines of a conditional GET's response: its
 * validators, the last response's (after a retry) winning. */
static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
    struct share_validator *v = arg;
    size_t len = size * n;
    static const struct { const char *name; size_t off, cap; } want[] = {
        { "etag:", offsetof(struct share_validator, etag), sizeof ((struct share_validator *)0)->etag },
        { "last-modified:", offsetof(struct share_validator, last_modified),
          sizeof ((struct share_validator *)0)->last_modified },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        size_t nl = strlen(want[i].name);
        if (len <= nl || strncasecmp(data, want[i].name, nl) != 0) continue;
        const char *p = data + nl, *end = data + len;
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        while (end > p && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
        /* A value too long to keep is not kept: a cut one would never match. */
        char *dst = (char *)v + want[i].off;
        if ((size_t)(end - p) < want[i].cap) snprintf(dst, want[i].cap, "%.*s", (int)(end - p), p);
        else dst[0] = 0;
    }
    return len;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    struct attempt *a = arg;
    /* Non-zero makes curl stop with CURLE_ABORTED_BY_CALLBACK. */
    if (share_cancelled(a->r)) return 1;
    curl_off_t total = ultotal ? ultotal : dltotal, now = ultotal ? ulnow : dlnow;
    if (!a->r->opts.progress || !(a->q->upload_path || a->q->download_path) || total <= 0) return 0;
    char done[32], all[32];
    units_format_bytes((unsigned long long)now, done, sizeof done);
    units_format_bytes((unsigned long long)total, all, sizeof all);
    fprintf(stderr, "\r  %s: %3d%% %s of %s   ", a->q->what, (int)(now * 100 / total), done, all);
    a->progress_shown = true;
    return 0;
}

static bool transient_curl(CURLcode c)
{
    switch (c) {
    case CURLE_COULDNT_CONNECT: case CURLE_COULDNT_RESOLVE_HOST: case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR: case CURLE_RECV_ERROR: case CURLE_GOT_NOTHING: case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2: case CURLE_HTTP2_STREAM:
        return true;
    default:
        return false;
    }
}

static bool transient_http(long code) { return code == 408 || code == 429 || (code >= 500 && code <= 599); }

static void shown_url(const char *url, char *buf, size_t n) { share_redact(url, buf, n); }

/* What a curl failure means for the person reading it. */
static int deadline_fail(const struct share_remote *r, const char *what, sl_err *e)
{
    return sl_fail(e, SL_EFAIL, "%s: gave up after %ld s (--timeout): the server is too slow or stalled; nothing "
                   "merged from it", what, r->opts.timeout_s);
}

static int curl_fail(struct attempt *a, CURLcode c, const char *detail, int tries, sl_err *e)
{
    char url[2048];
    shown_url(a->q->url, url, sizeof url);
    const char *what = a->q->what;
    const char *d = detail[0] ? detail : curl_easy_strerror(c);
    if (a->too_big)
        return sl_fail(e, SL_EFAIL, "%s: %s is larger than the %lld-byte cap: raise --max-size if that is expected",
                       what, url, a->r->opts.max_bytes);
    if (a->io_error) return sl_fail_errno(e, SL_EFAIL, a->io_errno, "%s: writing %s", what, a->q->download_path);
    switch (c) {
    case CURLE_ABORTED_BY_CALLBACK:
        return share_fail_cancelled(e, what);
    case CURLE_COULDNT_CONNECT:
        return sl_fail(e, SL_EFAIL, "%s: cannot connect to %s after %d tr%s (%s): is the server up and the port right?",
                       what, url, tries, tries == 1 ? "y" : "ies", d);
    case CURLE_COULDNT_RESOLVE_HOST:
        return sl_fail(e, SL_EFAIL, "%s: cannot resolve the host of %s (%s): check the name", what, url, d);
    case CURLE_OPERATION_TIMEDOUT:
        if (share_time_left_ms(a->r) <= 0)
            return deadline_fail(a->r, what, e);
        return sl_fail(e, SL_EFAIL, "%s: %s timed out %d time%s (%s): a transfer slower than %ld bytes/s for %ld s "
                       "fails (--min-speed)", what, url, tries, tries == 1 ? "" : "s", d, a->r->opts.min_speed_bps,
                       a->r->opts.min_speed_s);
    case CURLE_PARTIAL_FILE: case CURLE_RECV_ERROR: case CURLE_SEND_ERROR: case CURLE_GOT_NOTHING:
        return sl_fail(e, SL_EFAIL, "%s: the transfer with %s was cut short %d time%s (%s): nothing merged from it",
                       what, url, tries, tries == 1 ? "" : "s", d);
    case CURLE_PEER_FAILED_VERIFICATION:
        if (strncasecmp(url, "sftp:", 5) == 0)
            return sl_fail(e, SL_EFAIL, "%s: the identity of %s could not be verified: its SSH host key is not in "
                           "~/.ssh/known_hosts, or is not the key recorded there (%s); check the key's fingerprint "
                           "with the server's owner, then add it (ssh-keyscan -p PORT HOST >> ~/.ssh/known_hosts); "
                           "only on a network you trust, --insecure skips the check", what, url, d);
        return sl_fail(e, SL_EFAIL, "%s: the identity of %s could not be verified (%s): install its CA certificate or "
                       "known_hosts entry; only on a network you trust, --insecure skips the check", what, url, d);
    case CURLE_SSL_CONNECT_ERROR: case CURLE_SSL_CERTPROBLEM: case CURLE_SSL_CIPHER: case CURLE_SSL_CACERT_BADFILE:
        return sl_fail(e, SL_EFAIL, "%s: TLS with %s failed (%s)", what, url, d);
    case CURLE_LOGIN_DENIED:
        return sl_fail(e, SL_EFAIL, "%s: %s refused the login (%s): check the user and password in ~/.netrc or the "
                       "SSH key", what, url, d);
    case CURLE_REMOTE_FILE_NOT_FOUND:
        return sl_fail(e, SL_EFAIL, "%s: %s does not exist (%s)", what, url, d);
    case CURLE_UNSUPPORTED_PROTOCOL:
        return sl_fail(e, SL_EFAIL, "%s: this libcurl cannot speak the protocol of %s (%s)", what, url, d);
    default:
        return sl_fail(e, SL_EFAIL, "%s: %s: %s", what, url, d);
    }
}

static void backoff(struct share_remote *r, int attempt, const char *why, const char *what)
{
    long ms = r->opts.retry_base_ms << (attempt < 5 ? attempt : 5);
    if (ms > 8000) ms = 8000;
    if (!r->opts.cancel)
        fprintf(stderr, "sluice: %s: %s; retry %d of %d in %.1f s\n", what, why, attempt + 1, r->opts.retries, ms / 1000.0);
    /* In slices, so a cancel does not wait out the backoff. */
    for (long left = ms; left > 0 && !share_cancelled(r); left -= 100) {
        long slice = left < 100 ? left : 100;
        struct timespec ts = { 0, slice * 1000000L };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    }
}

/* What every request sets: where, how long, TLS, where the body goes. */
static void set_common(CURL *h, struct attempt *a, char *detail)
{
    struct share_remote *r = a->r;
    struct share_req *q = a->q;
    struct share_setopt *st = &a->setopt;
    SHARE_SETOPT(st, h, CURLOPT_URL, q->url);
    SHARE_SETOPT(st, h, CURLOPT_ERRORBUFFER, detail);
    SHARE_SETOPT(st, h, CURLOPT_NOSIGNAL, 1L);
    SHARE_SETOPT(st, h, CURLOPT_USERAGENT, "sluice/0.1");
    share_restrict_protocols(st, h, "http,https,sftp", (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS | CURLPROTO_SFTP));
    SHARE_SETOPT(st, h, CURLOPT_FOLLOWLOCATION, 0L);
    SHARE_SETOPT(st, h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    SHARE_SETOPT(st, h, CURLOPT_CONNECTTIMEOUT, 15L);
    SHARE_SETOPT(st, h, CURLOPT_LOW_SPEED_LIMIT, r->opts.min_speed_bps);
    SHARE_SETOPT(st, h, CURLOPT_LOW_SPEED_TIME, r->opts.min_speed_s);
    long long left = share_time_left_ms(r);
    SHARE_SETOPT(st, h, CURLOPT_TIMEOUT_MS, (long)(left > 1 ? left : 1));
    SHARE_SETOPT(st, h, CURLOPT_SSL_VERIFYPEER, r->opts.insecure ? 0L : 1L);
    SHARE_SETOPT(st, h, CURLOPT_SSL_VERIFYHOST, r->opts.insecure ? 0L : 2L);
    SHARE_SETOPT(st, h, CURLOPT_WRITEFUNCTION, on_write);
    SHARE_SETOPT(st, h, CURLOPT_WRITEDATA, a);
    SHARE_SETOPT(st, h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->opts.max_bytes);
    if ((r->opts.progress && (q->upload_path || q->download_path)) || r->opts.cancel) {
        SHARE_SETOPT(st, h, CURLOPT_NOPROGRESS, 0L);
        SHARE_SETOPT(st, h, CURLOPT_XFERINFOFUNCTION, on_progress);
        SHARE_SETOPT(st, h, CURLOPT_XFERINFODATA, a);
    }
    if (q->cond) {
        q->cond->etag[0] = q->cond->last_modified[0] = 0;
        SHARE_SETOPT(st, h, CURLOPT_HEADERFUNCTION, on_header);
        SHARE_SETOPT(st, h, CURLOPT_HEADERDATA, q->cond);
    }
    if (q->request_body && !q->upload_path) SHARE_SETOPT(st, h, CURLOPT_POSTFIELDS, q->request_body);
    if (q->method) SHARE_SETOPT(st, h, CURLOPT_CUSTOMREQUEST, q->method);
}

/* One attempt. Returns the curl code; HTTP status in q->http_code. */
static CURLcode attempt_once(struct attempt *a, char *detail)
{
    struct share_req *q = a->q;
    CURL *h = curl_easy_init();
    if (!h) sl_die("curl_easy_init failed");
    FILE *up = NULL;
    CURLcode c = CURLE_OK;
    struct share_setopt *st = &a->setopt;
    set_common(h, a, detail);
    if (q->upload_path) {
        up = fopen(q->upload_path, "rb");
        if (!up) {
            snprintf(detail, CURL_ERROR_SIZE, "cannot read %s: %s", q->upload_path, strerror(errno));
            curl_easy_cleanup(h);
            return CURLE_READ_ERROR;
        }
        fseek(up, 0, SEEK_END);
        curl_off_t size = ftell(up);
        rewind(up);
        SHARE_SETOPT(st, h, CURLOPT_UPLOAD, 1L);
        SHARE_SETOPT(st, h, CURLOPT_READDATA, up);
        SHARE_SETOPT(st, h, CURLOPT_INFILESIZE_LARGE, size);
    }
    if (q->setup) q->setup(h, q->setup_arg, st);
    if (q->headers) SHARE_SETOPT(st, h, CURLOPT_HTTPHEADER, q->headers);
    c = st->code == CURLE_OK ? curl_easy_perform(h) : st->code;
    q->http_code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &q->http_code);
    if (a->progress_shown) {
        fputc('\n', stderr);
        a->progress_shown = false;
    }
    curl_easy_cleanup(h);
    if (up) fclose(up);
    return c;
}

int share_curl(struct share_remote *r, struct share_req *q, sl_err *e)
{
    for (int i = 0;; i++) {
        if (share_time_left_ms(r) <= 0) return deadline_fail(r, q->what, e);
        struct attempt a = { .r = r, .q = q, .fd = -1 };
        char detail[CURL_ERROR_SIZE] = "";
        free(q->body.p);
        q->body.p = NULL;
        q->body.len = 0;
        if (q->download_path) {
            a.fd = open(q->download_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (a.fd < 0) return sl_fail_errno(e, SL_EFAIL, errno, "%s: %s", q->what, q->download_path);
        }
        CURLcode c = attempt_once(&a, detail);
        if (a.setopt.code != CURLE_OK) {
            if (a.fd >= 0) close(a.fd);
            return sl_fail(e, SL_EFAIL, "%s: this libcurl (%s) refused %s (%s), so the request was not sent: "
                           "install Debian's libcurl4 (with TLS%s)", q->what, curl_version_info(CURLVERSION_NOW)->version,
                           a.setopt.option, curl_easy_strerror(a.setopt.code), strncmp(q->url, "sftp:", 5) ? "" : " and SFTP");
        }
        if (a.fd >= 0 && close(a.fd) != 0 && c == CURLE_OK) {
            a.io_error = true;
            a.io_errno = errno;
            c = CURLE_WRITE_ERROR;
        }
        char why[CURL_ERROR_SIZE + 64];
        bool retry;
        if (c != CURLE_OK) {
            retry = transient_curl(c) && !a.too_big;
            snprintf(why, sizeof why, "%s", detail[0] ? detail : curl_easy_strerror(c));
        } else {
            retry = transient_http(q->http_code);
            snprintf(why, sizeof why, "server answered %ld", q->http_code);
        }
        if (retry && i < r->opts.retries && share_time_left_ms(r) > 0) {
            backoff(r, i, why, q->what);
            if (share_cancelled(r)) return share_fail_cancelled(e, q->what);
            continue;
        }
        if (c != CURLE_OK) return curl_fail(&a, c, detail, i + 1, e);
        if (retry) {
            char url[2048];
            shown_url(q->url, url, sizeof url);
            return sl_fail(e, SL_EFAIL, "%s: %s answered %ld (a server error) %d time%s: try again later or ask its "
                           "administrator", q->what, url, q->http_code, i + 1, i ? "s" : "");
        }
        return 0;
    }
}

int share_http_ok(struct share_remote *r, const struct share_req *q, const char *detail, sl_err *e)
{
    long code = q->http_code;
    if (code >= 200 && code <= 299) return 0;
    char url[2048];
    shown_url(q->url, url, sizeof url);
    const char *d = detail && *detail ? detail : "";
    const char *sep = *d ? ": " : "";
    switch (code) {
    case 401:
        return sl_fail(e, SL_EFAIL, "%s: %s wants credentials (401%s%s): put a line 'machine HOST login USER password "
                       "PASS' in ~/.netrc (for S3 set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)", q->what, url, sep, d);
    case 403:
        return sl_fail(e, SL_EFAIL, "%s: %s refused access (403%s%s): check the credentials and that they may %s here",
                       q->what, url, sep, d, q->upload_path || (q->method && strcmp(q->method, "PROPFIND")) ? "write" : "read");
    case 404:
        return sl_fail(e, SL_EFAIL, "%s: %s does not exist (404%s%s): check the URL", q->what, url, sep, d);
    default:
        return sl_fail(e, SL_EFAIL, "%s: %s answered %ld%s%s", q->what, url, code, sep, d);
    }
}

void share_req_free(struct share_req *q)
{
    free(q->body.p);
    q->body.p = NULL;
    q->body.len = 0;
    curl_slist_free_all(q->headers);
    q->headers = NULL;
}

/* base (copied) with If-None-Match and If-Modified-Since for the
 * validators in v that are set. */
static struct curl_slist *cond_headers(const struct curl_slist *base, const struct share_validator *v)
{
    struct curl_slist *l = NULL;
    for (; base; base = base->next) l = curl_slist_append(l, base->data);
    char h[400];
    if (v && v->etag[0]) {
        snprintf(h, sizeof h, "If-None-Match: %s", v->etag);
        l = curl_slist_append(l, h);
    }
    if (v && v->last_modified[0]) {
        snprintf(h, sizeof h, "If-Modified-Since: %s", v->last_modified);
        l = curl_slist_append(l, h);
    }
    return l;
}

int share_curl_get(struct share_remote *r, struct share_req *q, const struct curl_slist *base,
                   struct share_validator *v, sl_err *e)
{
    struct share_validator had;
    if (v) {
        had = *v;
        q->cond = v;
    }
    q->headers = cond_headers(base, v);
    int rc = share_curl(r, q, e);
    if (rc == 0) rc = v && q->http_code == 304 ? 1 : share_http_ok(r, q, NULL, e);
    if (v && rc != 0) {   /* unchanged or failed: what we had stays */
        memcpy(v->etag, had.etag, sizeof v->etag);
        memcpy(v->last_modified, had.last_modified, sizeof v->last_modified);
    }
    return rc;
}

void share_escape(const char *in, char *out, size_t n)
{
    size_t j = 0;
    for (const unsigned char *c = (const unsigned char *)in; *c && j + 4 < n; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-._~", *c))
            out[j++] = (char)*c;
        else j += (size_t)snprintf(out + j, n - j, "%%%02X", *c);
    }
    out[j] = 0;
}
