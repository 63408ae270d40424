/* record — JSON and text from a record family's field table. */
#include "core/record.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const void *at(const struct rec_field *f, const void *rec) { return (const char *)rec + f->offset; }

static double double_at(const struct rec_field *f, const void *rec)
{
    double d;
    memcpy(&d, at(f, rec), sizeof d);
    return d;
}

bool rec_is_null(const struct rec_field *f, const void *rec)
{
    if (f->have && !*(const bool *)((const char *)rec + f->have - 1)) return true;
    switch (f->type) {
    case REC_DOUBLE: return (f->flags & REC_NULL_NAN) && isnan(double_at(f, rec));
    case REC_INT: case REC_TRI: {
        int v = *(const int *)at(f, rec);
        return ((f->flags & REC_NULL_NEG) && v < 0) || ((f->flags & REC_NULL_ZERO) && v <= 0);
    }
    case REC_I64: return (f->flags & REC_NULL_ZERO) && *(const int64_t *)at(f, rec) <= 0;
    case REC_ENUM: return !*rec_enum_name(f, rec);
    default: return false;
    }
}

const char *rec_enum_name(const struct rec_field *f, const void *rec)
{
    int v = *(const int *)at(f, rec);
    for (int i = 0; i <= v && f->names[i]; i++)
        if (i == v) return f->names[i];
    return "";
}

int rec_enum_value(const struct rec_field *f, const char *name)
{
    for (int i = 0; name && f->names[i]; i++)
        if (strcmp(f->names[i], name) == 0) return i;
    return -1;
}

static const char *text_at(const struct rec_field *f, const void *rec)
{
    const char *t = f->type == REC_STR ? *(const char *const *)at(f, rec) : at(f, rec);
    return t ? t : "";
}

static json_t *value_json(const struct rec_field *f, const void *rec)
{
    char buf[512];
    if (rec_is_null(f, rec)) return json_null();
    switch (f->type) {
    case REC_TEXT: case REC_STR: {
        const char *t = text_at(f, rec);
        if (!*t && (f->flags & REC_NULL_EMPTY)) return json_null();
        return json_string(!*t && f->empty_as ? f->empty_as : t);
    }
    case REC_INT: return json_integer(*(const int *)at(f, rec));
    case REC_I64:
        if (f->flags & REC_JSON_TEXT) return json_sprintf("%lld", (long long)*(const int64_t *)at(f, rec));
        return json_integer((json_int_t)*(const int64_t *)at(f, rec));
    case REC_DOUBLE: return json_real(double_at(f, rec));
    case REC_U64:
        if (f->flags & REC_JSON_TEXT) return json_sprintf("%llu", *(const unsigned long long *)at(f, rec));
        return json_integer((json_int_t)*(const unsigned long long *)at(f, rec));
    case REC_TRI: {
        int v = *(const int *)at(f, rec);
        return v < 0 ? json_null() : json_boolean(v);
    }
    case REC_BOOL: return json_boolean(*(const bool *)at(f, rec));
    case REC_DERIVED: f->derive(rec, buf, sizeof buf); return json_string(buf);
    case REC_ENUM: return json_string(rec_enum_name(f, rec));
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

const char *rec_text(const struct rec_field *f, const void *rec, char *buf, size_t n)
{
    buf[0] = 0;
    if (rec_is_null(f, rec)) return buf;
    switch (f->type) {
    case REC_TEXT: case REC_STR: snprintf(buf, n, "%s", text_at(f, rec)); break;
    case REC_INT: snprintf(buf, n, "%d", *(const int *)at(f, rec)); break;
    case REC_I64: snprintf(buf, n, "%lld", (long long)*(const int64_t *)at(f, rec)); break;
    case REC_U64: snprintf(buf, n, "%llu", *(const unsigned long long *)at(f, rec)); break;
    case REC_DOUBLE: snprintf(buf, n, "%.12g", double_at(f, rec)); break;
    case REC_TRI: {
        int v = *(const int *)at(f, rec);
        snprintf(buf, n, "%s", v < 0 ? "" : v ? "yes" : "no");
        break;
    }
    case REC_BOOL: snprintf(buf, n, "%s", *(const bool *)at(f, rec) ? "yes" : "no"); break;
    case REC_DERIVED: f->derive(rec, buf, n); break;
    case REC_ENUM: snprintf(buf, n, "%s", rec_enum_name(f, rec)); break;
    }
    return buf;
}
