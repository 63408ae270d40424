/* screen_overview — the first screen: sessions that need attention, one
 * next step, what 'sluice recommend' answers for this host (from stored
 * runs, else a shipped profile), the host and disk fingerprints, a live
 * dirty-memory meter and the key knobs. */
#include "ui/app.h"
#include "report/chart.h"
#include "core/device.h"
#include "core/knob.h"
#include "probe/probe.h"
#include "probe/scratch.h"
#include "profile/profile.h"
#include "search/recommend.h"
#include "search/report.h"
#include "search/verdict.h"
#include "session/session.h"
#include "db/store_session.h"
#include "db/store_run.h"
#include "db/store_search.h"
#include "core/sysfs.h"
#include "ui/textview.h"
#include "ui/trial.h"
#include "core/units.h"
#include "core/vmstat.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct screen_class overview_screen;

#define SAMPLE_MS 1000
#define REFRESH_MS 5000
#define HISTORY 120

/* Which knobs the overview shows: a presentation choice; their facts come
 * from the catalogue. */
static const char *const key_globs[] = {
    "vm.dirty_ratio", "vm.dirty_background_ratio", "vm.dirty_bytes", "vm.dirty_background_bytes",
    "vm.dirty_expire_centisecs", "vm.dirty_writeback_centisecs", "vm.swappiness", "vm.vfs_cache_pressure",
    "vm.bdflush.nfract", "vm.bdflush.nfract_sync", "vm.bdflush.interval", "vm.bdflush.age_buffer",
};

struct key_knob {
    struct knob k;
    char value[KNOB_VALUE_MAX];
    bool present;
};

struct disk_row {
    struct device d;
    char nr_requests[32], read_ahead_kb[32];
    bool ra_changed;
    char iosched_diff[512];     /* "read_expire 100 (default 500), ..." */
    char mounts[512];           /* "/srv /var/backup (xfs)" */
};

struct overview {
    struct screen base;
    struct textview tv;
    struct host_info host;
    struct disk_row *disks;
    int ndisks;
    struct key_knob *knobs;
    int nknobs;
    struct session_row *crashed;
    int ncrashed;
    int nscratch;               /* scratch directories killed probes left */
    int nruns, nsearches;       /* stored: runs (0 or 1: any at all) and searches */
    char problem[512];          /* a read that failed, shown in the view */
    /* dirty memory meter, bytes */
    bool have_vmstat;
    double dirty[HISTORY];
    int nsamples;
    long long dirty_now, writeback_now, thresh, bg_thresh;
    long long last_sample_ms, last_refresh_ms;
    /* the shipped profile recommend names for this host without data
     * (profile_rank), "" when none fits */
    char advice[PROFILE_NAME_MAX], advice_why[600];
    /* what 'sluice recommend' answers from the stored runs (the core's
     * recommend engine), read when the screen is shown and on ^L */
    enum recommend_outcome rec;
    struct verdict_card rec_card;   /* its verdict (kind VERDICT_NONE, sentence "": none), as `sluice recommend` has it */
    char rec_text[900];         /* why recommend could not judge (rec_failed) */
    char rec_diff[512];         /* REC_WIN: the knobs to set, one line */
    bool rec_in_force;          /* REC_WIN: every one of them holds that value now */
    bool rec_failed;            /* rec_text is the error */
    char rec_stamp[64];         /* the runs it judged (store_run_stamp): judged again when they change */
    char suggest_dir[PATH_MAX], suggest_budget[16];   /* the next step's search ("": another step) */
};

/* --- data --------------------------------------------------------------- */

static void read_block_knob(const char *dev, const char *name, char *out, size_t n, bool *changed)
{
    char full[KNOB_NAME_MAX];
    struct knob k;
    snprintf(full, sizeof full, "block.%s.%s", dev, name);
    snprintf(out, n, "-");
    if (knob_lookup(full, NULL, &k, NULL) < 0 || knob_read(&k, out, n, NULL) < 0) {
        snprintf(out, n, "-");
        return;
    }
    if (changed) *changed = k.def->def && !knob_values_equal(&k, out, k.def->def);
}

