/* metric — the metric table (run_metric_table.h) as C: the storage every
 * record of a run carries (struct run_metrics), the rows' descriptions,
 * the record fields the store and the exports read, and the text and JSON
 * of a value. A value that was not measured is NAN (SQL NULL, JSON null,
 * an empty CSV field, not shown). */
#ifndef SLUICE_RUN_METRIC_H
#define SLUICE_RUN_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "core/record.h"

/* The lines a summary shows, in this order. */
enum run_metric_group { MG_RUN, MG_LAT, MG_CPU, MG_DISK, MG_DIRTY, MG_PSI, MG_CANARY, MG_READER, MG_NR };
enum run_metric_format { MF_NS, MF_INT, MF_F0, MF_F1, MF_F2, MF_F3 };
enum run_metric_better { BETTER_NONE, BETTER_HIGHER, BETTER_LOWER };

#include "core/run_metric_table.h"

enum run_metric_id {
#define METRIC_ID(A, name, ...) RM_##name,
    METRIC_TABLE(METRIC_ID, )
#undef METRIC_ID
    RM_NR
};

/* One value per row, NAN when not measured. */
struct run_metrics {
#define METRIC_MEMBER(A, name, ...) double name;
    METRIC_TABLE(METRIC_MEMBER, )
#undef METRIC_MEMBER
};

struct run_metric {
    const char *name;         /* field, key and (column) SQL column */
    bool column;              /* a column of runs (else only in the metrics JSON) */
    const char *json_path;    /* dotted, in the probe's JSON */
    enum run_metric_group group;
    const char *label, *unit;
    double lo, hi;
    enum run_metric_format format;
    enum run_metric_better better;
    size_t offset;            /* in struct run_metrics */
};
extern const struct run_metric run_metric_table[RM_NR];

/* The metrics of a record struct STYPE that holds a struct run_metrics
 * named m, as record fields (core/record.h) in table order, each a
 * REC_DOUBLE with REC_NULL_NAN whose JSON key is the metric's name. Inside
 * an array initialiser:
 *   METRIC_FIELDS_STORED(STYPE): the column, none for a J row (an insert);
 *   METRIC_FIELDS_READ(STYPE): r.COLUMN, or for a J row the json_extract
 *   of r.metrics_json at its path (a select of runs r). */
#define METRIC_SQL_STORED_C(name, path) #name
#define METRIC_SQL_STORED_J(name, path) NULL
#define METRIC_SQL_READ_C(name, path) "r." #name
#define METRIC_SQL_READ_J(name, path) "json_extract(r.metrics_json, '$." path "')"
#define METRIC_FIELD_STORED_(stype, name, kept, path, group, label, u, ...) \
    REC_FIELD(stype, m.name, REC_DOUBLE, #name, METRIC_SQL_STORED_##kept(name, path), .unit = (u), \
              .flags = REC_NULL_NAN),
#define METRIC_FIELD_READ_(stype, name, kept, path, group, label, u, ...) \
    REC_FIELD(stype, m.name, REC_DOUBLE, #name, METRIC_SQL_READ_##kept(name, path), .unit = (u), \
              .flags = REC_NULL_NAN),
#define METRIC_FIELDS_STORED(stype) METRIC_TABLE(METRIC_FIELD_STORED_, stype)
#define METRIC_FIELDS_READ(stype) METRIC_TABLE(METRIC_FIELD_READ_, stype)

/* All NAN: nothing measured yet. */
void run_metric_clear(struct run_metrics *m);
double run_metric_get(const struct run_metrics *m, int id);
void run_metric_set(struct run_metrics *m, int id, double v);
/* The row of that name, NULL when there is none. */
const struct run_metric *run_metric_find(const char *name);
/* The value in the row's format with its unit ("58.1 us", "322.8 MB/s",
 * "12 pages"); "-" when not measured. Returns buf. */
const char *run_metric_text(int id, double v, char *buf, size_t n);
/* "850 ns", "12.3 us", "4.56 ms", "1.23 s" */
void run_metric_format_ns(double ns, char *buf, size_t n);
/* A group's measured values as one line of "label value" pairs joined by
 * two spaces ("usr 0.0 %  sys 0.0 %  context switches 0"); "" when none
 * was measured. Returns buf. */
const char *run_metric_group_text(const struct run_metrics *m, enum run_metric_group g, char *buf, size_t n);
/* The group's name as the summaries start its line ("cpu", "disk"). */
const char *run_metric_group_name(enum run_metric_group g);
/* A real rounded to 6 significant digits (metrics are measurements; print
 * with JSON_REAL_PRECISION(12) to avoid float noise); null when not finite. */
json_t *run_metric_json_real(double v);
/* Put every measured value into o at its json_path, in the row's format
 * (MF_NS, MF_INT: an integer; else a real of 6 significant digits) (an existing parent
 * object only: a path whose parent is missing or null is left out). */
void run_metric_json_put(json_t *o, const struct run_metrics *m);
/* Read every value from a probe JSON at the json paths (NAN where absent
 * or not a number). */
void run_metric_json_get(const json_t *o, struct run_metrics *m);

#endif
