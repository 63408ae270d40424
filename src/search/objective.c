/* objective — the metric table, parsing, scoring. */
#include "search/objective.h"
#include "db/store_search.h"
#include "probe/probe.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct metric_def metric_table[MET_NR] = {
    [MET_THROUGHPUT] = { "throughput", "MB/s", +1, 0, "MB/s of the workload (read + write)", "Throughput" },
    [MET_P99] = { "p99", "ms", -1, 0, "99th percentile I/O latency of the workload", "Workload p99 latency" },
    [MET_CANARY_P99] = { "canary_p99", "ms", -1, 0, "99th percentile stall seen by the stall canary", "Canary p99 stall" },
    [MET_STALLS] = { "stalls", "", -1, 1, "canary stalls over 100 ms", "Canary stalls" },
    [MET_CPU_PER_MB] = { "cpu_per_mb", "ms", -1, 0, "CPU time (user + system) per MB moved", "CPU per MB" },
    [MET_READER_P50] = { "reader_p50", "ms", -1, 0, "median wait of a 4 KiB read due every 2 ms beside the workload", "Reader median latency" },
    [MET_READER_P99] = { "reader_p99", "ms", -1, 0, "99th percentile wait of a 4 KiB read due every 2 ms beside the workload (ticks a stall held back counted)", "Reader p99 latency" },
    [MET_READER_MAX] = { "reader_max", "ms", -1, 0, "worst read of the 4 KiB reader beside the workload", "Reader worst latency" },
    /* the due wait above is what a stall holds back; this, each read's own
     * time: background writeback from 1% of memory slowed every read of
     * the reader beside a 512 MiB burst from 0.2 ms to 15 ms (fio, run 47
     * to 49 of bench/transfer --as-user) while the due waits, set by the
     * fsync's one long stall, did not move */
    [MET_READER_READ_P99] = { "reader_read_p99", "ms", -1, 0, "99th percentile of the 4 KiB reader's reads themselves, each read's own time (no held-back ticks): what a latency-sensitive reader feels per request", "Reader per-read p99" },
    [MET_WRITE_P99] = { "write_p99", "ms", -1, 0, "99th percentile write latency of the workload", "Write p99 latency" },
    /* PSI is often 0: compared as 1 + % so a quiet run is not infinitely better */
    [MET_PSI_SOME] = { "psi_some", "%", -1, 1, "share of the run some task waited for I/O (PSI io some)", "PSI io some" },
    [MET_PSI_FULL] = { "psi_full", "%", -1, 1, "share of the run every task waited for I/O (PSI io full)", "PSI io full" },
};

static int metric_find(const char *name)
{
    for (int i = 0; i < MET_NR; i++)
        if (strcmp(metric_table[i].name, name) == 0) return i;
    return -1;
}

static int unknown_metric(sl_err *e, const char *name)
{
    char list[256] = "";
    for (int i = 0; i < MET_NR; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", metric_table[i].name);
    }
    return sl_fail(e, SL_EUSAGE, "objective: unknown metric \"%s\" (metrics: %s)", name, list);
}

/* "50ms", "0.5s", "50" (the metric's unit), "2" */
static int parse_limit(const char *s, int metric, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return -1;
    if (!*end) { *out = v; return 0; }
    if (strcmp(metric_table[metric].unit, "ms") == 0) {
        if (strcmp(end, "ms") == 0) { *out = v; return 0; }
        if (strcmp(end, "s") == 0) { *out = v * 1000; return 0; }
        if (strcmp(end, "us") == 0) { *out = v / 1000; return 0; }
    }
    if (strcmp(end, metric_table[metric].unit) == 0) { *out = v; return 0; }
    return -1;
}

static int parse_term(struct objective *o, char *t, sl_err *e)
{
    double w = 1;
    char *star = strchr(t, '*');
    if (star) {
        *star = 0;
        char *end;
        w = strtod(t, &end);
        if (end == t || *end || w <= 0) return sl_fail(e, SL_EUSAGE, "objective: weight \"%s\" must be a positive number", t);
        t = star + 1;
    }
    int m = metric_find(t);
    if (m < 0) return unknown_metric(e, t);
    if (o->nterms == OBJ_MAX_TERMS) return sl_fail(e, SL_EUSAGE, "objective: at most %d terms", OBJ_MAX_TERMS);
    o->term[o->nterms].metric = m;
    o->term[o->nterms++].w = w;
    return 0;
}

