/* S3 requests are signed by libcurl (CURLOPT_AWS_SIGV4) as s3.c sets it up:
 * held here to AWS's published examples of header-signed S3 requests
 * (examplebucket, AKIAIOSFODNN7EXAMPLE, 20130524T000000Z, us-east-1). The
 * request goes to a one-shot server on 127.0.0.1 in a thread, which keeps
 * what arrived: the Authorization header libcurl computed. */
#include "harness.h"
#include "share/curl.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A one-request HTTP server on 127.0.0.1: keeps what arrived, answers 200. */
struct catcher {
    int fd;
    char req[8192];
};

static void *catch_one(void *arg)
{
    struct catcher *c = arg;
    int conn = accept(c->fd, NULL, NULL);
    size_t len = 0;
    while (conn >= 0 && len + 1 < sizeof c->req) {
        ssize_t got = read(conn, c->req + len, sizeof c->req - 1 - len);
        if (got <= 0) break;
        len += (size_t)got;
        c->req[len] = 0;
        if (strstr(c->req, "\r\n\r\n")) break;
    }
    static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    if (conn >= 0 && write(conn, answer, sizeof answer - 1) < 0) c->req[0] = 0;
    if (conn >= 0) close(conn);
    return NULL;
}

static size_t discard(char *p, size_t size, size_t n, void *arg) { return size * n; }

/* The request libcurl sends for url (examplebucket.s3.amazonaws.com, sent
 * to the catcher instead) with sluice's S3 signing and the extra headers;
 * its Authorization line is copied to auth. */
static void signed_request(const char *url, const char *const *extra, char *auth, size_t n)
{
    struct catcher c = { .fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) };
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof sa;
    CHECK(c.fd >= 0 && bind(c.fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(c.fd, 1) == 0 &&
          getsockname(c.fd, (struct sockaddr *)&sa, &sl) == 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, catch_one, &c) == 0);
    struct curl_slist *headers = NULL;
    for (const char *const *h = extra; *h; h++) headers = curl_slist_append(headers, *h);
    char param[64], to[128];
    share_s3_sigv4_param("us-east-1", param, sizeof param);
    snprintf(to, sizeof to, "examplebucket.s3.amazonaws.com:80:127.0.0.1:%d", ntohs(sa.sin_port));
    struct curl_slist *connect_to = curl_slist_append(NULL, to);
    CURL *h = curl_easy_init();
    curl_easy_setopt(h, CURLOPT_URL, url);
    struct share_setopt st = { CURLE_OK, NULL };
    share_s3_sign(h, param, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", headers, &st);
    CHECK_INT(st.code, CURLE_OK);
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
    CHECK_INT(curl_easy_perform(h), CURLE_OK);
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
    pthread_join(t, NULL);
    close(c.fd);
    const char *a = strstr(c.req, "Authorization: ");
    CHECK(a != NULL);
    snprintf(auth, n, "%.*s", a ? (int)strcspn(a, "\r\n") : 0, a ? a : "");
}

TEST(s3_sigv4_matches_aws_get_object_example)
{
    /* https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html, "GET Object" */
    const char *extra[] = { "x-amz-date: 20130524T000000Z",
                            "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                            "Range: bytes=0-9", NULL };
    char auth[1024];
    signed_request("http://examplebucket.s3.amazonaws.com/test.txt", extra, auth, sizeof auth);
    CHECK_STR(auth, "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
                    "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                    "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(s3_sigv4_matches_aws_list_objects_example)
{
    /* The same page, "GET Bucket (List Objects)": the query is canonicalised. */
    const char *extra[] = { "x-amz-date: 20130524T000000Z",
                            "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                            NULL };
    char auth[1024];
    signed_request("http://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J", extra, auth, sizeof auth);
    CHECK_CONTAINS(auth, "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                         "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

/* A refused option is kept (the first one), and the protocol restriction
 * takes on this libcurl, by name or by mask. */
TEST(share_setopt_keeps_the_first_refusal)
{
    CURL *h = curl_easy_init();
    struct share_setopt st = { CURLE_OK, NULL };
    share_restrict_protocols(&st, h, "https", (long)CURLPROTO_HTTPS);
    CHECK_INT(st.code, CURLE_OK);
    SHARE_SETOPT(&st, h, CURLOPT_NOSIGNAL, 1L);
    SHARE_SETOPT(&st, h, CURLOPT_CONNECTTIMEOUT, -1L);   /* a negative time: refused */
    SHARE_SETOPT(&st, h, CURLOPT_LOW_SPEED_TIME, -1L);   /* refused too, not kept */
    CHECK_INT(st.code, CURLE_BAD_FUNCTION_ARGUMENT);
    CHECK_STR(st.option, "CURLOPT_CONNECTTIMEOUT");
    curl_easy_setopt(h, CURLOPT_URL, "http://127.0.0.1:1/");
    CHECK_INT(curl_easy_perform(h), CURLE_UNSUPPORTED_PROTOCOL);   /* restricted to https */
    curl_easy_cleanup(h);
}