/* The scheduler's tunables of dev that differ from their catalogue
 * default, as `sluice show 'block.DEV.iosched.*'` marks them; list holds
 * every disk's (one knob_list for all disks: each lists every disk). */
static void read_iosched_diff(const char *dev, const struct knob *list, int cnt, char *out, size_t n)
{
    out[0] = 0;
    for (int i = 0; i < cnt; i++) {
        if (strcmp(list[i].dev, dev) != 0) continue;
        char v[KNOB_VALUE_MAX];
        const char *def = list[i].def->def, *tail = strrchr(list[i].name, '.');
        if (!def || knob_read(&list[i], v, sizeof v, NULL) < 0 || knob_values_equal(&list[i], v, def)) continue;
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s %s (default %s)", len ? ", " : "", tail ? tail + 1 : list[i].name, v, def);
    }
}

/* A read that failed (what: "disks"), shown in the view. */
static void problem(struct overview *o, const char *what, const sl_err *e)
{
    snprintf(o->problem, sizeof o->problem, "%s: %s", what, e->msg);
}

/* A list read again (disks, knobs): the old rows freed and room for the n
 * read (at least one, so that none is not NULL); NULL with the problem
 * named when the read failed (n < 0). */
static void *fresh_rows(struct overview *o, void *old, int n, size_t elem, const char *what, const sl_err *e)
{
    free(old);
    if (n >= 0) return xcalloc((size_t)(n ? n : 1), elem);
    problem(o, what, e);
    return NULL;
}

static void read_disks(struct overview *o)
{
    struct device *v;
    sl_err e;
    int n = device_list(&v, &e);
    o->ndisks = 0;
    if (!(o->disks = fresh_rows(o, o->disks, n, sizeof *o->disks, "disks", &e))) return;
    const char *const iosched[] = { "block.*.iosched.*" };
    struct knob *tunables = NULL;
    int ntunables = knob_list(iosched, 1, &tunables, NULL);
    for (int i = 0; i < n; i++) {
        struct disk_row *r = &o->disks[i];
        r->d = v[i];
        read_block_knob(v[i].name, "nr_requests", r->nr_requests, sizeof r->nr_requests, NULL);
        read_block_knob(v[i].name, "read_ahead_kb", r->read_ahead_kb, sizeof r->read_ahead_kb, &r->ra_changed);
        read_iosched_diff(v[i].name, tunables, ntunables, r->iosched_diff, sizeof r->iosched_diff);
        device_mountpoints(v[i].name, r->mounts, sizeof r->mounts);
    }
    o->ndisks = n;
    free(v);
    free(tunables);   /* allocated even for no knobs; NULL on failure */
}

static void read_knobs(struct overview *o)
{
    struct knob *list;
    sl_err e;
    int n = knob_list(key_globs, (int)(sizeof key_globs / sizeof key_globs[0]), &list, &e);
    o->nknobs = 0;
    if (!(o->knobs = fresh_rows(o, o->knobs, n, sizeof *o->knobs, "knobs", &e))) return;
    int m = 0;
    for (int i = 0; i < n; i++) {
        struct key_knob *kk = &o->knobs[m];
        kk->k = list[i];
        kk->present = knob_read(&list[i], kk->value, sizeof kk->value, NULL) == 0;
        if (kk->present) m++;   /* knobs this kernel lacks are not key knobs here */
    }
    o->nknobs = m;
    free(list);
}

static void read_crashed(struct overview *o)
{
    free(o->crashed);
    o->crashed = NULL;
    o->ncrashed = 0;
    sl_err e;
    store *st = app_store(o->base.app, &e);
    if (!st) { problem(o, "database", &e); return; }
    o->nscratch = probe_scratch_left(st, NULL, 0);
    int n = session_find_crashed(st, &o->crashed, &e);
    if (n < 0) { problem(o, "sessions", &e); o->crashed = NULL; return; }
    o->ncrashed = n;
    struct run_row *runs = NULL;
    struct search_row *searches = NULL;
    o->nruns = store_run_list(st, NULL, 1, &runs, NULL);
    o->nsearches = store_search_list(st, NULL, &searches, NULL);
    free(runs);   /* allocated even for no rows */
    free(searches);
}

