/* share/curl — the libcurl request runner shared by webdav, s3 and sftp. */
#include "share/curl.h"
#include "db/store_share.h"
#include "core/units.h"

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
    bool quiet;                 /* one of a batch: no progress line of its own */
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
        { "date:", offsetof(struct share_validator, date), sizeof ((struct share_validator *)0)->date },
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
    if (!a->r->opts.progress || a->quiet || !(a->q->upload_path || a->q->download_path) || total <= 0) return 0;
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

/* The wait before retry attempt+1, said on stderr. */
static long backoff_note(struct share_remote *r, int attempt, const char *why, const char *what)
{
    long ms = r->opts.retry_base_ms << (attempt < 5 ? attempt : 5);
    if (ms > 8000) ms = 8000;
    if (!r->opts.cancel)
        fprintf(stderr, "sluice: %s: %s; retry %d of %d in %.1f s\n", what, why, attempt + 1, r->opts.retries, ms / 1000.0);
    return ms;
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
        q->cond->etag[0] = q->cond->last_modified[0] = q->cond->date[0] = 0;
        SHARE_SETOPT(st, h, CURLOPT_HEADERFUNCTION, on_header);
        SHARE_SETOPT(st, h, CURLOPT_HEADERDATA, q->cond);
    }
    if (q->request_body && !q->upload_path) SHARE_SETOPT(st, h, CURLOPT_POSTFIELDS, q->request_body);
    if (q->method) SHARE_SETOPT(st, h, CURLOPT_CUSTOMREQUEST, q->method);
    if (q->no_body) SHARE_SETOPT(st, h, CURLOPT_NOBODY, 1L);
}

/* One request of a batch, across its attempts. */
struct xfer {
    struct attempt a;           /* this attempt's (reset for each) */
    sl_err *e;
    int rc;                     /* when done: 0 a response arrived, -1 e says why not */
    int tries;                  /* attempts finished */
    long long start_ms;         /* the next attempt not before this (backoff) */
    CURL *h;
    FILE *up;
    char detail[CURL_ERROR_SIZE];
    enum { XFER_WAITING, XFER_RUNNING, XFER_DONE } state;
};

/* The remote's multi handle: every request of the remote runs through it,
 * so its connection cache keeps connections open from one request to the
 * next (one TCP, TLS or SSH handshake for a whole pull, not one per
 * object). */
static CURLM *pool_of(struct share_remote *r)
{
    if (r->pool) return r->pool;
    CURLM *m = curl_multi_init();
    if (!m) sl_die("curl_multi_init failed");
    /* Idle connections kept: enough for a batch at --parallel's ceiling. A
     * refused option only means libcurl's default (4 per handle added). */
    if (curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)SHARE_PARALLEL_MAX) != CURLM_OK)
        fprintf(stderr, "sluice: note: this libcurl keeps fewer connections open\n");
    r->pool = m;
    return m;
}

void share_curl_release(struct share_remote *r)
{
    if (r->pool) curl_multi_cleanup(r->pool);
    r->pool = NULL;
}

static void xfer_done(struct xfer *x, int rc)
{
    x->state = XFER_DONE;
    x->rc = rc;
}

static void xfer_finish_code(CURLM *m, struct xfer *x, CURLcode c);

/* Set up an attempt and hand it to the multi handle (or end x: the file
 * cannot be created, an option was refused). */
