/* share/webdav — http(s)://HOST/PATH on a WebDAV server (nginx dav + dav_ext,
 * Apache mod_dav, ...): MKCOL the class folder, PUT under a temporary name,
 * MOVE into place (atomic on the server), PROPFIND Depth 1 to list, GET. */
#include "share/curl.h"
#include "share/xml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* base + "/" + rel (+ "/" when a collection) */
static void url_of(struct share_remote *r, const char *rel, bool collection, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s", r->url, *rel ? "/" : "", rel, collection ? "/" : "");
}

static int simple(struct share_remote *r, const char *method, const char *url, struct curl_slist *headers,
                  const char *what, long *code, sl_err *e)
{
    struct share_req q = { .method = method, .url = url, .headers = headers, .what = what };
    int rc = share_curl(r, &q, e);
    *code = q.http_code;
    if (rc == 0 && (q.http_code < 200 || q.http_code > 299) && q.http_code != 405 && q.http_code != 409)
        rc = share_http_ok(r, &q, NULL, e);
    share_req_free(&q);
    return rc;
}

/* MKCOL the collection at url, creating missing parents (409) first.
 * 405 means it is already there. */
static int ensure_collection(struct share_remote *r, const char *url, int depth, sl_err *e)
{
    long code;
    char what[2100];
    size_t base = strlen(r->url);
    snprintf(what, sizeof what, "creating the folder %s", strncmp(url, r->url, base) == 0 && url[base] ? url + base + 1 : url);
    if (simple(r, "MKCOL", url, NULL, what, &code, e) < 0) return -1;
    if (code != 409) return code == 405 || (code >= 200 && code <= 299) ? 0 :
        sl_fail(e, SL_EFAIL, "%s: the server answered %ld", what, code);
    /* The parent is missing: make it, then try again. */
    char parent[2048];
    snprintf(parent, sizeof parent, "%s", url);
    size_t len = strlen(parent);
    if (len && parent[len - 1] == '/') parent[--len] = 0;
    char *slash = strrchr(parent, '/');
    const char *host_end = strstr(parent, "://");
    host_end = host_end ? strchr(host_end + 3, '/') : NULL;
    if (!slash || !host_end || slash <= host_end || depth > 16)
        return sl_fail(e, SL_EFAIL, "%s: the server says a parent folder is missing but it cannot be created", what);
    slash[1] = 0;
    if (ensure_collection(r, parent, depth + 1, e) < 0) return -1;
    if (simple(r, "MKCOL", url, NULL, what, &code, e) < 0) return -1;
    return code == 405 || (code >= 200 && code <= 299) ? 0 : sl_fail(e, SL_EFAIL, "%s: the server answered %ld", what, code);
}

static int webdav_put(struct share_remote *r, const char *key, const char *local_path, sl_err *e)
{
    char dir[512], tmp[600], rnd[17], url[2600], tmp_url[2600], final_url[2600], what[700];
    snprintf(dir, sizeof dir, "%s", key);
    char *slash = strrchr(dir, '/');
    if (!slash) return sl_fail(e, SL_EFAIL, "bad key %s", key);
    *slash = 0;
    url_of(r, dir, true, url, sizeof url);
    if (ensure_collection(r, url, 0, e) < 0) return -1;
    share_random_hex(rnd, sizeof rnd);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp-%s", dir, slash + 1, rnd);
    url_of(r, tmp, false, tmp_url, sizeof tmp_url);
    url_of(r, key, false, final_url, sizeof final_url);
    snprintf(what, sizeof what, "uploading %s", key);
    struct share_req q = { .url = tmp_url, .upload_path = local_path, .what = what };
    int rc = share_curl(r, &q, e);
    if (rc == 0) rc = share_http_ok(r, &q, NULL, e);
    share_req_free(&q);
    if (rc < 0) return -1;
    /* MOVE with a full Destination URL: the server renames in one step. */
    char dest[2700];
    snprintf(dest, sizeof dest, "Destination: %s", final_url);
    struct share_req m = { .method = "MOVE", .url = tmp_url, .what = what };
    m.headers = curl_slist_append(m.headers, dest);
    m.headers = curl_slist_append(m.headers, "Overwrite: T");
    rc = share_curl(r, &m, e);
    if (rc == 0) rc = share_http_ok(r, &m, "moving the upload into place", e);
    share_req_free(&m);
    if (rc < 0) {
        long code;
        sl_err ignore;
        simple(r, "DELETE", tmp_url, NULL, "removing the temporary upload", &code, &ignore);
    }
    return rc;
}

/* The path part of an href (absolute URL or path), decoded, without the
 * trailing slash. */