static void sample_vmstat(struct overview *o)
{
    struct vmstat v;
    vmstat_read(&v);
    o->have_vmstat = false;
    if (!v.has_dirty) return;
    long long page = sysconf(_SC_PAGESIZE), dirty = (long long)v.nr_dirty * page;
    o->writeback_now = v.has_writeback ? (long long)v.nr_writeback * page : -1;
    o->thresh = v.has_threshold ? (long long)v.thresh * page : -1;
    o->bg_thresh = v.has_bg_threshold ? (long long)v.bg_thresh * page : -1;
    o->have_vmstat = true;
    o->dirty_now = dirty;
    if (o->nsamples == HISTORY) {
        memmove(o->dirty, o->dirty + 1, sizeof o->dirty[0] * (HISTORY - 1));
        o->nsamples--;
    }
    o->dirty[o->nsamples++] = (double)dirty;
}

/* What 'sluice recommend' answers without measurements: the shipped
 * profiles whose rules select this host or its disks, ranked by the core
 * (profile_rank), the first of them. */
static void read_advice(struct overview *o)
{
    struct profile_dirs dirs;
    profile_dirs_init(&dirs, NULL);
    struct device *devs = xcalloc((size_t)o->ndisks + 1, sizeof *devs);
    for (int i = 0; i < o->ndisks; i++) devs[i] = o->disks[i].d;
    struct profile_fit *fits = NULL;
    sl_err e;
    int n = profile_rank(&dirs, &o->host, devs, o->ndisks, "throughput", &fits, &e);
    free(devs);
    o->advice[0] = o->advice_why[0] = 0;
    if (n > 0) {
        snprintf(o->advice, sizeof o->advice, "%s", fits[0].name);
        snprintf(o->advice_why, sizeof o->advice_why, "%s", fits[0].reasons);
    }
    if (n >= 0) free(fits);
}

/* Whether every "knob=value" of diff holds that value now. */
static bool values_in_force(const char *diff)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", diff);
    bool all = copy[0] != 0;
    for (char *save, *tok = strtok_r(copy, " \n", &save); tok && all; tok = strtok_r(NULL, " \n", &save)) {
        char *eq = strchr(tok, '='), now[KNOB_VALUE_MAX];
        struct knob k;
        if (!eq) continue;
        *eq = 0;
        all = knob_lookup(tok, NULL, &k, NULL) == 0 && knob_read(&k, now, sizeof now, NULL) == 0 && knob_values_equal(&k, now, eq + 1);
    }
    return all;
}

/* What 'sluice recommend' answers from the runs stored for this host and
 * its hardware classes: the same engine, its verdict in a line. Without
 * any stored run the database is not touched (the engine records the
 * host). */
static void read_recommendation(struct overview *o, bool again)
{
    store *st = app_store(o->base.app, NULL);
    char stamp[64] = "";
    if (st && o->nruns > 0 && store_run_stamp(st, stamp, sizeof stamp, NULL) < 0) stamp[0] = 0;
    if (!again && stamp[0] && strcmp(stamp, o->rec_stamp) == 0) {   /* the same runs: the same verdict */
        if (o->rec == REC_WIN) o->rec_in_force = values_in_force(o->rec_diff);
        return;
    }
    snprintf(o->rec_stamp, sizeof o->rec_stamp, "%s", stamp);
    o->rec = REC_NO_DATA;
    o->rec_text[0] = o->rec_diff[0] = o->rec_card.sentence[0] = 0;
    o->rec_in_force = o->rec_failed = false;
    if (!st || o->nruns <= 0) return;
    struct recommendation r;
    sl_err e;
    if (recommend_init(&r, "", "throughput", &e) < 0 || recommend_gather(&r, st, &e) < 0) {
        snprintf(o->rec_text, sizeof o->rec_text, "recommend: %s", e.msg);
        o->rec_failed = true;
        recommend_free(&r);
        return;
    }
    o->rec = recommend_judge(&r);
    /* the verdict card `sluice recommend` prints its numbers from */
    if (o->rec != REC_NO_DATA) verdict_build_recommend(&r, &o->rec_card);
    if (o->rec == REC_WIN) {
        snprintf(o->rec_diff, sizeof o->rec_diff, "%s", o->rec_card.changes);
        o->rec_in_force = values_in_force(o->rec_diff);
    }
    recommend_free(&r);
}

