/* evidence — stored runs as samples, and two-sample comparisons. */
#include "search/evidence.h"
#include "core/device.h"
#include "core/knob.h"
#include "stat/decide.h"
#include "db/store_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* src (NULL: "") cut to n - 1 bytes; snprintf was a tenth of a 200k-run load. */
static void copy_field(char *dst, size_t n, const char *src)
{
    size_t len = src ? strnlen(src, n - 1) : 0;
    if (len) memcpy(dst, src, len);
    dst[len] = 0;
}

/* The index of the workload with this hash, added when new (the last one
 * looked up first: runs of one workload come in a row). */
static int intern_work(struct evidence *ev, const char *hash, const char *text)
{
    if (!hash) hash = "";
    int *last = &ev->last_work;
    if (*last < ev->nwork && strcmp(ev->work[*last].hash, hash) == 0) return *last;
    for (int i = 0; i < ev->nwork; i++)
        if (strcmp(ev->work[i].hash, hash) == 0) return *last = i;
    ev->work = xgrow(ev->work, ev->nwork, &ev->work_cap, sizeof *ev->work, 8);
    copy_field(ev->work[ev->nwork].hash, sizeof ev->work[0].hash, hash);
    ev->work[ev->nwork].text = xstrdup(text ? text : "");
    return *last = ev->nwork++;
}

static int add(void *arg, const struct stored_run *r)
{
    struct evidence *ev = arg;
    /* doubling: 200k runs of ~600 bytes would otherwise be copied ~3,000 times */
    ev->run = xgrow(ev->run, ev->n, &ev->cap, sizeof *ev->run, 64);
    struct run_sample *s = &ev->run[ev->n++];
    s->config_text = xstrdup(r->config_text);
    copy_field(s->kernel, sizeof s->kernel, r->kernel);
    copy_field(s->host_uuid, sizeof s->host_uuid, r->host_uuid);
    copy_field(s->hw_class, sizeof s->hw_class, r->hw_class);
    copy_field(s->workload, sizeof s->workload, r->workload);
    copy_field(s->config_hash, sizeof s->config_hash, r->config_hash);
    if (r->host_cpu_model) host_class_of(r->host_cpu_model, r->host_cpus, r->host_mem_bytes, s->host_class, sizeof s->host_class);
    s->work = intern_work(ev, r->workload_hash, r->workload_text);
    objective_metrics_from_run(r, &s->m);
    return 0;
}

int evidence_load(store *st, const char *workload, struct evidence *ev, sl_err *e)
{
    memset(ev, 0, sizeof *ev);
    if (store_search_runs(st, workload, add, ev, e) < 0) { evidence_free(ev); return -1; }
    return 0;
}

void evidence_free(struct evidence *ev)
{
    for (int i = 0; i < ev->n; i++) free(ev->run[i].config_text);
    for (int i = 0; i < ev->nwork; i++) free(ev->work[i].text);
    free(ev->work);
    free(ev->run);
    memset(ev, 0, sizeof *ev);
}

int evidence_scope_this_host(store *st, struct evidence_scope *sc, sl_err *e)
{
    memset(sc, 0, sizeof *sc);
    struct host_info h;
    int64_t host_id;
    if (host_read(&h, e) < 0 || store_host_upsert(st, &h, &host_id, sc->host_uuid, e) < 0) return -1;
    host_class_of(h.cpu_model, h.cpus, (long long)h.mem_bytes, sc->host_class, sizeof sc->host_class);
    struct device *devs = NULL;
    int nd = device_list(&devs, NULL);
    if (nd < 0) nd = 0;
    sc->classes = xcalloc((size_t)nd + 1, sizeof *sc->classes);
    for (int i = 0; i < nd; i++) device_class(&devs[i], sc->classes[i], sizeof sc->classes[i]);
    sc->nclasses = nd;
    free(devs);
    return 0;
}

void evidence_scope_free(struct evidence_scope *sc)
{
    free(sc->classes);
    memset(sc, 0, sizeof *sc);
}

bool evidence_run_in_scope(const struct run_sample *r, const struct evidence_scope *sc)
{
    if (strcmp(r->host_uuid, sc->host_uuid) == 0) return true;
    if (!r->hw_class[0]) return r->host_class[0] && strcmp(r->host_class, sc->host_class) == 0;
    for (int i = 0; i < sc->nclasses; i++)
        if (strcmp(sc->classes[i], r->hw_class) == 0) return true;
    return false;
}

void evidence_keep_scope(struct evidence *ev, const struct evidence_scope *sc)
{
    int m = 0;
    for (int i = 0; i < ev->n; i++) {
        if (evidence_run_in_scope(&ev->run[i], sc)) ev->run[m++] = ev->run[i];
        else free(ev->run[i].config_text);
    }
    ev->n = m;
}

void evidence_keep_workload(struct evidence *ev, const char *workload)
{
    int m = 0;
    for (int i = 0; i < ev->n; i++) {
        if (strcmp(ev->run[i].workload, workload) == 0) ev->run[m++] = ev->run[i];
        else free(ev->run[i].config_text);
    }
    ev->n = m;
}

