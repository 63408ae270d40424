/* zst — shared objects travel zstd-compressed (#16): an empty snapshot is
 * 400 KiB of mostly empty pages and about 4 KB compressed. Both ways stream
 * from file to file through small buffers; decompression is capped like the
 * download itself, so a small hostile object cannot inflate into gigabytes. */
#include "share/share.h"

#include <zstd.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool share_zstd_magic(const unsigned char *b, size_t n)
{
    return n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int zstd_fail(sl_err *e, const char *what, size_t code)
{
    return sl_fail(e, SL_EFAIL, "%s: zstd: %s", what, ZSTD_getErrorName(code));
}

/* Feed one chunk (or, with end, the end of the input) through the stream
 * into fd. */
static int compress_chunk(ZSTD_CCtx *cx, int fd, const void *buf, size_t n, bool end, const char *dst, sl_err *e)
{
    ZSTD_inBuffer in = { buf, n, 0 };
    unsigned char out[1 << 16];
    for (;;) {
        ZSTD_outBuffer ob = { out, sizeof out, 0 };
        size_t left = ZSTD_compressStream2(cx, &ob, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) return zstd_fail(e, dst, left);
        if (write_all(fd, out, ob.pos) < 0) return sl_fail_errno(e, SL_EFAIL, errno, "writing %s", dst);
        if (end ? left == 0 : in.pos == in.size) return 0;
    }
}

int share_zstd_compress(const char *src, const char *dst, sl_err *e)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0) return sl_fail_errno(e, SL_EFAIL, errno, "%s", src);
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (out < 0) {
        close(in);
        return sl_fail_errno(e, SL_EFAIL, errno, "%s", dst);
    }
    ZSTD_CCtx *cx = ZSTD_createCCtx();
    int rc = cx ? 0 : sl_fail(e, SL_EFAIL, "%s: zstd: out of memory", dst);
    if (rc == 0) ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, SHARE_ZSTD_LEVEL);
    if (rc == 0) ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, 1);
    unsigned char *buf = xmalloc(1 << 17);
    while (rc == 0) {
        ssize_t r = read(in, buf, 1 << 17);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) rc = sl_fail_errno(e, SL_EFAIL, errno, "reading %s", src);
        else rc = compress_chunk(cx, out, buf, (size_t)r, r == 0, dst, e);
        if (r == 0) break;
    }
    free(buf);
    ZSTD_freeCCtx(cx);
    close(in);
    if (close(out) != 0 && rc == 0) rc = sl_fail_errno(e, SL_EFAIL, errno, "writing %s", dst);
    return rc;
}

static int too_large(const char *label, long long max_bytes, sl_err *e)
{
    return sl_fail(e, SL_EFAIL, "%s decompresses to more than the %lld-byte cap: raise --max-size if it is really a "
                   "sluice database; nothing merged", label, max_bytes);
}

int share_zstd_decompress(int in, int out, long long max_bytes, const char *label, sl_err *e)
{
    ZSTD_DCtx *dx = ZSTD_createDCtx();
    if (!dx) return sl_fail(e, SL_EFAIL, "%s: zstd: out of memory", label);
    size_t isz = ZSTD_DStreamInSize(), osz = ZSTD_DStreamOutSize();
    unsigned char *ibuf = xmalloc(isz), *obuf = xmalloc(osz);
    long long total = 0;
    size_t left = 1;          /* 0 once a frame ended where the input did */
    int rc = 0;
    for (bool eof = false; rc == 0 && !eof;) {
        ssize_t r = read(in, ibuf, isz);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            rc = sl_fail_errno(e, SL_EFAIL, errno, "reading %s", label);
            break;
        }
        if ((eof = r == 0)) break;
        ZSTD_inBuffer ib = { ibuf, (size_t)r, 0 };
        /* Until the chunk is used up and the decoder has nothing more to
         * flush (a full output buffer may hide more). 0 from the decoder:
         * a frame ended and is all out. */
        for (bool more = true; rc == 0 && more;) {
            ZSTD_outBuffer ob = { obuf, osz, 0 };
            left = ZSTD_decompressStream(dx, &ob, &ib);
            if (ZSTD_isError(left)) {
                rc = sl_fail(e, SL_EFAIL, "%s is zstd-compressed but corrupt (%s): nothing merged", label,
                             ZSTD_getErrorName(left));
                break;
            }
            if ((total += (long long)ob.pos) > max_bytes)
                rc = too_large(label, max_bytes, e);
            else if (write_all(out, obuf, ob.pos) < 0)
                rc = sl_fail_errno(e, SL_EFAIL, errno, "writing the unpacked copy of %s", label);
            more = ib.pos < ib.size || (ob.pos == ob.size && left != 0);
        }
    }
    if (rc == 0 && left != 0)
        rc = sl_fail(e, SL_EFAIL, "%s is zstd-compressed but ends before its data does (truncated): nothing merged",
                     label);
    free(ibuf);
    free(obuf);
    ZSTD_freeDCtx(dx);
    return rc;
}