static void refresh_all(struct overview *o)
{
    o->problem[0] = 0;
    host_read(&o->host, NULL);
    read_crashed(o);
    read_disks(o);
    read_knobs(o);
    read_advice(o);
    o->last_refresh_ms = app_now_ms(o->base.app);
}

/* Everything, the stored runs' verdict too: on showing the screen when
 * runs were stored or merged since (judging 24,576 runs takes 0.75 s), and
 * on ^L (again: whatever the runs). The periodic refresh leaves it alone. */
static void refresh_with_verdict(struct overview *o, bool again)
{
    refresh_all(o);
    read_recommendation(o, again);
}

/* --- view ---------------------------------------------------------------- */

static void warn_lines(struct textview *tv, int width, const char *text)
{
    char line[1024];
    const char *p = text;
    for (int i = 0; draw_wrap_next(&p, width - 2, line, sizeof line); i++) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_WARN, "%s %s", i == 0 ? "!" : " ", line);
    }
}

static void build_sessions(struct overview *o, int width)
{
    struct textview *tv = &o->tv;
    char text[768];
    for (int i = 0; i < o->ncrashed; i++) {
        const struct session_row *r = &o->crashed[i];
        snprintf(text, sizeof text, "Session %.8s (%s, pid %d, started %s) was left open by a sluice that died: "
                 "its knobs are still changed. X puts them back.", r->uuid, r->purpose, r->pid, r->started);
        warn_lines(tv, width, text);
    }
    if (o->nscratch) {
        snprintf(text, sizeof text, "%d probe scratch director%s left behind by a probe that was killed hold%s disk "
                 "space. X removes %s.", o->nscratch, o->nscratch == 1 ? "y" : "ies", o->nscratch == 1 ? "s" : "",
                 o->nscratch == 1 ? "it" : "them");
        warn_lines(tv, width, text);
    }
    if (trial_active()) {
        snprintf(text, sizeof text, "Session %.8s is on trial: its changes are not kept yet "
                 "(K keeps them, R puts them back, on any screen; quitting asks).", trial_uuid());
        warn_lines(tv, width, text);
    }
    if (o->problem[0]) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_ERROR, "%s", o->problem);
    }
}

/* Where a tune would write: the directory typed last on Probe or Search,
 * else the first mountpoint of a disk that is not / (a data disk), else
 * the probes' default. */
static void tune_dir(const struct overview *o, char *buf, size_t n)
{
    const char *typed = app_probe_dir(o->base.app);
    snprintf(buf, n, "%s", typed[0] ? typed : PROBE_DIR_DEFAULT);
    if (typed[0]) return;
    for (int i = 0; i < o->ndisks; i++) {
        char mounts[512];
        snprintf(mounts, sizeof mounts, "%s", o->disks[i].mounts);
        for (char *save, *m = strtok_r(mounts, " ", &save); m; m = strtok_r(NULL, " ", &save))
            if (m[0] == '/' && strcmp(m, "/") != 0 && strncmp(m, "/boot", 5) != 0) { snprintf(buf, n, "%s", m); return; }
    }
}

/* Rows of text under a heading, wrapped to the width: all of it, as the
 * verdict's conclusion comes last. */
static void headed_lines(struct overview *o, const char *head, enum role r, const char *text, int width)
{
    char line[1024];
    const char *p = text;
    for (int i = 0; draw_wrap_next(&p, width - 11, line, sizeof line); i++) {
        tv_line(&o->tv, false, -1);
        tv_cell(&o->tv, ROLE_HEADER, 9, i ? "" : head);
        tv_add(&o->tv, r, "%s", line);
    }
}

/* One next step: what is left to put right first, else what the stored
 * runs' verdict calls for: set the recommendation, keep it for boot, or
 * measure (a tune on the directory to tune: F5 then fills the Search form
 * with it). */
