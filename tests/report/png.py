# png.py — what the report suite reads from Chromium's screenshots, with
# no library beyond Python's: an 8-bit RGB(A) PNG decoded to rows, a
# pixel comparison with a tolerance, and where a colour stands.
import struct, sys, zlib


def png(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', "%s: not a PNG" % path
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        if kind == b'IDAT': idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), "PNG type %d/%d" % (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, bpp, rows


def near(rows, bpp, x, y, col, tol=40):
    return all(abs(rows[y][x * bpp + k] - col[k]) < tol for k in range(3))


def rightmost(rows, bpp, col):
    """The largest x where a pixel is exactly col (-1: none)."""
    pat, best = bytes(col), -1
    for line in rows:
        i = bytes(line).rfind(pat)
        while i >= 0 and i % bpp: i = bytes(line).rfind(pat, 0, i)
        if i >= 0: best = max(best, i // bpp)
    return best


def differ(a, b, tol=48):
    """The share of pixels that differ by more than tol in a channel (1.0
    when the sizes differ)."""
    if open(a, 'rb').read() == open(b, 'rb').read(): return 0.0   # the same render: nothing to decode
    wa, ha, ba, ra = png(a)
    wb, hb, bb, rb = png(b)
    if (wa, ha) != (wb, hb): return 1.0
    bad = 0
    for y in range(ha):
        if ra[y] == rb[y] and ba == bb: continue
        for x in range(wa):
            if any(abs(ra[y][x * ba + k] - rb[y][x * bb + k]) > tol for k in range(3)): bad += 1
    return bad / float(wa * ha)


if __name__ == '__main__':
    # png.py diff A B LIMIT: exit 1 when more than LIMIT of the pixels differ
    share = differ(sys.argv[2], sys.argv[3])
    print('%.4f of the pixels differ (limit %s)' % (share, sys.argv[4]))
    sys.exit(1 if share > float(sys.argv[4]) else 0)