static int parse_constraint(struct objective *o, char *t, sl_err *e)
{
    char *op = strstr(t, "<=");
    bool le = true;
    if (!op) { op = strstr(t, ">="); le = false; }
    if (!op) return sl_fail(e, SL_EUSAGE, "objective: constraint \"%s\": expected METRIC<=VALUE or METRIC>=VALUE", t);
    *op = 0;
    int m = metric_find(t);
    if (m < 0) return unknown_metric(e, t);
    if (o->ncons == OBJ_MAX_TERMS) return sl_fail(e, SL_EUSAGE, "objective: at most %d constraints", OBJ_MAX_TERMS);
    if (strcmp(op + 2, "baseline") == 0) {
        /* a guard: never worse (le: never higher) than the baseline beyond noise */
        if (le != (metric_table[m].dir < 0))
            return sl_fail(e, SL_EUSAGE, "objective: guard \"%s%sbaseline\": %s is better %s, so write %s%sbaseline", t,
                           le ? "<=" : ">=", t, metric_table[m].dir < 0 ? "lower" : "higher", t,
                           metric_table[m].dir < 0 ? "<=" : ">=");
        o->cons[o->ncons].metric = m;
        o->cons[o->ncons].le = le;
        o->cons[o->ncons++].vs_base = true;
        return 0;
    }
    double lim;
    if (parse_limit(op + 2, m, &lim) < 0)
        return sl_fail(e, SL_EUSAGE, "objective: constraint on %s: \"%s\" is not a value in %s, nor \"baseline\"", t,
                       op + 2, metric_table[m].unit[0] ? metric_table[m].unit : "a count");
    o->cons[o->ncons].metric = m;
    o->cons[o->ncons].le = le;
    o->cons[o->ncons++].limit = lim;
    return 0;
}

int objective_parse(const char *text, struct objective *o, sl_err *e)
{
    memset(o, 0, sizeof *o);
    char buf[sizeof o->text];
    size_t j = 0;
    for (const char *p = text; *p && j < sizeof buf - 1; p++)
        if (!isspace((unsigned char)*p)) buf[j++] = *p;
    buf[j] = 0;
    if (!buf[0]) return sl_fail(e, SL_EUSAGE, "objective: empty (try throughput, p99 or \"throughput,canary_p99<=50ms\")");
    snprintf(o->text, sizeof o->text, "%s", buf);
    char *save, *part = strtok_r(buf, ",", &save);
    for (int i = 0; part; i++, part = strtok_r(NULL, ",", &save)) {
        if (i == 0) {
            char *save2, *t = strtok_r(part, "+", &save2);
            for (; t; t = strtok_r(NULL, "+", &save2))
                if (parse_term(o, t, e) < 0) return -1;
        } else if (parse_constraint(o, part, e) < 0) {
            return -1;
        }
    }
    if (o->nterms == 0) return sl_fail(e, SL_EUSAGE, "objective \"%s\" has no metric to optimise", text);
    return 0;
}

bool objective_feasible(const struct objective *o, const struct eval_metrics *m, char *why, size_t n)
{
    for (int i = 0; i < o->ncons; i++) {
        int k = o->cons[i].metric;
        if (!m->has[k] || o->cons[i].vs_base) continue;
        bool ok = o->cons[i].le ? m->v[k] <= o->cons[i].limit : m->v[k] >= o->cons[i].limit;
        if (!ok) {
            if (why) snprintf(why, n, "%s %.3g %s %s %.3g", metric_table[k].name, m->v[k], metric_table[k].unit,
                              o->cons[i].le ? "above" : "below", o->cons[i].limit);
            return false;
        }
    }
    return true;
}

bool objective_measured(const struct objective *o, const struct eval_metrics *m)
{
    for (int i = 0; i < o->nterms; i++)
        if (!m->has[o->term[i].metric]) return false;
    return true;
}

