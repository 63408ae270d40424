/* share/file — file:///DIR: a directory, maybe on NFS or a mounted share.
 * Uploads are written beside the target under a temporary name, fsynced and
 * renamed, so a reader never sees half a database. */
#include "share/share.h"
#include "db/store_share.h"
#include "share/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* file:///abs/path (or file://localhost/abs/path) -> /abs/path */
static int base_dir(struct share_remote *r, sl_err *e)
{
    const char *p = r->url + strlen("file://");
    if (strncmp(p, "localhost/", 10) == 0) p += 9;
    if (p[0] != '/')
        return sl_fail(e, SL_EUSAGE, "%s: a file URL names an absolute directory: file:///var/share/sluice", r->shown);
    snprintf(r->base, sizeof r->base, "%s", p);
    return 0;
}

static int mkdir_p(const char *dir, sl_err *e)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return sl_fail_errno(e, SL_EFAIL, errno, "creating %s", buf);
        if (!c) return 0;
        *p = c;
    }
}

static int copy_fd(int in, int out, const char *what, sl_err *e)
{
    char buf[1 << 16];
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return sl_fail_errno(e, SL_EFAIL, errno, "reading for %s", what);
        if (r == 0) return 0;
        for (ssize_t off = 0; off < r;) {
            ssize_t w = write(out, buf + off, (size_t)(r - off));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return sl_fail_errno(e, SL_EFAIL, errno, "writing %s", what);
            off += w;
        }
    }
}

static int file_put(struct share_remote *r, const char *key, const char *local_path, sl_err *e)
{
    if (base_dir(r, e) < 0) return -1;
    char final[4096], dir[4096], tmp[4096], rnd[17];
    snprintf(final, sizeof final, "%s/%s", r->base, key);
    snprintf(dir, sizeof dir, "%s", final);
    *strrchr(dir, '/') = 0;
    share_random_hex(rnd, sizeof rnd);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp-%s", dir, strrchr(final, '/') + 1, rnd);
    if (mkdir_p(dir, e) < 0) return -1;
    int in = open(local_path, O_RDONLY | O_CLOEXEC);
    if (in < 0) return sl_fail_errno(e, SL_EFAIL, errno, "%s", local_path);
    int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) {
        close(in);
        return sl_fail_errno(e, SL_EFAIL, errno, "%s", tmp);
    }
    int rc = copy_fd(in, out, tmp, e);
    close(in);
    if (rc == 0 && fsync(out) != 0) rc = sl_fail_errno(e, SL_EFAIL, errno, "fsync %s", tmp);
    if (close(out) != 0 && rc == 0) rc = sl_fail_errno(e, SL_EFAIL, errno, "writing %s", tmp);
    if (rc == 0 && rename(tmp, final) != 0) rc = sl_fail_errno(e, SL_EFAIL, errno, "renaming %s to %s", tmp, final);
    if (rc < 0) {
        unlink(tmp);
        return -1;
    }
    /* The rename itself is durable once the directory is. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        if (fsync(dfd) != 0 && errno != EINVAL) rc = sl_fail_errno(e, SL_EFAIL, errno, "fsync %s", dir);
        close(dfd);
    }
    return rc;
}

static int file_list(struct share_remote *r, const char *dir, struct share_list *out, sl_err *e)
{
    if (base_dir(r, e) < 0) return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", r->base, *dir ? "/" : "", dir);
    DIR *d = opendir(path);
    if (!d) {
        if (errno == ENOENT && *dir) return 0;
        return sl_fail_errno(e, SL_EFAIL, errno, "listing %s", path);
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!share_name_valid(de->d_name)) continue;
        char full[4096];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", path, de->d_name);
        if (stat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) share_list_add(out, de->d_name, true, -1);
        else if (S_ISREG(st.st_mode)) share_list_add(out, de->d_name, false, (long long)st.st_size);
    }
    closedir(d);
    return 0;
}

/* A file's validator: push replaces an object by renaming a new file over
 * it, so a new inode (and mtime) says it changed. "" when it cannot be read. */
static void file_validator(const char *path, char *buf, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0) buf[0] = 0;
    else snprintf(buf, n, "\"%llx-%llx-%lld.%09ld\"", (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
                  (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static int file_get(struct share_remote *r, const char *key, const char *local_path, struct share_validator *v,
                    sl_err *e)
{
    if (base_dir(r, e) < 0) return -1;
    char path[4096], before[128] = "";
    snprintf(path, sizeof path, "%s/%s", r->base, key);
    if (v) {
        file_validator(path, before, sizeof before);
        if (before[0] && strcmp(before, v->etag) == 0) return 1;
    }
    if (share_private_copy(path, local_path, r->opts.max_bytes, e) < 0) return -1;
    if (v) {
        /* Replaced while copied: no validator, so the next pull copies again. */
        char after[128];
        file_validator(path, after, sizeof after);
        snprintf(v->etag, sizeof v->etag, "%s", strcmp(before, after) == 0 ? after : "");
        v->last_modified[0] = 0;
    }
    return 0;
}

/* The object replaced only while the folder's lock is held and the object
 * still is what the caller read: flock works across NFSv4 clients too. */
static int file_put_if(struct share_remote *r, const char *key, const char *local_path, const char *expect_sha256,
                       sl_err *e)
{
    if (base_dir(r, e) < 0) return -1;
    char final[4096], lock[4200];
    snprintf(final, sizeof final, "%s/%s", r->base, key);
    char *slash = strrchr(final, '/');
    snprintf(lock, sizeof lock, "%.*s/.%s.lock", (int)(slash - final), final, slash + 1);
    *slash = 0;
    if (mkdir_p(final, e) < 0) return -1;
    *slash = '/';
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return sl_fail_errno(e, SL_EFAIL, errno, "%s", lock);
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {}
    if (rc != 0) {
        rc = sl_fail_errno(e, SL_EFAIL, errno, "locking %s", lock);
        close(fd);
        return rc;
    }
    char now[65] = "";
    if (access(final, F_OK) == 0) rc = share_sha256_file(final, now, e);
    else if (errno != ENOENT) rc = sl_fail_errno(e, SL_EFAIL, errno, "%s", final);
    if (rc == 0) rc = strcmp(now, expect_sha256) != 0 ? 1 : file_put(r, key, local_path, e);
    close(fd);   /* releases the lock */
    return rc;
}

static int file_remove(struct share_remote *r, const char *key, sl_err *e)
{
    if (base_dir(r, e) < 0) return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->base, key);
    if (unlink(path) != 0 && errno != ENOENT) return sl_fail_errno(e, SL_EFAIL, errno, "removing %s", path);
    return 0;
}

static const char *const file_schemes[] = { "file", NULL };
const struct share_transport share_file_transport = {
    .name = "file", .schemes = file_schemes, .put = file_put, .list = file_list, .get = file_get,
    .put_if = file_put_if, .remove = file_remove,
};