static void build_next(struct overview *o, int width)
{
    char next[900], dir[PATH_MAX];
    const char *budget = "";   /* a search to suggest */
    tune_dir(o, dir, sizeof dir);
    if (o->ncrashed || o->nscratch) snprintf(next, sizeof next, "X: put back what a sluice that died left behind");
    else if (trial_active()) snprintf(next, sizeof next, "try the values on trial; then K keeps them or R puts them back");
    else if (o->rec == REC_WIN && !o->rec_in_force)
        snprintf(next, sizeof next, "F3 Knobs: set %s, a applies it on trial, K keeps it", o->rec_diff);
    else if (o->rec == REC_WIN)
        snprintf(next, sizeof next, "F7 Profiles: S saves the settings in force as a profile, I installs it for boot");
    else if (o->nsearches <= 0 || o->rec == REC_OTHER_WORK) budget = "5m";
    else if (o->rec == REC_NOISE) budget = "15m";
    else snprintf(next, sizeof next, "F6 Results: compare the stored runs");
    if (strcmp(budget, "5m") == 0)
        snprintf(next, sizeof next, "F5 Search: the quick tune on %s (about 6 minutes)", dir);
    else if (budget[0])
        snprintf(next, sizeof next, "F5 Search: a longer tune on %s (Budget 15m) or the queue space: the defaults hold so far", dir);
    snprintf(o->suggest_dir, sizeof o->suggest_dir, "%s", budget[0] ? dir : "");   /* what F5 hands the Search form */
    snprintf(o->suggest_budget, sizeof o->suggest_budget, "%s", budget);
    headed_lines(o, "Next", ROLE_OK, next, width);
}

/* A line of recommend's verdict card: its words under the heading,
 * wrapped; the side-effects table at the left edge, its columns kept (the
 * rows fit 80 columns; its heading wraps). */
struct card_ctx {
    struct overview *o;
    int width, lines;
    bool in_force;
    size_t verdict_col;          /* where the table's VERDICT column starts (its heading says) */
};

static void card_line(void *arg, enum verdict_line_kind kind, const char *line)
{
    struct card_ctx *c = arg;
    struct overview *o = c->o;
    enum role r = kind == VL_CLAIM ? ROLE_OK : kind == VL_NOTE ? ROLE_WARN : ROLE_NORMAL;
    if (kind != VL_TABLE) {
        headed_lines(o, c->lines++ ? "" : "Recommend", r, line, c->width);
        if (c->in_force && kind == VL_CLAIM) headed_lines(o, "", ROLE_DIM, "(in force: these values hold now)", c->width);
        return;
    }
    if (!line[0]) return;
    if (line[0] == ' ') {   /* a row: its columns kept; past the edge its verdict goes under, right-aligned */
        size_t len = strlen(line);
        const char *head = strstr(line, "VERDICT");
        if (strncmp(line, "  METRIC ", 9) == 0 && head) c->verdict_col = (size_t)(head - line);
        tv_line(&o->tv, false, -1);
        if ((int)len <= c->width || !c->verdict_col || len <= c->verdict_col) {
            tv_add(&o->tv, ROLE_NORMAL, "%s", line);
            return;
        }
        const char *rest = line + c->verdict_col;
        int rest_w = (int)strlen(rest), col = c->width - rest_w;
        tv_add(&o->tv, ROLE_NORMAL, "%.*s", (int)c->verdict_col, line);
        tv_line(&o->tv, false, -1);
        tv_add(&o->tv, ROLE_NORMAL, "%*s%s", col > 4 ? col : 4, "", rest);
        return;
    }
    char part[1024];
    const char *p = line;
    while (draw_wrap_next(&p, c->width - 2, part, sizeof part)) {
        tv_line(&o->tv, false, -1);
        tv_add(&o->tv, ROLE_HEADER, "%s", part);
    }
}

/* recommend's answer for this host: the stored runs' verdict (the core's
 * recommend engine) as its verdict card, or without them the first
 * shipped profile that fits. */
