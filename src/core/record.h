/* record — a record family's fields described once (the model of the knob
 * and option tables): each row names a field of a C struct, its type and
 * unit, its JSON key and its SQL column. JSON output (rec_json) and the
 * store's bind and upsert code (db/store.c: store_upsert_record) read the
 * table, so adding a field is one row. The families: device and host
 * (device_fields, host_fields in device.c and host.c), session
 * (session_fields, db/store_session.c). */
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
};

#define REC_KEY 1u          /* part of the table's unique key (not updated by an upsert) */
#define REC_NULL_EMPTY 2u   /* REC_TEXT: "" is JSON null */

struct rec_field {
    const char *json;       /* JSON key, NULL: not in JSON */
    const char *column;     /* SQL column (or expression, for rows only read), NULL: not stored */
    enum rec_type type;
    size_t offset, size;    /* in the struct; size of a REC_TEXT array */
    const char *unit;       /* "bytes", "KiB"; NULL none */
    unsigned flags;
    const char *empty_as;   /* REC_TEXT: what JSON shows for "" (NULL: "") */
    void (*derive)(const void *rec, char *buf, size_t n);
};
/* A row: REC_FIELD(struct device, model, REC_TEXT, "model", "model"), then
 * any of .unit, .flags, .empty_as; REC_DERIVED rows name .derive instead. */
#define REC_FIELD(stype, field, rtype, key, col, ...) \
    { .json = (key), .column = (col), .type = (rtype), .offset = offsetof(stype, field), \
      .size = sizeof(((stype *)0)->field), __VA_ARGS__ }

/* The fields' values as a JSON object (keys in table order). */
json_t *rec_json(const struct rec_field *fields, size_t n, const void *rec);

extern const struct rec_field device_fields[], host_fields[];
extern const size_t device_fields_len, host_fields_len;
/* session_fields: db/store_session.h */

#endif
