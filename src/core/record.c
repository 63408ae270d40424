/* record — JSON and text from a record family's field table. */
#include "record.h"

#include <stdio.h>

static const void *at(const struct rec_field *f, const void *rec) { return (const char *)rec + f->offset; }

static json_t *value_json(const struct rec_field *f, const void *rec)
{
    char buf[512];
    switch (f->type) {
    case REC_TEXT: {
        const char *t = at(f, rec);
        if (!*t && (f->flags & REC_NULL_EMPTY)) return json_null();
        return json_string(!*t && f->empty_as ? f->empty_as : t);
    }
    case REC_INT: return json_integer(*(const int *)at(f, rec));
    case REC_I64: return json_integer((json_int_t)*(const int64_t *)at(f, rec));
    case REC_DOUBLE: return json_real(*(const double *)at(f, rec));
    case REC_U64: return json_integer((json_int_t)*(const unsigned long long *)at(f, rec));
    case REC_TRI: {
        int v = *(const int *)at(f, rec);
        return v < 0 ? json_null() : json_boolean(v);
    }
    case REC_BOOL: return json_boolean(*(const bool *)at(f, rec));
    case REC_DERIVED: f->derive(rec, buf, sizeof buf); return json_string(buf);
    }
    return json_null();
}

json_t *rec_json(const struct rec_field *fields, size_t n, const void *rec)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++)
        if (fields[i].json) json_object_set_new(o, fields[i].json, value_json(&fields[i], rec));
    return o;
}