static void build_recommend(struct overview *o, int width)
{
    char text[1200];
    if (!o->rec_failed && o->rec != REC_NO_DATA && o->rec_card.sentence[0]) {
        struct card_ctx c = { o, width, 0, o->rec == REC_WIN && o->rec_in_force, 0 };
        verdict_lines(&o->rec_card, card_line, &c);
        return;
    }
    if (o->rec_failed) snprintf(text, sizeof text, "%s", o->rec_text);
    else if (o->advice[0])
        snprintf(text, sizeof text, "no evidence yet (no runs stored for this hardware); profile %s fits (%s): F7 diffs "
                 "and applies it", o->advice, o->advice_why);
    else snprintf(text, sizeof text, "no evidence yet (no runs stored for this hardware), and no shipped profile fits");
    headed_lines(o, "Recommend", o->rec_failed ? ROLE_ERROR : ROLE_NORMAL, text, width);
}

static void build_host(struct overview *o, int width)
{
    struct textview *tv = &o->tv;
    char mem[32];
    units_format_bytes(o->host.mem_bytes, mem, sizeof mem);
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_HEADER, 9, "Host");
    tv_add(tv, ROLE_NORMAL, "%s  Linux %s  %d CPU%s  %s RAM  virt %s", o->host.hostname, o->host.kernel,
           o->host.cpus, o->host.cpus == 1 ? "" : "s", mem, o->host.virt);
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_HEADER, 9, "CPU");
    tv_add(tv, ROLE_NORMAL, "%s", o->host.cpu_model[0] ? o->host.cpu_model : "unknown");
    tv_line(tv, false, -1);
    tv_cell(tv, ROLE_HEADER, 9, "Dirty");
    if (!o->have_vmstat) {
        tv_add(tv, ROLE_DIM, "no /proc/vmstat on this kernel");
        return;
    }
    char now[32], wb[32], lim[32], bg[32], spark[HISTORY * 4 + 1];
    units_format_bytes((unsigned long long)o->dirty_now, now, sizeof now);
    units_format_bytes(o->writeback_now > 0 ? (unsigned long long)o->writeback_now : 0, wb, sizeof wb);
    double hi = 0;
    for (int i = 0; i < o->nsamples; i++) if (o->dirty[i] > hi) hi = o->dirty[i];
    int sw = width >= 100 ? 30 : 16;
    chart_spark(o->dirty, o->nsamples, 0, chart_nice_max(hi), sw, term_glyphs()->utf8, spark, sizeof spark);
    tv_cell(tv, ROLE_NORMAL, 9, now);
    tv_cell(tv, ROLE_GRAPH, sw, spark);
    tv_add(tv, ROLE_NORMAL, "writeback %s", wb);
    if (o->thresh >= 0 && o->bg_thresh >= 0) {
        units_format_bytes((unsigned long long)o->thresh, lim, sizeof lim);
        units_format_bytes((unsigned long long)o->bg_thresh, bg, sizeof bg);
        tv_add(tv, ROLE_NORMAL, "  limit %s  bg %s", lim, bg);
    }
}

static void build_knobs(struct overview *o)
{
    struct textview *tv = &o->tv;
    tv_line(tv, false, -1);
    static const char *const heads[] = { "Key knobs", "VALUE", "DEFAULT" };
    static const int widths[] = { 29, 13, 10 };
    tv_header(tv, 3, heads, widths);
    tv_add(tv, ROLE_DIM, "(* differs from default)");
    if (o->nknobs == 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, " none of the writeback knobs exists here");
    }
    for (int i = 0; i < o->nknobs; i++) {
        const struct key_knob *kk = &o->knobs[i];
        const struct knob_def *d = kk->k.def;
        bool changed = d->def && !knob_values_equal(&kk->k, kk->value, d->def);
        char shown[KNOB_VALUE_MAX + 8];
        snprintf(shown, sizeof shown, "%s%s", kk->value, changed ? " *" : "");
        tv_line(tv, false, i);
        tv_add(tv, ROLE_NORMAL, " ");
        tv_cell(tv, ROLE_NORMAL, 28, kk->k.name);
        tv_cell(tv, changed ? ROLE_CHANGED : ROLE_NORMAL, 13, shown);
        tv_cell(tv, ROLE_NORMAL, 10, d->def ? d->def : "-");
        tv_add(tv, ROLE_DIM, "%s", d->unit);
    }
}

