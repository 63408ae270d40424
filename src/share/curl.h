/* share/curl — one libcurl request the way every transport wants it: TLS
 * verified, credentials from ~/.netrc, progress on a terminal, retries with
 * backoff on transient failures, messages that say what to do. */
#ifndef SLUICE_SHARE_CURL_H
#define SLUICE_SHARE_CURL_H

#include <curl/curl.h>
#include "share/share.h"

/* The first option libcurl refused while a request was being set up. A
 * request with an option refused is not sent: the option left out could be
 * the certificate check or the protocol restriction. */
struct share_setopt {
    CURLcode code;          /* CURLE_OK while every option took */
    const char *option;     /* "CURLOPT_URL" */
};
/* curl_easy_setopt(h, opt, val), its failure kept in *st (the first one). */
#define SHARE_SETOPT(st, h, opt, val) share_setopt_note((st), #opt, curl_easy_setopt((h), (opt), (val)))
void share_setopt_note(struct share_setopt *st, const char *option, CURLcode c);
/* Let h speak only these protocols: by name ("http,https") through
 * CURLOPT_PROTOCOLS_STR (libcurl 7.85), else, on an older libcurl, by the
 * CURLPROTO_* mask. Never left unrestricted: when neither takes, *st says so. */
void share_restrict_protocols(struct share_setopt *st, CURL *h, const char *names, long mask);

/* A response body kept in memory, capped (listings, error documents). */
struct share_buf {
    char *p;
    size_t len;
};

struct share_req {
    const char *method;           /* NULL: GET, or PUT with upload_path */
    const char *url;
    struct curl_slist *headers;   /* set after setup's, replacing them */
    const char *upload_path;      /* body sent from this file */
    const char *request_body;     /* body sent from memory (PROPFIND) */
    const char *download_path;    /* body saved to this file (0600), capped */
    bool no_body;                 /* ask for no body (SFTP: only whether the file is there) */
    struct share_buf body;        /* else the body, up to 4 MiB, NUL-terminated */
    const char *what;             /* "uploading KEY": for messages */
    /* Transport extras applied on each attempt (signing, SFTP commands),
     * with SHARE_SETOPT into st. */
    void (*setup)(CURL *h, void *arg, struct share_setopt *st);
    void *setup_arg;
    long http_code;               /* out: the final status (0 for SFTP) */
    /* A conditional GET (share_curl_get_many): the response's ETag and
     * Last-Modified are written here. */
    struct share_validator *cond;
};

/* Run the request, retrying transient failures (no connection, timeouts,
 * cut-short transfers, HTTP 408/429/5xx) opts.retries times with doubling
 * backoff, over a connection the remote keeps open for its next request.
 * 0 when a response arrived (check http_code: see share_http_ok), -1 with
 * a message otherwise. Frees nothing of q but q->body on error. */
int share_curl(struct share_remote *r, struct share_req *q, sl_err *e);
/* 0 for a 2xx status; else -1 with the message a person needs for 401, 403,
 * 404 and the rest (detail, e.g. an S3 error code, appended when given). */
int share_http_ok(struct share_remote *r, const struct share_req *q, const char *detail, sl_err *e);
void share_req_free(struct share_req *q);
/* How a curl transport asks for key: q's url (written into url), what
 * (into what), setup and setup_arg. */
typedef void share_get_fill(struct share_remote *r, const char *key, struct share_req *q, char *url, size_t url_n,
                            char *what, size_t what_n);
/* share_transport.get_many for a curl transport: each of g as fill makes
 * it, sent with the headers base (NULL: none) and, where g[i].v is set and
 * the scheme has validators, conditional on it (get's contract each: 1
 * unchanged and v as it was, 0 fetched and v the server's, -1 err naming
 * the status). At most opts.parallel (SHARE_DEFAULT_PARALLEL) at once, all
 * over the remote's kept connections; each is retried on its own. */
void share_curl_get_many(struct share_remote *r, struct share_get *g, int n, share_get_fill *fill,
                         const struct curl_slist *base);
/* The same for one key (share_transport.get): its rc, e set on -1. */
int share_curl_get_one(struct share_remote *r, const char *key, const char *local_path, struct share_validator *v,
                       share_get_fill *fill, const struct curl_slist *base, sl_err *e);
/* Every g[i] failed with e (the transport could not be set up). */
void share_get_failed(struct share_get *g, int n, const sl_err *e);
/* Close the connections r keeps (share_close). */
void share_curl_release(struct share_remote *r);
/* "x y" -> "x%20y": every byte but unreserved ones escaped (RFC 3986). */
void share_escape(const char *in, char *out, size_t n);

/* How s3.c has libcurl sign a request with AWS Signature V4 for S3 in
 * `region` (exposed so that a unit test can hold it to AWS's published
 * examples): the CURLOPT_AWS_SIGV4 parameter, then the options set on each
 * attempt. key_id and secret may be NULL (unsigned). */
void share_s3_sigv4_param(const char *region, char *buf, size_t n);
void share_s3_sign(CURL *h, const char *sigv4_param, const char *key_id, const char *secret,
                   struct curl_slist *headers, struct share_setopt *st);

#endif
