/* metric — the metric table's rows, and a value as text and JSON. */
#include "core/run_metric.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const struct run_metric run_metric_table[RM_NR] = {
#define METRIC_ROW(A, n, kept, path, g, lab, u, l, h, f, b) \
    { .name = #n, .column = METRIC_KEPT_##kept, .json_path = path, .group = g, .label = lab, .unit = u, .lo = l, \
      .hi = h, .format = f, .better = b, .offset = offsetof(struct run_metrics, n) },
#define METRIC_KEPT_C true
#define METRIC_KEPT_J false
    METRIC_TABLE(METRIC_ROW, )
#undef METRIC_KEPT_J
#undef METRIC_KEPT_C
#undef METRIC_ROW
};

static const char *const group_names[MG_NR] = {
    [MG_RUN] = "total", [MG_LAT] = "lat", [MG_CPU] = "cpu", [MG_DISK] = "disk", [MG_DIRTY] = "dirty",
    [MG_PSI] = "psi io", [MG_CANARY] = "canary", [MG_READER] = "reader",
};

const char *run_metric_group_name(enum run_metric_group g) { return g < MG_NR ? group_names[g] : "?"; }

void run_metric_clear(struct run_metrics *m)
{
    for (int i = 0; i < RM_NR; i++) run_metric_set(m, i, NAN);
}

double run_metric_get(const struct run_metrics *m, int id)
{
    double v;
    memcpy(&v, (const char *)m + run_metric_table[id].offset, sizeof v);
    return v;
}

void run_metric_set(struct run_metrics *m, int id, double v) { memcpy((char *)m + run_metric_table[id].offset, &v, sizeof v); }

const struct run_metric *run_metric_find(const char *name)
{
    for (int i = 0; i < RM_NR; i++)
        if (strcmp(run_metric_table[i].name, name) == 0) return &run_metric_table[i];
    return NULL;
}

void run_metric_format_ns(double ns, char *buf, size_t n)
{
    if (ns < 1000) snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e6) snprintf(buf, n, "%.*f us", ns < 1e4 ? 2 : 1, ns / 1e3);
    else if (ns < 1e9) snprintf(buf, n, "%.*f ms", ns < 1e7 ? 2 : 1, ns / 1e6);
    else snprintf(buf, n, "%.2f s", ns / 1e9);
}

const char *run_metric_text(int id, double v, char *buf, size_t n)
{
    const struct run_metric *d = &run_metric_table[id];
    if (isnan(v)) { snprintf(buf, n, "-"); return buf; }
    if (d->format == MF_NS) { run_metric_format_ns(v, buf, n); return buf; }
    int dec = d->format == MF_INT || d->format == MF_F0 ? 0 : d->format - MF_F0;
    const char *sep = !d->unit[0] ? "" : strcmp(d->unit, "%") == 0 ? "" : " ";
    snprintf(buf, n, "%.*f%s%s", dec, v, sep, d->unit);
    return buf;
}

const char *run_metric_group_text(const struct run_metrics *m, enum run_metric_group g, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < RM_NR && len < n; i++) {
        double v = run_metric_get(m, i);
        if (run_metric_table[i].group != g || isnan(v)) continue;
        char val[48];
        run_metric_text(i, v, val, sizeof val);
        const char *label = run_metric_table[i].label;
        int w = snprintf(buf + len, n - len, "%s%s%s%s", len ? "  " : "", label, label[0] ? " " : "", val);
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

json_t *run_metric_json_real(double v)
{
    if (!isfinite(v)) return json_null();
    if (v == 0) return json_real(0);
    double mag = pow(10, 5 - floor(log10(fabs(v))));
    return json_real(round(v * mag) / mag);
}

static json_t *json_value(int id, double v)
{
    if (!isfinite(v)) return json_null();
    enum run_metric_format f = run_metric_table[id].format;
    if (f == MF_NS || f == MF_INT) return json_integer((json_int_t)llround(v));
    return run_metric_json_real(v);
}

/* The object holding a dotted path's last key, and that key; NULL when a
 * parent is missing or not an object. */
static json_t *parent_of(json_t *o, const char *path, char *key, size_t n)
{
    const char *dot;
    while ((dot = strchr(path, '.'))) {
        char part[64];
        snprintf(part, sizeof part, "%.*s", (int)(dot - path), path);
        o = json_object_get(o, part);
        if (!json_is_object(o)) return NULL;
        path = dot + 1;
    }
    snprintf(key, n, "%s", path);
    return json_is_object(o) ? o : NULL;
}

void run_metric_json_put(json_t *o, const struct run_metrics *m)
{
    for (int i = 0; i < RM_NR; i++) {
        double v = run_metric_get(m, i);
        char key[64];
        json_t *p = isnan(v) ? NULL : parent_of(o, run_metric_table[i].json_path, key, sizeof key);
        if (p) json_object_set_new(p, key, json_value(i, v));
    }
}

void run_metric_json_get(const json_t *o, struct run_metrics *m)
{
    for (int i = 0; i < RM_NR; i++) {
        char key[64];
        json_t *p = parent_of((json_t *)o, run_metric_table[i].json_path, key, sizeof key);
        json_t *v = p ? json_object_get(p, key) : NULL;
        run_metric_set(m, i, json_is_number(v) ? json_number_value(v) : NAN);
    }
}