static void build_disks(struct overview *o, int width)
{
    struct textview *tv = &o->tv;
    /* NAME BUS MODEL SIZE ROT SCHEDULER NR_REQ RA_KB; the model takes what is left. */
    int model_w = width - (8 + 7 + 9 + 3 + 12 + 6 + 6) - 8 - 1;
    if (model_w < 8) model_w = 8;
    tv_line(tv, false, -1);
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_HEADER, "Disks");
    tv_line(tv, false, -1);
    tv_add(tv, ROLE_NORMAL, " ");
    static const char *const heads[] = { "NAME", "BUS", "MODEL", "SIZE", "ROT", "SCHEDULER", "NR_REQ", "RA_KB" };
    int widths[] = { 8, 7, model_w, 9, 3, 12, 6, 6 };
    for (int c = 0; c < 8; c++) tv_cell(tv, ROLE_HEADER, widths[c], heads[c]);
    if (o->ndisks == 0) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, " no disks found");
    }
    for (int i = 0; i < o->ndisks; i++) {
        const struct disk_row *r = &o->disks[i];
        const struct device *d = &r->d;
        char size[32], ra[40];
        units_format_bytes(d->size_bytes, size, sizeof size);
        snprintf(ra, sizeof ra, "%s%s", r->read_ahead_kb, r->ra_changed ? "*" : "");
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_NORMAL, " ");
        tv_cell(tv, ROLE_NORMAL, widths[0], d->name);
        tv_cell(tv, ROLE_NORMAL, widths[1], d->transport);
        tv_cell(tv, ROLE_NORMAL, widths[2], d->model[0] ? d->model : "-");
        tv_cell(tv, ROLE_NORMAL, widths[3], size);
        tv_cell(tv, ROLE_NORMAL, widths[4], d->rotational < 0 ? "?" : d->rotational ? "yes" : "no");
        tv_cell(tv, ROLE_NORMAL, widths[5], d->has_queue ? (d->scheduler[0] ? d->scheduler : "-") : "n/a");
        tv_cell(tv, ROLE_NORMAL, widths[6], r->nr_requests);
        tv_cell(tv, r->ra_changed ? ROLE_CHANGED : ROLE_NORMAL, widths[7], ra);
        if (r->mounts[0]) {
            tv_line(tv, false, -1);
            tv_add(tv, ROLE_DIM, "%9s mounted on %s", "", r->mounts);
        }
        if (r->iosched_diff[0]) {
            char text[640], lines[4][256];
            snprintf(text, sizeof text, "%s differs: %s", d->scheduler, r->iosched_diff);
            int nl = draw_wrap(text, width - 10, lines, 4);
            for (int k = 0; k < nl; k++) {
                tv_line(tv, false, -1);
                tv_add(tv, ROLE_CHANGED, "%9s %s", "", lines[k]);
            }
        }
    }
    if (o->ndisks > 0 && !o->disks[0].d.has_queue && !sysfs_is_dir("/sys")) {
        tv_line(tv, false, -1);
        tv_add(tv, ROLE_DIM, " no /sys on this kernel (2.4?): disks come from /proc/partitions, block knobs are unavailable");
    }
}

/* --- screen ops -------------------------------------------------------- */

static struct screen *overview_create(struct app *app)
{
    struct overview *o = screen_new(sizeof *o, &overview_screen, app);
    o->last_sample_ms = -SAMPLE_MS;
    return &o->base;
}

static void overview_draw(struct screen *s, struct rect r)
{
    struct overview *o = (struct overview *)s;
    tv_clear(&o->tv);
    build_sessions(o, r.w);
    build_next(o, r.w);
    build_recommend(o, r.w);
    build_host(o, r.w);
    build_knobs(o);
    build_disks(o, r.w);
    tv_draw(&o->tv, r);
}

/* Scratch directories killed probes left, through the same sweep as
 * `sluice restore`: a summary in *msg; false when one could not be removed. */
static bool sweep_scratch(store *st, char *msg, size_t n)
{
    struct scratch_report rep;
    sl_err e;
    msg[0] = 0;
    if (probe_scratch_sweep(st, &rep, &e) < 0) {
        snprintf(msg, n, "%s", e.msg);
        return false;
    }
    bool ok = rep.failed == 0;
    for (int i = 0; i < rep.n && !ok; i++)
        if (rep.items[i].result == SCRATCH_FAILED) { snprintf(msg, n, "%s", rep.items[i].msg); break; }
    if (ok && rep.removed) snprintf(msg, n, "removed %d probe scratch director%s", rep.removed, rep.removed == 1 ? "y" : "ies");
    scratch_report_free(&rep);
    return ok;
}