double objective_score(const struct objective *o, const struct eval_metrics *m)
{
    double s = 0, wsum = 0;
    for (int i = 0; i < o->nterms; i++) {
        int k = o->term[i].metric;
        if (!m->has[k]) return NAN;
        double v = m->v[k] + metric_table[k].offset;
        if (v <= 0) v = 1e-9;
        s += o->term[i].w * metric_table[k].dir * log(v);
        wsum += o->term[i].w;
    }
    s /= wsum;
    /* A violated constraint costs ten times its relative excess: feasible
     * points always rank above clearly infeasible ones. */
    for (int i = 0; i < o->ncons; i++) {
        int k = o->cons[i].metric;
        if (!m->has[k] || o->cons[i].vs_base) continue;
        double v = m->v[k] + metric_table[k].offset, lim = o->cons[i].limit + metric_table[k].offset;
        if (v <= 0) v = 1e-9;
        if (lim <= 0) lim = 1e-9;
        double excess = o->cons[i].le ? log(v / lim) : log(lim / v);
        if (excess > 0) s -= 10 * excess + 1;
    }
    return s;
}

void objective_goal_text(const struct objective *o, char *buf, size_t n)
{
    snprintf(buf, n, "%s", o->text);
    char *guard;
    while ((guard = strstr(buf, "<=baseline")) || (guard = strstr(buf, ">=baseline"))) {
        char *start = guard;
        while (start > buf && start[-1] != ',') start--;
        char *end = guard + strlen("<=baseline");
        if (start > buf) start--;   /* the comma before it */
        memmove(start, end, strlen(end) + 1);
    }
}

bool objective_single(const struct objective *o, int *metric)
{
    if (o->nterms != 1) return false;
    if (metric) *metric = o->term[0].metric;
    return true;
}

void eval_metrics_set_stall(struct eval_metrics *m, unsigned stall_by)
{
    m->stall_by = stall_by;
    m->stalled = (stall_by & PROBE_STALL_CANARY) != 0;
}

bool eval_stall_rule(double sleep_max_ms) { return sleep_max_ms * 1e6 >= (double)PROBE_EXTERNAL_STALL_NS; }
bool eval_psi_stall_rule(double full_pct) { return full_pct >= PROBE_PSI_FULL_STALL_PCT; }

void objective_metrics_from_run(const struct stored_run *r, struct eval_metrics *m)
{
    const struct run_metrics *x = &r->m;
    memset(m, 0, sizeof *m);
    snprintf(m->run_uuid, sizeof m->run_uuid, "%s", r->uuid ? r->uuid : "");
    m->v[MET_THROUGHPUT] = x->mb_s;
    m->has[MET_THROUGHPUT] = true;
    unsigned by = 0;
    if (!isnan(x->canary_sleep_max_ns)) {
        m->stall_ms = x->canary_sleep_max_ns / 1e6;
        if (eval_stall_rule(m->stall_ms)) by |= PROBE_STALL_CANARY;
    }
    if (!isnan(x->psi_full_pct) && eval_psi_stall_rule(x->psi_full_pct)) by |= PROBE_STALL_PSI;
    eval_metrics_set_stall(m, by);
    /* CPU-seconds per MB: (cpu% / 100) * wall / (MB/s * wall), in ms */
    if (x->mb_s > 0) {
        m->v[MET_CPU_PER_MB] = (x->cpu_usr_pct + x->cpu_sys_pct) * 10 / x->mb_s;
        m->has[MET_CPU_PER_MB] = true;
    }
    const struct { int k; double v, scale; } more[] = {
        { MET_P99, x->lat_p99_ns, 1e-6 },           { MET_CANARY_P99, x->canary_p99_ns, 1e-6 },
        { MET_STALLS, x->stalls_100ms, 1 },         { MET_READER_P50, x->reader_p50_ns, 1e-6 },
        { MET_READER_P99, x->reader_p99_ns, 1e-6 }, { MET_READER_MAX, x->reader_max_ns, 1e-6 },
        { MET_READER_READ_P99, x->reader_read_p99_ns, 1e-6 },
        { MET_WRITE_P99, x->write_p99_ns, 1e-6 },   { MET_PSI_SOME, x->psi_some_pct, 1 },
        { MET_PSI_FULL, x->psi_full_pct, 1 },
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        if (!isnan(more[i].v)) { m->v[more[i].k] = more[i].v * more[i].scale; m->has[more[i].k] = true; }
}
