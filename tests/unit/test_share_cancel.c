/* Cancelling a transfer (share_opts.cancel): curl's progress callback stops
 * a request to a server that never answers, a cancelled pull merges
 * nothing (see tests/ui/share-cancel), and fake://stall waits for it. */
#include "harness.h"
#include "share/sync.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct silent_server {
    int fd;
};

/* Accept one connection and say nothing until the client goes away. */
static void *silent_main(void *arg)
{
    struct silent_server *s = arg;
    int c = accept(s->fd, NULL, NULL);
    char buf[4096];
    while (c >= 0 && recv(c, buf, sizeof buf, 0) > 0) {}
    if (c >= 0) close(c);
    return NULL;
}

static void *cancel_soon(void *arg)
{
    struct timespec ts = { 0, 200000000L };
    nanosleep(&ts, NULL);
    atomic_store((atomic_bool *)arg, true);
    return NULL;
}

TEST(share_cancel_stops_a_curl_transfer)
{
    struct silent_server srv = { .fd = socket(AF_INET, SOCK_STREAM, 0) };
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    CHECK(srv.fd >= 0);
    CHECK_INT(bind(srv.fd, (struct sockaddr *)&a, sizeof a), 0);
    CHECK_INT(listen(srv.fd, 1), 0);
    CHECK_INT(getsockname(srv.fd, (struct sockaddr *)&a, &len), 0);
    pthread_t server, canceller;
    pthread_create(&server, NULL, silent_main, &srv);
    static atomic_bool cancel;
    atomic_store(&cancel, false);
    struct share_opts o = { .retries = 2, .retry_base_ms = 10, .max_bytes = SHARE_DEFAULT_MAX_BYTES, .cancel = &cancel };
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/share", ntohs(a.sin_port));
    struct share_remote *r = NULL;
    sl_err e;
    CHECK_INT(share_open(url, &o, &r, &e), 0);
    pthread_create(&canceller, NULL, cancel_soon, &cancel);
    struct share_list l = { 0 };
    int rc = r ? r->ops->list(r, "", &l, &e) : 0;
    CHECK_INT(rc, -1);
    if (rc < 0) CHECK_CONTAINS(e.msg, "cancelled");
    share_list_free(&l);
    if (r) share_close(r);
    pthread_join(canceller, NULL);
    pthread_join(server, NULL);
    close(srv.fd);
}

TEST(share_cancel_fake_stall_waits_for_it)
{
    static atomic_bool cancel;
    atomic_store(&cancel, false);
    struct share_opts o = { .retries = 0, .max_bytes = SHARE_DEFAULT_MAX_BYTES, .cancel = &cancel };
    struct share_remote *r = NULL;
    sl_err e;
    CHECK_INT(share_open("fake://stall", &o, &r, &e), 0);
    pthread_t canceller;
    pthread_create(&canceller, NULL, cancel_soon, &cancel);
    struct share_list l = { 0 };
    CHECK_INT(r ? r->ops->list(r, "x", &l, &e) : 0, -1);
    CHECK_CONTAINS(e.msg, "cancelled");
    pthread_join(canceller, NULL);
    share_list_free(&l);
    if (r) share_close(r);
}