static void restore_crashed(struct overview *o)
{
    struct app *app = o->base.app;
    sl_err e;
    store *st = app_store(app, &e);
    int lock_fd = -1;
    if (o->ncrashed == 0 && o->nscratch == 0) {
        app_message(app, ROLE_NORMAL, "no crashed session: nothing to put back");
        return;
    }
    if (!st || sysfs_require_root("putting a session back", &e) < 0 || session_lock_acquire(app_db_path(app), &lock_fd, &e) < 0) {
        app_message(app, ROLE_ERROR, "%s", e.msg);
        return;
    }
    struct session_row *rows;
    int n = session_find_crashed(st, &rows, &e), done = 0, knobs = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        struct restore_report rep = { 0 };
        if (session_restore(st, &rows[i], 0, &rep, &e) == 0) done++;
        else failed++;
        for (int j = 0; j < rep.n; j++) knobs += rep.items[j].status == RESTORE_WRITTEN;
        restore_report_free(&rep);
    }
    if (n >= 0) free(rows);
    char swept[PATH_MAX + 512];
    bool swept_ok = sweep_scratch(st, swept, sizeof swept);
    session_lock_release(lock_fd);
    if (n < 0 || failed) app_message(app, ROLE_ERROR, "%s", e.msg);
    else if (!swept_ok) app_message(app, ROLE_ERROR, "%s", swept);
    else if (done || !swept[0])
        app_message(app, ROLE_OK, "put back %d session(s): %d knob(s) written back%s%s", done, knobs, swept[0] ? "; " : "",
                    swept);
    else app_message(app, ROLE_OK, "%s", swept);
    refresh_with_verdict(o, false);
}

static enum handled overview_key(struct screen *s, enum action a, int key)
{
    struct overview *o = (struct overview *)s;
    switch (a) {
    case ACT_REFRESH: refresh_with_verdict(o, true); return H_IGNORED; /* the app redraws the terminal too */
    case ACT_RESTORE_CRASHED: restore_crashed(o); return H_HANDLED;
    case ACT_SEARCH:   /* the app shows the Search form: with the next step's search in it */
        app_suggest_search(s->app, o->suggest_dir, o->suggest_budget);
        return H_IGNORED;
    default: return tv_move(&o->tv, a);
    }
}

static void overview_show(struct screen *s) { refresh_with_verdict((struct overview *)s, false); }

static void overview_tick(struct screen *s, long long now)
{
    struct overview *o = (struct overview *)s;
    if (now - o->last_sample_ms >= SAMPLE_MS) {
        sample_vmstat(o);
        o->last_sample_ms = now;
    }
    /* Every disk's files are read: only while someone looks (show reads them too). */
    if (now - o->last_refresh_ms >= REFRESH_MS && app_is_shown(s->app, s)) refresh_all(o);
}

static bool overview_hint_on(struct screen *s, enum action a)
{
    const struct overview *o = (const struct overview *)s;
    return a != ACT_RESTORE_CRASHED || o->ncrashed > 0 || o->nscratch > 0;
}

static void overview_done(struct screen *s)
{
    struct overview *o = (struct overview *)s;
    tv_free(&o->tv);
    free(o->disks);
    free(o->knobs);
    free(o->crashed);
    free(o);
}

static struct textview *overview_view(struct screen *s) { return &((struct overview *)s)->tv; }

static const enum action overview_hints[] = { ACT_RESTORE_CRASHED, ACT_SESSIONS, ACT_NONE };

const struct screen_class overview_screen = {
    .title = "Overview", .open = ACT_OVERVIEW, .hints = overview_hints,
    .create = overview_create, .draw = overview_draw, .handle_key = overview_key,
    .done = overview_done, .show = overview_show, .tick = overview_tick, .hint_on = overview_hint_on,
    .view = overview_view,
};
