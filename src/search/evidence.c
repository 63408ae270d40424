/* evidence — stored runs as samples, and two-sample comparisons. */
#include "search/evidence.h"
#include "knob.h"
#include "store_search.h"

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

static int add(void *arg, const struct stored_run *r)
{
    struct evidence *ev = arg;
    /* doubling: 200k runs of ~600 bytes would otherwise be copied ~3,000 times */
    if (ev->n == ev->cap) {
        ev->cap = ev->cap ? 2 * ev->cap : 64;
        ev->run = xrealloc(ev->run, sizeof *ev->run * (size_t)ev->cap);
    }
    struct run_sample *s = &ev->run[ev->n++];
    memset(s, 0, sizeof *s);
    s->config_text = xstrdup(r->config_text);
    copy_field(s->kernel, sizeof s->kernel, r->kernel);
    copy_field(s->host_uuid, sizeof s->host_uuid, r->host_uuid);
    copy_field(s->hw_class, sizeof s->hw_class, r->hw_class);
    copy_field(s->workload, sizeof s->workload, r->workload);
    copy_field(s->config_hash, sizeof s->config_hash, r->config_hash);
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
    free(ev->run);
    memset(ev, 0, sizeof *ev);
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
    snprintf(buf, n, "%s", top->workload);
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
    memset(out, 0, sizeof *out);
    out->na = na;
    out->nb = nb;
    evidence_mean(a, na, &out->mean_a);
    evidence_mean(b, nb, &out->mean_b);
    double *sa = xmalloc(sizeof *sa * (size_t)(na + 1)), *sb = xmalloc(sizeof *sb * (size_t)(nb + 1));
    int ma = 0, mb = 0;
    for (int i = 0; i < na; i++) { double s = objective_score(o, &a[i]); if (!isnan(s)) sa[ma++] = s; }
    for (int i = 0; i < nb; i++) { double s = objective_score(o, &b[i]); if (!isnan(s)) sb[mb++] = s; }
    out->l.n = mb;
    out->l.mean = out->mean_b;
    out->l.feasible = objective_feasible(o, &out->mean_b, out->l.infeasible_why, sizeof out->l.infeasible_why);
    const double *scores[1] = { sb };
    int ns[1] = { mb };
    search_judge(&out->l, scores, ns, 1, sa, ma, alpha, test, 1);
    out->na = ma;
    out->nb = mb;
    free(sa);
    free(sb);
}
