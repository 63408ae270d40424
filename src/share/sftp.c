/* share/sftp — sftp://[USER@]HOST[:PORT]/PATH through libcurl's SFTP (built
 * with libssh2 on Debian). Host keys are checked against ~/.ssh/known_hosts
 * unless --insecure; logins use the SSH agent, ~/.ssh keys or ~/.netrc.
 * Uploads go to a temporary name and are renamed into place; SFTP v3 cannot
 * rename over an existing file, so the old object is removed just before:
 * a reader may, for that instant, miss it, but never sees half of one.
 * Removing (prune, a class left) is an "rm" after looking at the file. */
#include "share/curl.h"
#include "db/store_share.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sftp {
    char known_hosts[1024];
    char key[1024];           /* private key file, "" for libcurl's default */
    struct curl_slist *quote;
};

/* libcurl tries one key file, by default ~/.ssh/id_rsa only; and libssh2
 * before 1.11 signs with an RSA key the SHA-1 way (ssh-rsa), which OpenSSH
 * servers refuse since 8.8. So the first of the keys ssh-keygen makes today
 * that exists is the one offered; none: libcurl's default (and the agent). */
static void pick_key(const char *home, char *buf, size_t n)
{
    static const char *const names[] = { "id_ed25519", "id_ecdsa", "id_rsa" };
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(buf, n, "%s/.ssh/%s", home, names[i]);
        if (access(buf, R_OK) == 0) return;
    }
    buf[0] = 0;
}

static int sftp_check(struct share_remote *r, sl_err *e)
{
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    bool have = false;
    for (const char *const *p = v->protocols; p && *p; p++) have |= strcmp(*p, "sftp") == 0;
    if (!have)
        return sl_fail(e, SL_EFAIL, "%s: this libcurl (%s) was built without SFTP support (libssh2): use file://, "
                       "https:// (WebDAV) or s3:// instead, or install a libcurl with SFTP", r->shown, v->version);
    if (!r->priv) {
        struct sftp *s = xcalloc(1, sizeof *s);
        const char *home = getenv("HOME");
        snprintf(s->known_hosts, sizeof s->known_hosts, "%s/.ssh/known_hosts", home && *home ? home : "/root");
        pick_key(home && *home ? home : "/root", s->key, sizeof s->key);
        r->priv = s;
    }
    return 0;
}

static void setup(CURL *h, void *arg, struct share_setopt *st)
{
    struct share_remote *r = arg;
    struct sftp *s = r->priv;
    share_restrict_protocols(st, h, "sftp", (long)CURLPROTO_SFTP);
    SHARE_SETOPT(st, h, CURLOPT_SSH_AUTH_TYPES, (long)(CURLSSH_AUTH_PUBLICKEY | CURLSSH_AUTH_PASSWORD |
                                                        CURLSSH_AUTH_AGENT | CURLSSH_AUTH_KEYBOARD));
    if (s->key[0]) SHARE_SETOPT(st, h, CURLOPT_SSH_PRIVATE_KEYFILE, s->key);
    if (!r->opts.insecure) SHARE_SETOPT(st, h, CURLOPT_SSH_KNOWNHOSTS, s->known_hosts);
    SHARE_SETOPT(st, h, CURLOPT_FTP_CREATE_MISSING_DIRS, (long)CURLFTP_CREATE_DIR_RETRY);
    if (s->quote) SHARE_SETOPT(st, h, CURLOPT_POSTQUOTE, s->quote);
}

/* The server-side path of a URL (after host[:port]), percent-decoded. */
static void server_path(const char *url, char *buf, size_t n)
{
    const char *p = strchr(url + strlen("sftp://"), '/');
    int len;
    char *dec = curl_easy_unescape(NULL, p ? p : "/", 0, &len);
    /* sftp://host/~/dir means dir under the login's home */
    const char *q = dec ? dec : "/";
    if (strncmp(q, "/~/", 3) == 0) q += 3;
    snprintf(buf, n, "%s", q);
    curl_free(dec);
}

static int sftp_put(struct share_remote *r, const char *key, const char *local_path, sl_err *e)
{
    if (sftp_check(r, e) < 0) return -1;
    struct sftp *s = r->priv;
    char dir[512], rnd[17], tmp_url[2600], final_url[2600], tmp_path[2600], final_path[2600], what[600];
    snprintf(dir, sizeof dir, "%s", key);
    char *slash = strrchr(dir, '/');
    if (!slash) return sl_fail(e, SL_EFAIL, "bad key %s", key);
    *slash = 0;
    share_random_hex(rnd, sizeof rnd);
    snprintf(tmp_url, sizeof tmp_url, "%s/%s/.%s.tmp-%s", r->url, dir, slash + 1, rnd);
    snprintf(final_url, sizeof final_url, "%s/%s", r->url, key);
    server_path(tmp_url, tmp_path, sizeof tmp_path);
    server_path(final_url, final_path, sizeof final_path);
    char rm[2700], mv[5400];
    snprintf(rm, sizeof rm, "*rm \"%s\"", final_path);  /* '*': a missing old object is fine */
    snprintf(mv, sizeof mv, "rename \"%s\" \"%s\"", tmp_path, final_path);
    s->quote = curl_slist_append(NULL, rm);
    s->quote = curl_slist_append(s->quote, mv);
    snprintf(what, sizeof what, "uploading %s", key);
    struct share_req q = { .url = tmp_url, .upload_path = local_path, .what = what, .setup = setup, .setup_arg = r };
    int rc = share_curl(r, &q, e);
    share_req_free(&q);
    curl_slist_free_all(s->quote);
    s->quote = NULL;
    return rc;
}

