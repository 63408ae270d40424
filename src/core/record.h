/* record — a record family's fields described once (the model of the knob
 * and option tables): each row names a field of a C struct, its type and
 * unit, its JSON key and its SQL column. JSON output (rec_json) and the
 * store's bind and upsert code (db/store.c: store_upsert_record) read the
 * table, so adding a field is one row. The families: device and host
 * (device_fields, host_fields; device.c). */
#ifndef SLUICE_RECORD_H
#define SLUICE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

enum rec_type {
    REC_TEXT,      /* char[] in the struct */
    REC_INT,       /* int */
    REC_U64,       /* unsigned long long */
    REC_TRI,       /* int: 1 true, 0 false, -1 unknown (JSON null; stored as is) */
    REC_BOOL,      /* bool */
    REC_DERIVED,   /* text computed from the whole record by .derive */
};

#define REC_KEY 1u          /* part of the table's unique key (not updated by an upsert) */
#define REC_NULL_EMPTY 2u   /* REC_TEXT: "" is JSON null */

struct rec_field {
    const char *json;       /* JSON key, NULL: not in JSON */
    const char *column;     /* SQL column, NULL: not stored */
    enum rec_type type;
    size_t offset;
    const char *unit;       /* "bytes", "KiB"; "" none */
    unsigned flags;
    void (*derive)(const void *rec, char *buf, size_t n);
};
#define REC_AT(type, field) .offset = offsetof(type, field)

/* The fields' values as a JSON object (keys in table order). */
json_t *rec_json(const struct rec_field *fields, size_t n, const void *rec);

extern const struct rec_field device_fields[], host_fields[];
extern const size_t device_fields_len, host_fields_len;

#endif