static void xfer_start(CURLM *m, struct xfer *x)
{
    struct share_remote *r = x->a.r;
    struct share_req *q = x->a.q;
    if (share_time_left_ms(r) <= 0) {
        xfer_done(x, deadline_fail(r, q->what, x->e));
        return;
    }
    bool quiet = x->a.quiet;
    x->a = (struct attempt){ .r = r, .q = q, .fd = -1, .quiet = quiet };
    x->detail[0] = 0;
    free(q->body.p);
    q->body.p = NULL;
    q->body.len = 0;
    if (q->download_path) {
        x->a.fd = open(q->download_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (x->a.fd < 0) {
            xfer_done(x, sl_fail_errno(x->e, SL_EFAIL, errno, "%s: %s", q->what, q->download_path));
            return;
        }
    }
    CURL *h = curl_easy_init();
    if (!h) sl_die("curl_easy_init failed");
    struct share_setopt *st = &x->a.setopt;
    set_common(h, &x->a, x->detail);
    if (q->upload_path) {
        x->up = fopen(q->upload_path, "rb");
        if (!x->up) {
            snprintf(x->detail, CURL_ERROR_SIZE, "cannot read %s: %s", q->upload_path, strerror(errno));
            curl_easy_cleanup(h);
            x->state = XFER_RUNNING;
            xfer_finish_code(m, x, CURLE_READ_ERROR);
            return;
        }
        fseek(x->up, 0, SEEK_END);
        curl_off_t size = ftell(x->up);
        rewind(x->up);
        SHARE_SETOPT(st, h, CURLOPT_UPLOAD, 1L);
        SHARE_SETOPT(st, h, CURLOPT_READDATA, x->up);
        SHARE_SETOPT(st, h, CURLOPT_INFILESIZE_LARGE, size);
    }
    if (q->setup) q->setup(h, q->setup_arg, st);
    if (q->headers) SHARE_SETOPT(st, h, CURLOPT_HTTPHEADER, q->headers);
    SHARE_SETOPT(st, h, CURLOPT_PRIVATE, (void *)x);
    if (st->code != CURLE_OK) {
        curl_easy_cleanup(h);
        if (x->up) fclose(x->up);
        x->up = NULL;
        if (x->a.fd >= 0) close(x->a.fd);
        x->a.fd = -1;
        xfer_done(x, sl_fail(x->e, SL_EFAIL, "%s: this libcurl (%s) refused %s (%s), so the request was not sent: "
                             "install Debian's libcurl4 (with TLS%s)", q->what,
                             curl_version_info(CURLVERSION_NOW)->version, st->option, curl_easy_strerror(st->code),
                             strncmp(q->url, "sftp:", 5) ? "" : " and SFTP"));
        return;
    }
    x->h = h;
    x->state = XFER_RUNNING;
    CURLMcode mc = curl_multi_add_handle(m, h);
    if (mc != CURLM_OK) {
        snprintf(x->detail, CURL_ERROR_SIZE, "%s", curl_multi_strerror(mc));
        xfer_finish_code(m, x, CURLE_FAILED_INIT);
    }
}

/* An attempt ended with c: x is done, or waits out a backoff to try again
 * (transient failures, as share_curl says). */
static void xfer_finish_code(CURLM *m, struct xfer *x, CURLcode c)
{
    struct attempt *a = &x->a;
    struct share_req *q = a->q;
    struct share_remote *r = a->r;
    q->http_code = 0;
    if (x->h) {
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &q->http_code);
        curl_multi_remove_handle(m, x->h);
        curl_easy_cleanup(x->h);
        x->h = NULL;
    }
    if (a->progress_shown) {
        fputc('\n', stderr);
        a->progress_shown = false;
    }
    if (x->up) fclose(x->up);
    x->up = NULL;
    if (a->fd >= 0 && close(a->fd) != 0 && c == CURLE_OK) {
        a->io_error = true;
        a->io_errno = errno;
        c = CURLE_WRITE_ERROR;
    }
    a->fd = -1;
    int tries = ++x->tries;
    char why[CURL_ERROR_SIZE + 64];
    bool retry;
    if (c != CURLE_OK) {
        retry = transient_curl(c) && !a->too_big;
        snprintf(why, sizeof why, "%s", x->detail[0] ? x->detail : curl_easy_strerror(c));
    } else {
        retry = transient_http(q->http_code);
        snprintf(why, sizeof why, "server answered %ld", q->http_code);
    }
    if (retry && tries <= r->opts.retries && share_time_left_ms(r) > 0) {
        x->start_ms = units_monotonic_ms() + backoff_note(r, tries - 1, why, q->what);
        x->state = XFER_WAITING;
        return;
    }
    if (c != CURLE_OK) {
        xfer_done(x, curl_fail(a, c, x->detail, tries, x->e));
        return;
    }
    if (retry) {
        char url[2048];
        shown_url(q->url, url, sizeof url);
        xfer_done(x, sl_fail(x->e, SL_EFAIL, "%s: %s answered %ld (a server error) %d time%s: try again later or "
                             "ask its administrator", q->what, url, q->http_code, tries, tries > 1 ? "s" : ""));
        return;
    }
    xfer_done(x, 0);
}

/* "downloading: 12 of 40" on a terminal, for a batch. */
static void batch_progress(const struct share_remote *r, const struct xfer *x, int n, bool last)
{
    if (!r->opts.progress || n < 2) return;
    int done = 0;
    for (int i = 0; i < n; i++) done += x[i].state == XFER_DONE;
    fprintf(stderr, "\r  %s: %d of %d   %s", x[0].a.q->download_path ? "downloading" : "requests", done, n,
            last ? "\n" : "");
}

/* Run every request of x to its end: at most `parallel` at once, each
 * retried on its own, all over the remote's connections. */
static void run_batch(struct share_remote *r, struct xfer *x, int n, int parallel)
{
    CURLM *m = pool_of(r);
    for (;;) {
        long long now = units_monotonic_ms(), wake = now + 100;
        int running = 0, open = 0;
        for (int i = 0; i < n; i++) running += x[i].state == XFER_RUNNING;
        for (int i = 0; i < n; i++) {
            if (x[i].state != XFER_WAITING) continue;
            if (share_cancelled(r)) xfer_done(&x[i], share_fail_cancelled(x[i].e, x[i].a.q->what));
            else if (x[i].start_ms <= now && running < parallel) {
                xfer_start(m, &x[i]);
                running += x[i].state == XFER_RUNNING;
            } else if (x[i].start_ms > now && x[i].start_ms < wake) wake = x[i].start_ms;
        }
        for (int i = 0; i < n; i++) open += x[i].state != XFER_DONE;
        if (!open) break;
        int still;
        CURLMcode mc = curl_multi_perform(m, &still);
        bool ended = false;
        CURLMsg *msg;
        int queued;
        while ((msg = curl_multi_info_read(m, &queued))) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL *h = msg->easy_handle;
            CURLcode c = msg->data.result;
            struct xfer *done = NULL;
            curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&done);
            if (done) xfer_finish_code(m, done, c);
            ended = true;
        }
        if (mc != CURLM_OK) {   /* the multi handle itself failed: every running request with it */
            for (int i = 0; i < n; i++)
                if (x[i].state == XFER_RUNNING) {
                    snprintf(x[i].detail, CURL_ERROR_SIZE, "%s", curl_multi_strerror(mc));
                    xfer_finish_code(m, &x[i], CURLE_FAILED_INIT);
                }
            ended = true;
        }
        if (ended) {
            batch_progress(r, x, n, false);
            continue;
        }
        long long wait = wake - units_monotonic_ms();
        curl_multi_poll(m, NULL, 0, (int)(wait < 0 ? 0 : wait > 100 ? 100 : wait), NULL);
    }
    batch_progress(r, x, n, true);
}

