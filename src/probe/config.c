/* config — the content-hashed identity of what a run measured: the knob
 * values in force (config) and the workload spec. Canonical text is
 * "name=value\n" lines sorted by name; its SHA-256 (libcrypto, hex) is the
 * key, so the same configuration measured on two machines gets the same
 * hash and merged databases stay idempotent. */
#include "probe/probe_internal.h"
#include "probe/settle.h"
#include "core/knob.h"
#include "core/units.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void probe_sha256_hex(const char *text, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!EVP_Digest(text, strlen(text), md, &len, EVP_sha256(), NULL) || len != 32)
        sl_die("SHA-256 is unavailable in libcrypto");
    for (unsigned i = 0; i < len; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
    out[64] = 0;
}

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and join lines into one malloc'ed text; frees the lines. */
static char *join_sorted(char **lines, int n)
{
    qsort(lines, (size_t)n, sizeof *lines, cmp_lines);
    size_t len = 1;
    for (int i = 0; i < n; i++) len += strlen(lines[i]) + 1;
    char *text = xmalloc(len), *p = text;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(lines[i]);
        memcpy(p, lines[i], l);
        p[l] = '\n';
        p += l + 1;
        free(lines[i]);
    }
    *p = 0;
    free(lines);
    return text;
}

int probe_config_capture(const char *disk, char **text, char hash[65], sl_err *e)
{
    char block_glob[96], bdi_glob[96];
    const char *globs[3] = { "vm.*", block_glob, bdi_glob };
    int nglobs = 1;
    if (disk && *disk) {
        snprintf(block_glob, sizeof block_glob, "block.%s.*", disk);
        snprintf(bdi_glob, sizeof bdi_glob, "bdi.%s.*", disk);
        nglobs = 3;
    }
    struct knob *ks;
    int n = knob_list(globs, nglobs, &ks, e);
    if (n < 0) return -1;
    char **lines = xcalloc((size_t)n + 1, sizeof *lines);
    int m = 0;
    for (int i = 0; i < n; i++) {
        const struct knob_def *d = ks[i].def;
        /* Hardware facts and actions are not configuration. */
        if (knob_unwritable(d)) continue;
        char val[KNOB_VALUE_MAX];
        if (knob_read(&ks[i], val, sizeof val, NULL) < 0) continue;
        size_t len = strlen(ks[i].name) + strlen(val) + 2;
        lines[m] = xmalloc(len);
        snprintf(lines[m], len, "%s=%s", ks[i].name, val);
        m++;
    }
    free(ks);
    *text = join_sorted(lines, m);
    probe_sha256_hex(*text, hash);
    return 0;
}

void probe_workload_text(const struct probe_spec *s, char *buf, size_t n, char hash[65])
{
    /* Only what shapes the load: not the directory (the device is stored
     * apart), not the seed or the repetition count. The idle time before a
     * run only when there is one, so back-to-back runs keep the hash they
     * had before the option existed. */
    char idle[48] = "";
    if (s->idle_ms) snprintf(idle, sizeof idle, "idle_before_ms=%llu\n", (unsigned long long)s->idle_ms);
    snprintf(buf, n,
             "bs=%llu\ndirect=%d\ndirs=%d\n%s%siodepth=%d\nramp_ms=%llu\nsize_bytes=%llu\nsync_every=%d\nthreads=%d\n"
             "time_ms=%llu\nworkload=%s\n",
             (unsigned long long)s->bs, s->direct ? 1 : 0, s->ndirs, s->fixed_work ? "fixed_work=1\n" : "", idle, s->iodepth,
             (unsigned long long)s->ramp_ms,
             (unsigned long long)s->size_bytes, s->sync_every, s->threads, (unsigned long long)s->time_ms,
             s->workload);
    /* dbench: the loadfile is the workload; its content, not its name. */
    size_t l = strlen(buf);
    if (s->loadfile_hash[0] && l < n) snprintf(buf + l, n - l, "loadfile_sha256=%s\n", s->loadfile_hash);
    probe_sha256_hex(buf, hash);
}

/* One line "key=value" of a workload text, sizes in bytes shown as sizes. */
static void diff_side(const char *line, size_t len, char *out, size_t n)
{
    const char *eq = memchr(line, '=', len);
    size_t klen = eq ? (size_t)(eq - line) : len;
    if (eq && klen > 6 && strncmp(eq - 6, "_bytes", 6) == 0) {
        char sz[32];
        units_format_bytes(strtoull(eq + 1, NULL, 10), sz, sizeof sz);
        snprintf(out, n, "%.*s=%s", (int)(klen - 6), line, sz);
    } else {
        snprintf(out, n, "%.*s", (int)len, line);
    }
}

/* The line of text with the key of line (up to '='), or NULL; *len its length. */
static const char *line_of_key(const char *text, const char *line, size_t *len)
{
    size_t klen = strcspn(line, "=\n");
    for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
        if (strncmp(p, line, klen) == 0 && p[klen] == line[klen]) {
            *len = strcspn(p, "\n");
            return p;
        }
    }
    return NULL;
}