/* Runs ordered by workload, then by their place in ev. */
static int cmp_workload(const void *a, const void *b)
{
    const struct run_sample *x = *(const struct run_sample *const *)a, *y = *(const struct run_sample *const *)b;
    int c = strcmp(x->workload, y->workload);
    return c ? c : (x > y) - (x < y);
}

/* Sorted, then counted in stretches of one name: O(n log n). Equal counts
 * go to the workload seen first in ev, as the pairwise count did. */
void evidence_top_workload(const struct evidence *ev, char *buf, size_t n)
{
    buf[0] = 0;
    if (ev->n == 0) return;
    const struct run_sample **r = xmalloc(sizeof *r * (size_t)ev->n);
    for (int i = 0; i < ev->n; i++) r[i] = &ev->run[i];
    qsort(r, (size_t)ev->n, sizeof *r, cmp_workload);
    int best = 0;
    const struct run_sample *top = NULL;   /* the first run of the best workload */
    for (int i = 0, j; i < ev->n; i = j) {
        for (j = i + 1; j < ev->n && strcmp(r[j]->workload, r[i]->workload) == 0; j++) {}
        if (j - i > best || (j - i == best && r[i] < top)) { best = j - i; top = r[i]; }
    }
    if (top) snprintf(buf, n, "%s", top->workload);   /* ev->n > 0: always set */
    free(r);
}

bool evidence_config_has(const char *config_text, const char *sel)
{
    const char *p = sel;
    while (*p) {
        p += strspn(p, " ,\n");
        size_t len = strcspn(p, " ,\n");
        if (!len) break;
        char line[512];
        snprintf(line, sizeof line, "%.*s\n", (int)len, p);
        /* whole lines only: "vm.dirty_ratio=2" must not match "=20" */
        const char *hit = config_text;
        bool found = false;
        while ((hit = strstr(hit, line)) != NULL) {
            if (hit == config_text || hit[-1] == '\n') { found = true; break; }
            hit++;
        }
        if (!found) return false;
        p += len;
    }
    return true;
}

int evidence_changes_from_defaults(const char *config_text)
{
    int n = 0;
    const char *p = config_text;
    while (*p) {
        size_t len = strcspn(p, "\n");
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        p += len + (p[len] == '\n');
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        struct knob k;
        if (knob_lookup(line, NULL, &k, NULL) < 0 || !k.def->def || !(k.def->flags & KF_SEARCH)) continue;
        n += !knob_values_equal(&k, eq + 1, k.def->def);
    }
    return n;
}

static const char *value_in(const char *text, const char *knob, size_t klen, char *buf, size_t n)
{
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, "\n");
        if (len > klen && strncmp(p, knob, klen) == 0 && p[klen] == '=') {
            snprintf(buf, n, "%.*s", (int)(len - klen - 1), p + klen + 1);
            return buf;
        }
        p += len + (p[len] == '\n');
    }
    return NULL;
}

void evidence_config_diff(const char *a, const char *b, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    const char *p = b;
    while (*p && used < n) {
        size_t len = strcspn(p, "\n");
        const char *eq = memchr(p, '=', len);
        if (eq) {
            char va[256];
            const char *old = value_in(a, p, (size_t)(eq - p), va, sizeof va);
            if (old && (strlen(old) != (size_t)(p + len - eq - 1) || strncmp(old, eq + 1, (size_t)(p + len - eq - 1)) != 0))
                used += (size_t)snprintf(buf + used, n - used, "%s%.*s", used ? " " : "", (int)len, p);
        }
        p += len + (p[len] == '\n');
    }
}

void evidence_mean(const struct eval_metrics *v, int n, struct eval_metrics *out)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < MET_NR; k++) {
        int c = 0;
        for (int i = 0; i < n; i++)
            if (v[i].has[k]) { out->v[k] += v[i].v[k]; c++; }
        out->has[k] = c > 0;
        if (c) out->v[k] /= c;
    }
}

void evidence_compare(const struct objective *o, const struct eval_metrics *a, int na, const struct eval_metrics *b,
                      int nb, double alpha, enum search_test test, struct comparison *out)
{
    evidence_compare_hosts(o, a, NULL, na, b, NULL, nb, alpha, test, out);   /* allocates nothing without hosts */
}

static int cmp_host_at(const void *a, const void *b)
{
    const struct host_at *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

struct host_at *evidence_hosts_sorted(const char *const *hosts, int n)
{
    struct host_at *s = xmalloc(sizeof *s * (size_t)(n + 1));
    for (int i = 0; i < n; i++) s[i] = (struct host_at){ hosts[i] ? hosts[i] : "", i };
    qsort(s, (size_t)n, sizeof *s, cmp_host_at);
    return s;
}

static int cmp_runs_desc(const void *a, const void *b)
{
    const struct host_runs *x = a, *y = b;
    if (x->runs != y->runs) return x->runs < y->runs ? 1 : -1;
    return strcmp(x->host, y->host);
}

void evidence_attribution(const char *const *hosts, int n, struct host_attribution *out)
{
    memset(out, 0, sizeof *out);
    if (!hosts || n <= 0) return;
    struct host_at *s = evidence_hosts_sorted(hosts, n);
    out->h = xmalloc(sizeof *out->h * (size_t)n);
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && strcmp(s[j].host, s[i].host) == 0; j++) {}
        out->h[out->n++] = (struct host_runs){ hosts[s[i].at] ? hosts[s[i].at] : "", j - i };
    }
    qsort(out->h, (size_t)out->n, sizeof *out->h, cmp_runs_desc);
    free(s);
}