static int sftp_list(struct share_remote *r, const char *dir, struct share_list *out, sl_err *e)
{
    if (sftp_check(r, e) < 0) return -1;
    char url[2600], what[600];
    snprintf(url, sizeof url, "%s%s%s/", r->url, *dir ? "/" : "", dir);
    snprintf(what, sizeof what, "listing %s", *dir ? dir : "the share");
    struct share_req q = { .url = url, .what = what, .setup = setup, .setup_arg = r };
    sl_err inner;
    int rc = share_curl(r, &q, &inner);
    if (rc < 0) {
        share_req_free(&q);
        if (*dir && strstr(inner.msg, "does not exist")) return 0;  /* no such class yet */
        *e = inner;
        return -1;
    }
    /* A directory URL lists "perms links owner group size date name" lines
     * (ls -l style); the name is the last field, a leading 'd' marks folders. */
    for (char *save, *line = strtok_r(q.body.p ? q.body.p : (char[]){ 0 }, "\r\n", &save); line;
         line = strtok_r(NULL, "\r\n", &save)) {
        char *name = strrchr(line, ' ');
        name = name ? name + 1 : line;
        long long size = -1;
        char perms[16];
        long long fsize;
        if (sscanf(line, "%15s %*s %*s %*s %lld", perms, &fsize) == 2) size = fsize;
        if (share_name_valid(name)) share_list_add(out, name, line[0] == 'd', line[0] == 'd' ? -1 : size);
    }
    share_req_free(&q);
    return 0;
}

static void sftp_fill(struct share_remote *r, const char *key, struct share_req *q, char *url, size_t url_n,
                      char *what, size_t what_n)
{
    snprintf(url, url_n, "%s/%s", r->url, key);
    snprintf(what, what_n, "downloading %s", key);
    q->url = url;
    q->what = what;
    q->setup = setup;
    q->setup_arg = r;
}

static int sftp_get(struct share_remote *r, const char *key, const char *local_path, struct share_validator *v,
                    sl_err *e)
{
    if (sftp_check(r, e) < 0) return -1;
    return share_curl_get_one(r, key, local_path, v, sftp_fill, NULL, e);
}

static void sftp_get_many(struct share_remote *r, struct share_get *g, int n)
{
    sl_err e;
    if (sftp_check(r, &e) < 0) {
        share_get_failed(g, n, &e);
        return;
    }
    share_curl_get_many(r, g, n, sftp_fill, NULL);
}

/* The file is looked at (not there: already gone, no error), then removed
 * by an "rm" after it (CURLOPT_POSTQUOTE), on the same connection. */
static int sftp_remove(struct share_remote *r, const char *key, sl_err *e)
{
    if (sftp_check(r, e) < 0) return -1;
    struct sftp *s = r->priv;
    char url[2600], path[2600], rm[2700], what[600];
    snprintf(url, sizeof url, "%s/%s", r->url, key);
    server_path(url, path, sizeof path);
    snprintf(rm, sizeof rm, "rm \"%s\"", path);
    snprintf(what, sizeof what, "removing %s", key);
    s->quote = curl_slist_append(NULL, rm);
    struct share_req q = { .url = url, .no_body = true, .what = what, .setup = setup, .setup_arg = r };
    sl_err inner;
    int rc = share_curl(r, &q, &inner);
    share_req_free(&q);
    curl_slist_free_all(s->quote);
    s->quote = NULL;
    if (rc < 0 && strstr(inner.msg, "does not exist")) return 0;
    if (rc < 0 && e) *e = inner;
    return rc;
}

static void sftp_close(struct share_remote *r)
{
    struct sftp *s = r->priv;
    curl_slist_free_all(s->quote);
}

static const char *const sftp_schemes[] = { "sftp", NULL };
const struct share_transport share_sftp_transport = {
    .name = "sftp", .schemes = sftp_schemes, .uses_curl = true,
    .put = sftp_put, .list = sftp_list, .get = sftp_get, .get_many = sftp_get_many,
    .remove = sftp_remove, .close = sftp_close,
};
