/* probe_store — a result plus host and device facts into the store: the
 * result rendered into the store's neutral run record. */
#include "probe/probe_store.h"
#include "core/device.h"
#include "db/store_run.h"

#include <stdlib.h>
#include <string.h>

unsigned char *probe_hist_blob(const struct probe_result *r, size_t *len)
{
    size_t need = 0;
    for (int op = 0; op < PROBE_OP_NR; op++)
        if (r->op[op].hist.n) need += 1 + hist_encoded_size(&r->op[op].hist);
    unsigned char *blob = xmalloc(need ? need : 1), *p = blob;
    for (int op = 0; op < PROBE_OP_NR; op++) {
        if (!r->op[op].hist.n) continue;
        *p++ = (unsigned char)op;
        p += hist_encode(&r->op[op].hist, p);
    }
    *len = (size_t)(p - blob);
    return blob;
}

int probe_hist_decode(const unsigned char *blob, size_t len, struct probe_result *r)
{
    size_t off = 0;
    while (off < len) {
        unsigned op = blob[off++];
        if (op >= PROBE_OP_NR) return -1;
        size_t used = hist_decode(&r->op[op].hist, blob + off, len - off);
        if (!used) return -1;
        off += used;
    }
    return 0;
}

/* The text columns borrowed from r, the metrics as measured. */
static void fill_record(struct run_record *rec, const struct probe_result *r)
{
    rec->uuid = r->uuid;
    rec->batch = r->batch;
    rec->rep = r->rep;
    rec->device_name = r->disk.available ? r->disk.name : "";
    rec->kernel = r->kernel;
    rec->workload = r->spec.workload;
    rec->workload_hash = r->workload_hash;
    rec->workload_text = r->workload_text;
    rec->config_hash = r->config_hash;
    rec->config_text = r->config_text;
    rec->dir = r->spec.ndirs ? r->spec.dir[0] : "";
    rec->seed = r->seed;
    rec->started = r->started;
    rec->status = probe_status_name(r->status);
    rec->note = r->note;
    rec->m = r->m;
    rec->reached_threshold = probe_threshold_reached(r);
}

/* r as the store's record; free the three rendered parts after saving. */
static void render_record(struct run_record *rec, const struct probe_result *r, char **metrics, char **series_text,
                          unsigned char **blob)
{
    memset(rec, 0, sizeof *rec);
    fill_record(rec, r);
    json_t *j = probe_result_json(r);
    json_t *series = json_incref(json_object_get(j, "series"));
    json_object_del(j, "series");
    *metrics = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    *series_text = json_dumps(series, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    json_decref(series);
    *blob = probe_hist_blob(r, &rec->hist_len);
    rec->metrics_json = *metrics;
    rec->series_json = *series_text;
    rec->hist = *blob;
}

int probe_store(store *st, const struct probe_result *r, sl_err *e)
{
    struct host_info h;
    if (host_read(&h, e) < 0) return -1;
    struct device d;
    bool have = r->disk.available && device_get(r->disk.name, &d, NULL) == 0;
    struct run_record rec;
    char *metrics, *series;
    unsigned char *blob;
    render_record(&rec, r, &metrics, &series, &blob);
    int rc = store_run_save(st, &rec, &h, have ? &d : NULL, e);
    free(metrics);
    free(series);
    free(blob);
    return rc;
}