void evidence_attribution_free(struct host_attribution *a)
{
    free(a->h);
    memset(a, 0, sizeof *a);
}

bool evidence_by_host(const struct host_attribution *a, const struct host_attribution *b)
{
    if (a->n > 1 || b->n > 1) return true;
    return a->n == 1 && b->n == 1 && strcmp(a->h[0].host, b->h[0].host) != 0;
}

int evidence_host_scores(const struct objective *o, const struct eval_metrics *m, const char *const *hosts, int n,
                         double *out)
{
    if (n <= 0) return 0;
    const char **none = NULL;
    if (!hosts) {
        none = xcalloc((size_t)n, sizeof *none);
        hosts = none;
    }
    struct host_at *s = evidence_hosts_sorted(hosts, n);
    int k = 0;
    for (int i = 0, j; i < n; i = j) {
        double sum = 0;
        int c = 0;
        for (j = i; j < n && strcmp(s[j].host, s[i].host) == 0; j++) {
            double v = objective_score(o, &m[s[j].at]);
            if (!isnan(v)) { sum += v; c++; }
        }
        if (c) out[k++] = sum / c;
    }
    free(s);
    free(none);
    return k;
}

/* The host-level verdict: each host's mean score once, decided by
 * decide_compare (scores are logs; higher is better). */
static void judge_by_host(const struct objective *o, const struct eval_metrics *a, const char *const *ha, int na,
                          const struct eval_metrics *b, const char *const *hb, int nb, double alpha,
                          enum search_test test, struct comparison *out)
{
    double *sa = xmalloc(sizeof *sa * (size_t)(na + 1)), *sb = xmalloc(sizeof *sb * (size_t)(nb + 1));
    int ma = evidence_host_scores(o, a, ha, na, sa), mb = evidence_host_scores(o, b, hb, nb, sb);
    const double *scores[1] = { sb };
    int ns[1] = { mb };
    out->l.n = mb;
    search_judge(&out->l, scores, ns, 1, sa, ma, alpha, test, 1, false);
    struct decide_opts d;
    search_score_opts(&d, alpha);
    struct decision dec;
    sl_err e;
    if (decide_compare(sa, ma, sb, mb, &d, &dec, &e) == 0) {
        out->l.ci.est = dec.effect_pct / 100;
        out->l.ci.lo = dec.lo_pct / 100;
        out->l.ci.hi = dec.hi_pct / 100;
        out->l.p_adj = dec.p;
        if (!out->l.feasible) out->l.verdict = VERDICT_INFEASIBLE;
        else out->l.verdict = dec.verdict == DECIDE_BETTER ? VERDICT_WIN : dec.verdict == DECIDE_WORSE ? VERDICT_WORSE : VERDICT_NOISE;
        decide_text(&dec, out->host_decision, sizeof out->host_decision);
    }
    out->na = ma;
    out->nb = mb;
    free(sa);
    free(sb);
}

void evidence_compare_hosts(const struct objective *o, const struct eval_metrics *a, const char *const *ha, int na,
                            const struct eval_metrics *b, const char *const *hb, int nb, double alpha,
                            enum search_test test, struct comparison *out)
{
    memset(out, 0, sizeof *out);
    evidence_attribution(ha, na, &out->hosts_a);
    evidence_attribution(hb, nb, &out->hosts_b);
    out->by_host = evidence_by_host(&out->hosts_a, &out->hosts_b);
    evidence_mean(a, na, &out->mean_a);
    evidence_mean(b, nb, &out->mean_b);
    out->l.mean = out->mean_b;
    out->l.feasible = objective_feasible(o, &out->mean_b, out->l.infeasible_why, sizeof out->l.infeasible_why);
    if (out->by_host) {
        judge_by_host(o, a, ha, na, b, hb, nb, alpha, test, out);
        return;
    }
    double *sa = xmalloc(sizeof *sa * (size_t)(na + 1)), *sb = xmalloc(sizeof *sb * (size_t)(nb + 1));
    int ma = 0, mb = 0;
    for (int i = 0; i < na; i++) { double s = objective_score(o, &a[i]); if (!isnan(s)) sa[ma++] = s; }
    for (int i = 0; i < nb; i++) { double s = objective_score(o, &b[i]); if (!isnan(s)) sb[mb++] = s; }
    out->l.n = mb;
    const double *scores[1] = { sb };
    int ns[1] = { mb };
    search_judge(&out->l, scores, ns, 1, sa, ma, alpha, test, 1, false);
    out->na = ma;
    out->nb = mb;
    free(sa);
    free(sb);
}

void evidence_comparison_free(struct comparison *c)
{
    evidence_attribution_free(&c->hosts_a);
    evidence_attribution_free(&c->hosts_b);
}
