/* record — a record family's fields described once (the model of the knob
 * and option tables): each row names a field of a C struct, its type and
 * unit, its JSON key and its SQL column. JSON output (rec_json) and the
 * store's bind and upsert code (db/store.c: store_upsert_record) read the
 * table, so adding a field is one row. The families: device and host
 * (device_fields, host_fields in device.c and host.c), session
 * (session_fields, db/store_session.c), run (run_record_fields,
 * run_row_fields, run_export_fields: db/store_run.c), search and trial
 * (search_fields, trial_fields: db/store_search.c). CSV and other text
 * output reads rec_text. */
#ifndef SLUICE_RECORD_H
#define SLUICE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

enum rec_type {
    REC_TEXT,      /* char[] in the struct */
    REC_INT,       /* int */
    REC_I64,       /* int64_t */
    REC_U64,       /* unsigned long long */
    REC_DOUBLE,    /* double */
    REC_TRI,       /* int: 1 true, 0 false, -1 unknown (JSON null; stored as is) */
    REC_BOOL,      /* bool */
    REC_DERIVED,   /* text computed from the whole record by .derive */
    REC_STR,       /* const char * (borrowed; read back it points into the row, valid until the next step) */
    REC_ENUM,      /* an enum (int-sized), stored and shown as its name in .names; a
                    * negative value, or a stored name not in .names, is none (NULL) */
};

#define REC_KEY 1u          /* part of the table's unique key (not updated by an upsert) */
#define REC_NULL_EMPTY 2u   /* REC_TEXT, REC_STR: "" (or NULL) is JSON null */
#define REC_NULL_NAN 4u     /* REC_DOUBLE: NaN is SQL NULL and JSON null (NULL reads as NaN) */
#define REC_NULL_NEG 8u     /* REC_INT, REC_TRI: a negative value is SQL NULL (NULL reads as -1) */
#define REC_NULL_ZERO 16u   /* REC_INT, REC_I64: 0 or less is SQL NULL (an absent reference) */
#define REC_NOINSERT 32u    /* not written by store_prepare_insert (set later, or by the database) */
#define REC_UPDATE 64u      /* written by store_prepare_update */
#define REC_READONLY 128u   /* only read (an expression, a joined column): never written */
#define REC_JSON_TEXT 256u  /* REC_I64, REC_U64: JSON shows the decimal text, as a string (a seed past 2^53 that jq
                             * and JavaScript would round; the --json contract gives 64-bit values as strings) */

struct rec_field {
    const char *json;       /* JSON key, NULL: not in JSON */
    const char *column;     /* SQL column (or expression, for rows only read), NULL: not stored */
    enum rec_type type;
    size_t offset, size;    /* in the struct; size of a REC_TEXT array */
    const char *unit;       /* "bytes", "KiB"; NULL none */
    unsigned flags;
    const char *empty_as;   /* REC_TEXT: what JSON shows for "" (NULL: "") */
    void (*derive)(const void *rec, char *buf, size_t n);
    size_t have;            /* REC_HAVE: 1 + the offset of a bool saying the value exists (false: NULL) */
    const char *const *names; /* REC_ENUM: the name of each value, NULL-ended */
};
#define REC_HAVE(stype, flag) .have = offsetof(stype, flag) + 1
/* A row: REC_FIELD(struct device, model, REC_TEXT, "model", "model"), then
 * any of .unit, .flags, .empty_as; REC_DERIVED rows name .derive instead. */
#define REC_FIELD(stype, field, rtype, key, col, ...) \
    { .json = (key), .column = (col), .type = (rtype), .offset = offsetof(stype, field), \
      .size = sizeof(((stype *)0)->field), __VA_ARGS__ }

/* REC_ENUM: the name of the field's value ("" when it has none), and the
 * value a name stands for (-1 when it is not in the table). */
const char *rec_enum_name(const struct rec_field *f, const void *rec);
int rec_enum_value(const struct rec_field *f, const char *name);
/* The fields' values as a JSON object (keys in table order). */
json_t *rec_json(const struct rec_field *fields, size_t n, const void *rec);
/* One field's value as text (CSV, tables): numbers as %.12g / %d, a
 * missing value (NULL flags, have) as "", REC_TRI as yes/no. Returns buf. */
const char *rec_text(const struct rec_field *f, const void *rec, char *buf, size_t n);
/* The field's value is missing: SQL NULL and JSON null (the NULL flags and .have). */
bool rec_is_null(const struct rec_field *f, const void *rec);

extern const struct rec_field device_fields[], host_fields[];
extern const size_t device_fields_len, host_fields_len;
/* session_fields: db/store_session.h */

#endif
