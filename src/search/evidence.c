/* evidence — stored runs as samples, and two-sample comparisons. */
#include "search/evidence.h"
#include "knob.h"
#include "store_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(void *arg, const struct stored_run *r)
{
    struct evidence *ev = arg;
    if (ev->n % 64 == 0) ev->run = xrealloc(ev->run, sizeof *ev->run * (size_t)(ev->n + 64));
    struct run_sample *s = &ev->run[ev->n++];
    memset(s, 0, sizeof *s);
    s->config_text = xstrdup(r->config_text);
    snprintf(s->kernel, sizeof s->kernel, "%s", r->kernel ? r->kernel : "");
    snprintf(s->host_uuid, sizeof s->host_uuid, "%s", r->host_uuid ? r->host_uuid : "");
    snprintf(s->hw_class, sizeof s->hw_class, "%s", r->hw_class ? r->hw_class : "");
    snprintf(s->workload, sizeof s->workload, "%s", r->workload ? r->workload : "");
    snprintf(s->config_hash, sizeof s->config_hash, "%s", r->config_hash ? r->config_hash : "");
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

void evidence_top_workload(const struct evidence *ev, char *buf, size_t n)
{
    int best = 0;
    buf[0] = 0;
    for (int i = 0; i < ev->n; i++) {
        int c = 0;
        for (int j = 0; j < ev->n; j++) c += strcmp(ev->run[j].workload, ev->run[i].workload) == 0;
        if (c > best) { best = c; snprintf(buf, n, "%s", ev->run[i].workload); }
    }
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
