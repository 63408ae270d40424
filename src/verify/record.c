/* record — a live verification in the store: the test's row when its
 * session opens, a row per block as it is measured, its end; and a stored
 * test read back as a run, its verdict drawn again by verify_decide (one
 * decision code for the live test, `report` and the UI). */
#include "verify/live.h"
#include "db/store_verify.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const end_names[] = { "done", "guard", "interrupted", "idle", "failed", "killed" };

const char *verify_end_name(enum verify_end e)
{
    return end_names[e];
}

static void order_text(const struct verify_plan *p, char *buf, size_t n)
{
    buf[0] = 0;
    for (int k = 0; k < p->npairs && strlen(buf) + 4 < n; k++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", k ? " " : "", p->cand[2 * k] ? "BA" : "AB");
}

static void plan_json(const struct verify_run *r, char *buf, size_t n)
{
    const struct verify_plan *p = &r->plan;
    char order[VERIFY_BLOCKS_MAX * 2];
    order_text(p, order, sizeof order);
    json_t *o = json_pack("{s:i,s:s,s:[I,I],s:[s,s],s:b,s:s,s:s,s:I,s:f,s:i}", "blocks_planned", p->nblocks, "order",
                          order, "settle_ms", (json_int_t)p->settle_after_ms[0], (json_int_t)p->settle_after_ms[1],
                          "settle_why", p->settle_why[0], p->settle_why[1], "canary", p->canary, "canary_why",
                          p->canary_why, "disks_why", p->disks_why, "sample_ms", (json_int_t)p->sample_ms,
                          "guard_factor", r->spec.guard_factor, "guard_samples", r->spec.guard_samples);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    /* a long order does not fit: the blocks stored say it again */
    if (text && strlen(text) >= n) {
        json_object_set_new(o, "order", json_string(""));
        free(text);
        text = json_dumps(o, JSON_COMPACT);
    }
    snprintf(buf, n, "%s", text ? text : "{}");
    free(text);
    json_decref(o);
}

int verify_record_start(store *st, struct verify_run *r, int64_t session_id, sl_err *e)
{
    struct verify_row *row = xcalloc(1, sizeof *row);
    row->session_id = session_id;
    snprintf(row->candidate, sizeof row->candidate, "%s", r->plan.cand_text);
    snprintf(row->baseline, sizeof row->baseline, "%s", r->plan.base_text);
    snprintf(row->source, sizeof row->source, "%s", r->spec.source ? r->spec.source : "");
    row->duration_ms = r->spec.duration_ms;
    row->block_ms = r->spec.block_ms;
    row->seed = (int64_t)r->spec.seed;
    snprintf(row->metric_cmd, sizeof row->metric_cmd, "%s", r->spec.metric_cmd ? r->spec.metric_cmd : "");
    row->metric_higher = r->spec.metric_higher;
    snprintf(row->dir, sizeof row->dir, "%s", r->spec.dir ? r->spec.dir : "");
    for (int i = 0; i < r->plan.ndisks; i++)
        snprintf(row->disks + strlen(row->disks), sizeof row->disks - strlen(row->disks), "%s%s", i ? " " : "",
                 r->plan.disks[i]);
    plan_json(r, row->plan_json, sizeof row->plan_json);
    int rc = store_verify_create(st, row, e);
    if (rc == 0) {
        r->id = row->id;
        snprintf(r->uuid, sizeof r->uuid, "%s", row->uuid);
    }
    free(row);
    return rc;
}

static void iso_utc(long long epoch_ms, char *buf, size_t n)
{
    time_t t = (time_t)(epoch_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int verify_record_block(store *st, const struct verify_run *r, int i, sl_err *e)
{
    const struct verify_block *b = &r->blocks[i];
    struct verify_block_row row = { .seq = i, .start_ms = b->start_ms, .settle_ms = b->settle_ms, .end_ms = b->end_ms,
                                    .complete = i < r->ncomplete, .util_pct = b->util_pct, .io_bytes_s = b->io_bytes_s };
    snprintf(row.arm, sizeof row.arm, "%s", b->cand ? "B" : "A");
    snprintf(row.setting, sizeof row.setting, "%s", b->cand ? r->plan.cand_text : r->plan.base_text);
    iso_utc(b->wall_end_ms - (b->end_ms - b->start_ms), row.started, sizeof row.started);
    iso_utc(b->wall_end_ms, row.ended, sizeof row.ended);
    json_t *m = json_object();
    for (int k = 0; k < VM_NR; k++)
        if (b->has[k]) json_object_set_new(m, verify_metrics[k].name, json_real(b->v[k]));
    char *text = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    snprintf(row.metrics_json, sizeof row.metrics_json, "%s", text ? text : "{}");
    free(text);
    snprintf(row.note, sizeof row.note, "%s", b->note);
    return store_verify_block_add(st, r->id, &row, e);
}

int verify_record_end(store *st, const struct verify_run *r, sl_err *e)
{
    struct verify_row *row = xcalloc(1, sizeof *row);
    row->id = r->id;
    snprintf(row->state, sizeof row->state, "%s", verify_end_name(r->end));
    snprintf(row->end_why, sizeof row->end_why, "%s", r->end_why);
    if (r->ncomplete >= 2) snprintf(row->verdict, sizeof row->verdict, "%s", verify_overall_name(r->verdict.overall));
    row->held = r->verdict.held && r->end == VE_DONE;
    row->kept = r->kept;
    snprintf(row->put_back, sizeof row->put_back, "%s", r->put_back);
    int rc = store_verify_finish(st, row, e);
    free(row);
    return rc;
}

/* --- read back ------------------------------------------------------------- */

static void load_plan(struct verify_run *r, const struct verify_row *row)
{
    struct verify_plan *p = &r->plan;
    json_t *o = json_loads(row->plan_json, 0, NULL);
    p->nblocks = json_integer_value(json_object_get(o, "blocks_planned"));
    if (p->nblocks < 0 || p->nblocks > VERIFY_BLOCKS_MAX) p->nblocks = 0;
    p->npairs = p->nblocks / 2;
    const char *order = json_string_value(json_object_get(o, "order"));
    for (int k = 0; order && k < p->npairs && order[3 * k] && order[3 * k + 1]; k++) {
        p->cand[2 * k] = order[3 * k] == 'B';
        p->cand[2 * k + 1] = order[3 * k] != 'B';
    }
    for (int side = 0; side < 2; side++) {
        p->settle_after_ms[side] = json_integer_value(json_array_get(json_object_get(o, "settle_ms"), (size_t)side));
        const char *why = json_string_value(json_array_get(json_object_get(o, "settle_why"), (size_t)side));
        snprintf(p->settle_why[side], sizeof p->settle_why[side], "%s", why ? why : "");
    }
    p->canary = json_is_true(json_object_get(o, "canary"));
    const char *cw = json_string_value(json_object_get(o, "canary_why"));
    snprintf(p->canary_why, sizeof p->canary_why, "%s", cw ? cw : "");
    const char *dw = json_string_value(json_object_get(o, "disks_why"));
    snprintf(p->disks_why, sizeof p->disks_why, "%s", dw ? dw : "");
    p->sample_ms = json_integer_value(json_object_get(o, "sample_ms"));
    r->spec.guard_factor = json_is_number(json_object_get(o, "guard_factor")) ? json_number_value(json_object_get(o, "guard_factor")) : 2;
    r->spec.guard_samples = (int)json_integer_value(json_object_get(o, "guard_samples"));
    json_decref(o);
    snprintf(p->cand_text, sizeof p->cand_text, "%s", row->candidate);
    snprintf(p->base_text, sizeof p->base_text, "%s", row->baseline);
    char disks[sizeof row->disks];
    snprintf(disks, sizeof disks, "%s", row->disks);
    for (char *save, *t = strtok_r(disks, " ", &save); t && p->ndisks < VERIFY_DISKS_MAX; t = strtok_r(NULL, " ", &save))
        snprintf(p->disks[p->ndisks++], sizeof p->disks[0], "%s", t);
}

static void load_block(struct verify_block *b, const struct verify_block_row *row)
{
    memset(b, 0, sizeof *b);
    b->cand = strcmp(row->arm, "B") == 0;
    b->start_ms = row->start_ms;
    b->settle_ms = row->settle_ms;
    b->end_ms = row->end_ms;
    b->util_pct = row->util_pct;
    b->io_bytes_s = row->io_bytes_s;
    snprintf(b->note, sizeof b->note, "%s", row->note);
    json_t *m = json_loads(row->metrics_json, 0, NULL);
    for (int k = 0; k < VM_NR; k++) {
        json_t *v = json_object_get(m, verify_metrics[k].name);
        if (json_is_number(v)) b->v[k] = json_number_value(v), b->has[k] = true;
    }
    json_decref(m);
}

static enum verify_end end_of(const char *state)
{
    for (size_t i = 0; i < sizeof end_names / sizeof end_names[0]; i++)
        if (strcmp(end_names[i], state) == 0) return (enum verify_end)i;
    return VE_FAILED;   /* still 'running': running now, or killed and not yet restored */
}

int verify_load(store *st, const char *prefix, struct verify_run *r, struct verify_row *row, sl_err *e)
{
    memset(r, 0, sizeof *r);
    if (store_verify_get(st, prefix, row, e) < 0) return -1;
    struct verify_block_row *rows;
    int n = store_verify_blocks(st, row->id, &rows, e);
    if (n < 0) return -1;
    r->spec = (struct verify_spec){ .duration_ms = row->duration_ms, .block_ms = row->block_ms,
                                    .seed = (uint64_t)row->seed, .dir = row->dir[0] ? row->dir : NULL,
                                    .metric_cmd = row->metric_cmd[0] ? row->metric_cmd : NULL,
                                    .metric_higher = row->metric_higher, .source = row->source };
    load_plan(r, row);
    if (n > r->plan.nblocks) n = r->plan.nblocks;
    r->blocks = xcalloc((size_t)(n ? n : 1), sizeof *r->blocks);
    for (int i = 0; i < n; i++) {
        load_block(&r->blocks[i], &rows[i]);
        if (rows[i].complete && r->ncomplete == i) r->ncomplete = i + 1;
    }
    free(rows);
    r->ndone = n;
    r->id = row->id;
    snprintf(r->uuid, sizeof r->uuid, "%s", row->uuid);
    snprintf(r->session, sizeof r->session, "%.8s", row->session_uuid);
    r->end = end_of(row->state);
    snprintf(r->end_why, sizeof r->end_why, "%s", row->end_why);
    snprintf(r->put_back, sizeof r->put_back, "%s", row->put_back);
    r->kept = row->kept;
    verify_decide(r->blocks, r->ncomplete - r->ncomplete % 2, &r->spec, &r->verdict);
    return 0;
}
