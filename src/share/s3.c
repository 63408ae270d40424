/* share/s3 — s3://BUCKET/PREFIX on AWS or any S3-compatible store
 * (--endpoint), path-style URLs, requests signed with AWS Signature V4 by
 * libcurl (CURLOPT_AWS_SIGV4). A PUT is atomic: the object appears whole. */
#include "share/curl.h"
#include "share/xml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct s3 {
    char endpoint[1024];      /* https://s3.REGION.amazonaws.com or --endpoint */
    char bucket[128];
    char prefix[512];         /* "" or "a/b" */
    char sigv4[160];          /* aws:amz:REGION:s3 */
    const char *key_id, *secret, *token;
    struct curl_slist *headers;
};

static bool bucket_valid(const char *b)
{
    size_t n = strlen(b);
    if (n < 3 || n > 63) return false;
    for (const char *p = b; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-')) return false;
    return true;
}

static int s3_setup(struct share_remote *r, sl_err *e)
{
    if (r->priv) return 0;
    struct s3 *s = xcalloc(1, sizeof *s);
    const char *rest = r->url + strlen("s3://");
    const char *slash = strchr(rest, '/');
    snprintf(s->bucket, sizeof s->bucket, "%.*s", slash ? (int)(slash - rest) : (int)strlen(rest), rest);
    snprintf(s->prefix, sizeof s->prefix, "%s", slash ? slash + 1 : "");
    if (!bucket_valid(s->bucket)) {
        free(s);
        return sl_fail(e, SL_EUSAGE, "%s: \"%.100s\" is not an S3 bucket name (3-63 of a-z 0-9 . -)", r->shown,
                       rest);
    }
    char copy[512];
    snprintf(copy, sizeof copy, "%s", s->prefix);
    for (char *save, *seg = strtok_r(copy, "/", &save); seg; seg = strtok_r(NULL, "/", &save))
        if (!share_name_valid(seg)) {
            free(s);
            return sl_fail(e, SL_EUSAGE, "%s: prefix part \"%s\" must be letters, digits, '.', '_' or '-'", r->shown, seg);
        }
    const char *region = r->opts.region;
    if (!region || !*region) region = getenv("AWS_REGION");
    if (!region || !*region) region = getenv("AWS_DEFAULT_REGION");
    if (!region || !*region) region = "us-east-1";
    for (const char *p = region; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) {
            free(s);
            return sl_fail(e, SL_EUSAGE, "region \"%s\" is not a region name (like eu-west-1)", region);
        }
    if (r->opts.endpoint && *r->opts.endpoint) {
        if (strncmp(r->opts.endpoint, "http://", 7) && strncmp(r->opts.endpoint, "https://", 8)) {
            free(s);
            return sl_fail(e, SL_EUSAGE, "--endpoint %s: give http(s)://HOST[:PORT]", r->opts.endpoint);
        }
        snprintf(s->endpoint, sizeof s->endpoint, "%s", r->opts.endpoint);
        size_t n = strlen(s->endpoint);
        while (n && s->endpoint[n - 1] == '/') s->endpoint[--n] = 0;
    } else
        snprintf(s->endpoint, sizeof s->endpoint, "https://s3.%s.amazonaws.com", region);
    share_s3_sigv4_param(region, s->sigv4, sizeof s->sigv4);
    /* Only from the environment (or ~/.netrc for the endpoint): never argv. */
    s->key_id = getenv("AWS_ACCESS_KEY_ID");
    s->secret = getenv("AWS_SECRET_ACCESS_KEY");
    s->token = getenv("AWS_SESSION_TOKEN");
    /* S3 wants the payload hash in a header; UNSIGNED-PAYLOAD lets a large
     * upload stream instead of being hashed first (TLS protects it). */
    s->headers = curl_slist_append(NULL, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (s->token && *s->token) {
        char h[4096];
        snprintf(h, sizeof h, "x-amz-security-token: %s", s->token);
        s->headers = curl_slist_append(s->headers, h);
    }
    r->priv = s;
    return 0;
}

void share_s3_sigv4_param(const char *region, char *buf, size_t n) { snprintf(buf, n, "aws:amz:%s:s3", region); }

void share_s3_sign(CURL *h, const char *sigv4_param, const char *key_id, const char *secret,
                   struct curl_slist *headers, struct share_setopt *st)
{
    share_restrict_protocols(st, h, "http,https", (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    SHARE_SETOPT(st, h, CURLOPT_AWS_SIGV4, sigv4_param);
    if (key_id && *key_id) SHARE_SETOPT(st, h, CURLOPT_USERNAME, key_id);
    if (secret && *secret) SHARE_SETOPT(st, h, CURLOPT_PASSWORD, secret);
    SHARE_SETOPT(st, h, CURLOPT_HTTPHEADER, headers);
}

static void sign(CURL *h, void *arg, struct share_setopt *st)
{
    struct s3 *s = arg;
    share_s3_sign(h, s->sigv4, s->key_id, s->secret, s->headers, st);
}

static void object_url(struct s3 *s, const char *key, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s/%s%s%s", s->endpoint, s->bucket, s->prefix, *s->prefix ? "/" : "", key);
}

static int s3_result(struct share_remote *r, struct share_req *q, sl_err *e)
{
    if (q->http_code >= 200 && q->http_code <= 299) return 0;
    char detail[512] = "";
    if (q->body.p) share_xml_s3_error(q->body.p, q->body.len, detail, sizeof detail);
    return share_http_ok(r, q, detail, e);
}

static int s3_put(struct share_remote *r, const char *key, const char *local_path, sl_err *e)
{
    if (s3_setup(r, e) < 0) return -1;
    struct s3 *s = r->priv;
    char url[2600], what[600];
    object_url(s, key, url, sizeof url);
    snprintf(what, sizeof what, "uploading %s", key);
    struct share_req q = { .url = url, .upload_path = local_path, .what = what, .setup = sign, .setup_arg = s };
    int rc = share_curl(r, &q, e);
    if (rc == 0) rc = s3_result(r, &q, e);
    share_req_free(&q);
    return rc;
}

/* ListObjectsV2 with a delimiter: one folder level, pages followed. The
 * query is built already sorted and escaped, as SigV4 canonicalises it. */
static int s3_list(struct share_remote *r, const char *dir, struct share_list *out, sl_err *e)
{
    if (s3_setup(r, e) < 0) return -1;
    struct s3 *s = r->priv;
    char prefix[1100], eprefix[3400], token[1024] = "", what[600];
    snprintf(prefix, sizeof prefix, "%s%s%s%s", s->prefix, *s->prefix ? "/" : "", dir, *dir ? "/" : "");
    share_escape(prefix, eprefix, sizeof eprefix);
    snprintf(what, sizeof what, "listing %s", *dir ? dir : "the bucket");
    size_t plen = strlen(prefix);
    for (int page = 0; page < 1000; page++) {
        char url[8192], etoken[3100];
        share_escape(token, etoken, sizeof etoken);
        snprintf(url, sizeof url, "%s/%s?%s%s%sdelimiter=%%2F&list-type=2&prefix=%s", s->endpoint, s->bucket,
                 *token ? "continuation-token=" : "", etoken, *token ? "&" : "", eprefix);
        struct share_req q = { .url = url, .what = what, .setup = sign, .setup_arg = s };
        int rc = share_curl(r, &q, e);
        if (rc == 0) rc = s3_result(r, &q, e);
        xmlDocPtr doc = rc == 0 ? share_xml_parse(q.body.p, q.body.len) : NULL;
        xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
        share_req_free(&q);
        if (rc < 0) return -1;
        if (!root || strcmp((const char *)root->name, "ListBucketResult") != 0) {
            if (doc) xmlFreeDoc(doc);
            return sl_fail(e, SL_EFAIL, "%s: %s did not answer with an S3 listing: is --endpoint an S3 server?", what,
                           r->shown);
        }
        char buf[1100], truncated[16];
        for (xmlNodePtr n = root->children; n; n = n->next) {
            if (n->type != XML_ELEMENT_NODE) continue;
            bool is_dir = strcmp((const char *)n->name, "CommonPrefixes") == 0;
            if (!is_dir && strcmp((const char *)n->name, "Contents") != 0) continue;
            share_xml_text(share_xml_child(n, is_dir ? "Prefix" : "Key"), buf, sizeof buf);
            if (strncmp(buf, prefix, plen) != 0) continue;
            char *name = buf + plen;
            size_t l = strlen(name);
            if (is_dir && l && name[l - 1] == '/') name[l - 1] = 0;
            char size[32];
            share_xml_text(share_xml_child(n, "Size"), size, sizeof size);
            if (share_name_valid(name)) share_list_add(out, name, is_dir, *size ? atoll(size) : -1);
        }
        share_xml_text(share_xml_child(root, "IsTruncated"), truncated, sizeof truncated);
        share_xml_text(share_xml_child(root, "NextContinuationToken"), token, sizeof token);
        xmlFreeDoc(doc);
        if (strcmp(truncated, "true") != 0 || !*token) return 0;
    }
    return sl_fail(e, SL_EFAIL, "%s: more than 1000 pages of objects: narrow the prefix", what);
}

static void s3_fill(struct share_remote *r, const char *key, struct share_req *q, char *url, size_t url_n, char *what,
                    size_t what_n)
{
    struct s3 *s = r->priv;
    object_url(s, key, url, url_n);
    snprintf(what, what_n, "downloading %s", key);
    q->url = url;
    q->what = what;
    q->setup = sign;
    q->setup_arg = s;
}

/* An error document goes to the file: share_http_ok names the status. */
static void s3_get_many(struct share_remote *r, struct share_get *g, int n)
{
    sl_err e;
    if (s3_setup(r, &e) < 0) {
        share_get_failed(g, n, &e);
        return;
    }
    share_curl_get_many(r, g, n, s3_fill, ((struct s3 *)r->priv)->headers);
}

static int s3_get(struct share_remote *r, const char *key, const char *local_path, struct share_validator *v,
                  sl_err *e)
{
    if (s3_setup(r, e) < 0) return -1;
    return share_curl_get_one(r, key, local_path, v, s3_fill, ((struct s3 *)r->priv)->headers, e);
}

static int s3_remove(struct share_remote *r, const char *key, sl_err *e)
{
    if (s3_setup(r, e) < 0) return -1;
    struct s3 *s = r->priv;
    char url[2600], what[600];
    object_url(s, key, url, sizeof url);
    snprintf(what, sizeof what, "removing %s", key);
    struct share_req q = { .method = "DELETE", .url = url, .what = what, .setup = sign, .setup_arg = s };
    int rc = share_curl(r, &q, e);
    if (rc == 0 && q.http_code != 404) rc = s3_result(r, &q, e);
    share_req_free(&q);
    return rc;
}

static void s3_close(struct share_remote *r)
{
    struct s3 *s = r->priv;
    curl_slist_free_all(s->headers);
}

static const char *const s3_schemes[] = { "s3", NULL };
const struct share_transport share_s3_transport = {
    .name = "s3", .schemes = s3_schemes, .uses_curl = true, .put = s3_put, .list = s3_list, .get = s3_get,
    .get_many = s3_get_many, .remove = s3_remove, .close = s3_close,
};