static void href_path(const char *href, char *buf, size_t n)
{
    const char *p = strstr(href, "://");
    if (p) {
        p = strchr(p + 3, '/');
        if (!p) p = "/";
    } else p = href;
    int len;
    char *dec = curl_easy_unescape(NULL, p, 0, &len);
    snprintf(buf, n, "%s", dec ? dec : p);
    curl_free(dec);
    size_t l = strlen(buf);
    while (l > 1 && buf[l - 1] == '/') buf[--l] = 0;
}

static int parse_multistatus(const struct share_req *q, const char *self_url, struct share_list *out, sl_err *e)
{
    xmlDocPtr doc = share_xml_parse(q->body.p, q->body.len);
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!root || strcmp((const char *)root->name, "multistatus") != 0) {
        if (doc) xmlFreeDoc(doc);
        return sl_fail(e, SL_EFAIL, "%s: the answer is not a WebDAV multistatus: is this a WebDAV server "
                       "(nginx needs dav_ext_methods PROPFIND)?", q->what);
    }
    char self[2048];
    href_path(self_url, self, sizeof self);
    for (xmlNodePtr resp = root->children; resp; resp = resp->next) {
        if (resp->type != XML_ELEMENT_NODE || strcmp((const char *)resp->name, "response") != 0) continue;
        char href[2048], path[2048], size[32];
        share_xml_text(share_xml_child(resp, "href"), href, sizeof href);
        href_path(href, path, sizeof path);
        if (strcmp(path, self) == 0) continue;
        xmlNodePtr prop = share_xml_child(share_xml_child(resp, "propstat"), "prop");
        bool dir = share_xml_child(share_xml_child(prop, "resourcetype"), "collection") != NULL;
        share_xml_text(share_xml_child(prop, "getcontentlength"), size, sizeof size);
        const char *name = strrchr(path, '/');
        name = name ? name + 1 : path;
        if (share_name_valid(name)) share_list_add(out, name, dir, *size ? atoll(size) : -1);
    }
    xmlFreeDoc(doc);
    return 0;
}

static int webdav_list(struct share_remote *r, const char *dir, struct share_list *out, sl_err *e)
{
    char url[2600], what[600];
    url_of(r, dir, true, url, sizeof url);
    snprintf(what, sizeof what, "listing %s", *dir ? dir : "the share");
    struct share_req q = { .method = "PROPFIND", .url = url, .what = what,
                           .request_body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<propfind xmlns=\"DAV:\"><prop>"
                                           "<resourcetype/><getcontentlength/></prop></propfind>\n" };
    q.headers = curl_slist_append(q.headers, "Depth: 1");
    q.headers = curl_slist_append(q.headers, "Content-Type: application/xml");
    int rc = share_curl(r, &q, e);
    if (rc == 0) {
        if (q.http_code == 404 && *dir) rc = 0;  /* no such class yet: nothing to pull */
        else if (q.http_code == 207) rc = parse_multistatus(&q, url, out, e);
        else if (q.http_code >= 200 && q.http_code <= 299)
            rc = sl_fail(e, SL_EFAIL, "%s: %s answered %ld, not a WebDAV listing: does the server support PROPFIND?",
                         what, r->shown, q.http_code);
        else rc = share_http_ok(r, &q, NULL, e);
    }
    share_req_free(&q);
    return rc;
}

static void webdav_fill(struct share_remote *r, const char *key, struct share_req *q, char *url, size_t url_n,
                        char *what, size_t what_n)
{
    url_of(r, key, false, url, url_n);
    snprintf(what, what_n, "downloading %s", key);
    q->url = url;
    q->what = what;
}

static int webdav_get(struct share_remote *r, const char *key, const char *local_path, struct share_validator *v,
                      sl_err *e)
{
    return share_curl_get_one(r, key, local_path, v, webdav_fill, NULL, e);
}

static void webdav_get_many(struct share_remote *r, struct share_get *g, int n)
{
    share_curl_get_many(r, g, n, webdav_fill, NULL);
}

static int webdav_remove(struct share_remote *r, const char *key, sl_err *e)
{
    char url[2600], what[600];
    url_of(r, key, false, url, sizeof url);
    snprintf(what, sizeof what, "removing %s", key);
    struct share_req q = { .method = "DELETE", .url = url, .what = what };
    int rc = share_curl(r, &q, e);
    if (rc == 0 && q.http_code != 404) rc = share_http_ok(r, &q, NULL, e);
    share_req_free(&q);
    return rc;
}

static const char *const webdav_schemes[] = { "http", "https", NULL };
const struct share_transport share_webdav_transport = {
    .name = "webdav", .schemes = webdav_schemes, .uses_curl = true,
    .put = webdav_put, .list = webdav_list, .get = webdav_get, .get_many = webdav_get_many,
    .remove = webdav_remove,
};