/* The first line of a whose key b lacks or holds with another value. */
static bool differs(const char *a, const char *b, bool a_first, char *out, size_t n)
{
    for (const char *p = a; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
        size_t la = strcspn(p, "\n"), lb = 0;
        const char *q = line_of_key(b, p, &lb);
        if (q && la == lb && strncmp(p, q, la) == 0) continue;
        char sa[128], sb[128] = "(nothing)";
        diff_side(p, la, sa, sizeof sa);
        if (q) diff_side(q, lb, sb, sizeof sb);
        if (q && strcmp(sa, sb) == 0) {   /* sizes that round alike: the exact bytes */
            snprintf(sa, sizeof sa, "%.*s", (int)la, p);
            snprintf(sb, sizeof sb, "%.*s", (int)lb, q);
        }
        snprintf(out, n, "%s vs %s", a_first ? sa : sb, a_first ? sb : sa);
        return true;
    }
    return false;
}

void probe_workload_diff(const char *a, const char *b, char *out, size_t n)
{
    if (!differs(a, b, true, out, n) && !differs(b, a, false, out, n)) snprintf(out, n, "the same workload");
}

/* The value of "key=" in a workload text, or NULL. */
static const char *text_value(const char *text, const char *key, char *buf, size_t n)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, kl) || p[kl] != '=') continue;
        size_t vl = strcspn(p + kl + 1, "\n");
        snprintf(buf, n, "%.*s", (int)vl, p + kl + 1);
        return buf;
    }
    return NULL;
}

/* probe_regime_text's words for runs with no idle time asked for, and the
 * hint a buffered writer gets with them (probe_regime_waited rewrites both) */
#define REGIME_BACK_TO_BACK "runs back to back, each right after the previous one (a sustained load)"
#define REGIME_QUIET_HINT "; a buffered writer after a quiet spell can measure otherwise: --idle-before T measures that regime"

void probe_regime_text(const char *workload_text, char *buf, size_t n)
{
    char v[64], name[32] = "";
    unsigned long long idle_ms = text_value(workload_text, "idle_before_ms", v, sizeof v) ? strtoull(v, NULL, 10) : 0;
    bool direct = text_value(workload_text, "direct", v, sizeof v) && strcmp(v, "0") != 0;
    text_value(workload_text, "workload", name, sizeof name);
    const struct probe_workload_ops *ops = workload_find(name);
    /* bench/carry-over: what ran just before moves a buffered writer (2x on
     * this project's VM), and a knob's effect with it; direct I/O and reads
     * were not seen to carry over, so they get the plain fact. */
    bool buffered_writer = ops && (ops->flags & (WL_BUFFERED_SIZED | WL_DIRTIES)) && !direct;
    if (idle_ms)
        snprintf(buf, n, "every run followed %.3g s without the probe's I/O (a writer after a quiet spell)%s",
                 (double)idle_ms / 1000,
                 buffered_writer ? "; back to back, as a sustained writer, the result can differ" : "");
    else
        snprintf(buf, n, "%s%s", REGIME_BACK_TO_BACK, buffered_writer ? REGIME_QUIET_HINT : "");
}

/* Where the probe waited for this VM's free page reporting before each run
 * (settle.h: until every pass was over), its memory was the host's, as a
 * burst after a quiet spell finds it, whatever "back to back" says of its
 * I/O: a burst started before the passes measured up to 4x faster at order
 * 9 and 6x at 5 (bench/data/report-passes.out, report-passes-order5.out). */
void probe_regime_waited(char *buf, size_t n)
{
    char said[512];
    snprintf(said, sizeof said, "each run began once this VM had handed the memory the run before freed back to its "
             "host (free page reporting: no pass of %u MiB or more for %d s), so it met memory, and a disk idle since "
             "the last run's fsync, as a burst after a quiet spell does", SETTLE_PASS_MIN_KIB >> 10,
             SETTLE_QUIET_MS / 1000);
    /* "runs back to back" is what the workload asked for, not what ran: the
     * wait put 7-17 s between the runs on this project's VM (runs 47, 48) */
    const char *rest = NULL;
    if (strncmp(buf, REGIME_BACK_TO_BACK, strlen(REGIME_BACK_TO_BACK)) == 0) {
        rest = buf + strlen(REGIME_BACK_TO_BACK);
        if (strncmp(rest, REGIME_QUIET_HINT, strlen(REGIME_QUIET_HINT)) == 0) rest += strlen(REGIME_QUIET_HINT);
    }
    size_t len = strlen(buf);
    if (!rest) {
        snprintf(buf + len, n - len, "%s%s", len ? "; " : "", said);
        return;
    }
    char *tail = strdup(rest);
    snprintf(buf, n, "%s%s", said, tail ? tail : "");
    free(tail);
}