int share_curl(struct share_remote *r, struct share_req *q, sl_err *e)
{
    struct xfer x = { .a = { .r = r, .q = q, .fd = -1 }, .e = e };
    run_batch(r, &x, 1, 1);
    return x.rc;
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

/* Validators taken in the second the file last changed are not kept (RFC
 * 9110 8.8.2.2: a Last-Modified is strong only when at least a second
 * before the response's Date): nginx's ETag and Last-Modified have
 * one-second resolution, so a file rewritten later in that second with the
 * same length keeps them, and a pull asking with them would be told 304
 * and miss the change (bench/fleet's one-change pull at a few hosts did,
 * every time). Such a file is fetched whole next time. A Last-Modified in
 * the future is as fresh; without one (or a Date: the local clock), an
 * ETag alone is kept (S3's is the content's hash). */
static void drop_too_fresh(struct share_validator *v)
{
    time_t lm = v->last_modified[0] ? curl_getdate(v->last_modified, NULL) : -1;
    time_t date = v->date[0] ? curl_getdate(v->date, NULL) : -1;
    if (date < 0) date = time(NULL);
    if (lm >= 0 && lm >= date) v->etag[0] = v->last_modified[0] = 0;
}

void share_curl_get_many(struct share_remote *r, struct share_get *g, int n, share_get_fill *fill,
                         const struct curl_slist *base)
{
    struct xfer *x = xcalloc((size_t)n, sizeof *x);
    struct share_req *q = xcalloc((size_t)n, sizeof *q);
    struct share_validator *had = xcalloc((size_t)n, sizeof *had);
    char (*url)[2600] = xcalloc((size_t)n, sizeof *url), (*what)[600] = xcalloc((size_t)n, sizeof *what);
    for (int i = 0; i < n; i++) {
        fill(r, g[i].key, &q[i], url[i], sizeof url[i], what[i], sizeof what[i]);
        q[i].download_path = g[i].local_path;
        struct share_validator *v = g[i].v;
        /* SFTP has no validators: always fetched, v cleared. */
        bool sftp = strncmp(q[i].url, "sftp:", 5) == 0;
        if (v && sftp) v->etag[0] = v->last_modified[0] = 0;
        if (v && !sftp) {
            had[i] = *v;
            q[i].cond = v;
        }
        q[i].headers = cond_headers(base, sftp ? NULL : v);
        x[i] = (struct xfer){ .a = { .r = r, .q = &q[i], .fd = -1, .quiet = n > 1 }, .e = &g[i].err };
    }
    int parallel = r->opts.parallel > 0 ? r->opts.parallel : SHARE_DEFAULT_PARALLEL;
    run_batch(r, x, n, parallel < SHARE_PARALLEL_MAX ? parallel : SHARE_PARALLEL_MAX);
    for (int i = 0; i < n; i++) {
        struct share_validator *v = q[i].cond;
        int rc = x[i].rc;
        if (rc == 0 && strncmp(q[i].url, "sftp:", 5) != 0)
            rc = v && q[i].http_code == 304 ? 1 : share_http_ok(r, &q[i], NULL, &g[i].err);
        if (v && rc != 0) {   /* unchanged or failed: what we had stays */
            memcpy(v->etag, had[i].etag, sizeof v->etag);
            memcpy(v->last_modified, had[i].last_modified, sizeof v->last_modified);
        } else if (v) {
            drop_too_fresh(v);
        }
        g[i].rc = rc;
        share_req_free(&q[i]);
    }
    free(x);
    free(q);
    free(had);
    free(url);
    free(what);
}

void share_get_failed(struct share_get *g, int n, const sl_err *e)
{
    for (int i = 0; i < n; i++) {
        g[i].rc = -1;
        g[i].err = *e;
    }
}

int share_curl_get_one(struct share_remote *r, const char *key, const char *local_path, struct share_validator *v,
                       share_get_fill *fill, const struct curl_slist *base, sl_err *e)
{
    struct share_get g = { .key = key, .local_path = local_path, .v = v };
    share_curl_get_many(r, &g, 1, fill, base);
    if (g.rc < 0 && e) *e = g.err;
    return g.rc;
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
