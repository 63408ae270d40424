/* opt — parsing, checking and describing options from their table. */
#include "opt.h"
#include "units.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const struct opt *opt_find(const struct opt_table *t, const char *name, size_t *base)
{
    if (strncmp(name, "--", 2) == 0) name += 2;
    for (int g = 0; g < OPT_GROUPS_MAX && t->groups[g].rows; g++)
        for (const struct opt *o = t->groups[g].rows; o->name; o++)
            if (strcmp(o->name, name) == 0) {
                if (base) *base = t->groups[g].base;
                return o;
            }
    return NULL;
}

static bool in_range(const struct opt *o, double v)
{
    if (o->min == 0 && o->max == 0) return true;
    return v >= o->min && v <= o->max;
}

static int range_fail(const struct opt *o, const char *text, const char *what, sl_err *e)
{
    if (o->min == 0 && o->max == 0) return sl_fail(e, SL_EUSAGE, "--%s %s: give %s", o->name, text, what);
    if (o->type == OPT_INT)
        return sl_fail(e, SL_EUSAGE, "--%s %s: give a whole number from %.0f to %.0f", o->name, text, o->min, o->max);
    return sl_fail(e, SL_EUSAGE, "--%s %s: give %s from %g to %g", o->name, text, what, o->min, o->max);
}

static bool is_choice(const char *words, const char *text)
{
    size_t n = strlen(text);
    for (const char *w = words; w && *w;) {
        size_t len = strcspn(w, " ");
        if (len == n && strncmp(w, text, n) == 0) return true;
        w += len;
        w += strspn(w, " ");
    }
    return false;
}

static int store_text(const struct opt *o, void *at, const char *text, sl_err *e)
{
    if (o->size == 0) {
        *(const char **)at = text;
        return 0;
    }
    if (!*text) return sl_fail(e, SL_EUSAGE, "--%s: give a value", o->name);
    if (strlen(text) >= o->size) return sl_fail(e, SL_EUSAGE, "--%s: value too long (at most %zu characters)", o->name, o->size - 1);
    memcpy(at, text, strlen(text) + 1);
    return 0;
}

int opt_regular_file(const char *option, const char *path, sl_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
    const char *kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
                     : S_ISSOCK(st.st_mode) ? "a socket" : "a device";
    return sl_fail(e, SL_EUSAGE, "%s %s is %s, not a regular file: give the path of a file", option, path, kind);
}

int opt_store(const struct opt *o, void *at, const char *text, sl_err *e)
{
    char *end;
    switch (o->type) {
    case OPT_FLAG: *(bool *)at = true; return 0;
    case OPT_TEXT: return store_text(o, at, text, e);
    case OPT_CHOICE:
        if (!is_choice(o->complete, text)) return sl_fail(e, SL_EUSAGE, "--%s %s: one of %s", o->name, text, o->complete);
        return store_text(o, at, text, e);
    case OPT_INT: {
        errno = 0;
        long v = strtol(text, &end, 10);
        if (end == text || *end || errno || !in_range(o, (double)v)) return range_fail(o, text, "a whole number", e);
        *(int *)at = (int)v;
        return 0;
    }
    case OPT_REAL: {
        double v = strtod(text, &end);
        if (end == text || *end || !isfinite(v) || !in_range(o, v)) return range_fail(o, text, "a number", e);
        *(double *)at = v;
        return 0;
    }
    case OPT_DURATION: {
        long long v = units_parse_duration_ms(text);
        if (v < 0) return sl_fail(e, SL_EUSAGE, "--%s %s: give a duration such as 30s or 5m", o->name, text);
        if (!in_range(o, (double)v)) return range_fail(o, text, "a duration in ms", e);
        *(long long *)at = v;
        return 0;
    }
    case OPT_SIZE: {
        long long v = units_parse_size(text);
        if (v < 0) return sl_fail(e, SL_EUSAGE, "--%s %s: give a size such as 4k, 512M or 2G", o->name, text);
        if (!in_range(o, (double)v)) return range_fail(o, text, "a size in bytes", e);
        *(long long *)at = v;
        return 0;
    }
    case OPT_CALL: return o->set(at, o, text, e);
    }
    return sl_fail(e, SL_EUSAGE, "--%s: unknown option type", o->name);
}

int opt_set(const struct opt_table *t, void *opts, const char *option, const char *text, sl_err *e)
{
    size_t base;
    const struct opt *o = opt_find(t, option, &base);
    if (!o || strncmp(option, "--", 2) != 0) return sl_fail(e, SL_EUSAGE, "%s is not an option of this command", option);
    return opt_store(o, (char *)opts + base + o->offset, text, e);
}

void opt_synopsis(const struct opt_table *t, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int g = 0; g < OPT_GROUPS_MAX && t->groups[g].rows; g++)
        for (const struct opt *o = t->groups[g].rows; o->name && used < n; o++) {
            int w = o->arg ? snprintf(buf + used, n - used, " [--%s %s]", o->name, o->arg)
                           : snprintf(buf + used, n - used, " [--%s]", o->name);
            if (w > 0) used += (size_t)w;
        }
}

void opt_help(const struct opt_table *t, FILE *out)
{
    for (int g = 0; g < OPT_GROUPS_MAX && t->groups[g].rows; g++)
        for (const struct opt *o = t->groups[g].rows; o->name; o++) {
            char left[64];
            snprintf(left, sizeof left, "%c%c%c --%s%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
                     o->short_name ? ',' : ' ', o->name, o->arg ? " " : "", o->arg ? o->arg : "");
            fprintf(out, "  %-28s %s", left, o->help);
            if (o->def) fprintf(out, " (default %s)", o->def);
            fputc('\n', out);
        }
}

static const char *type_name[] = { "flag", "text", "int", "real", "duration", "size", "choice", "text" };

json_t *opt_json(const struct opt_table *t)
{
    json_t *a = json_array();
    for (int g = 0; t && g < OPT_GROUPS_MAX && t->groups[g].rows; g++)
        for (const struct opt *o = t->groups[g].rows; o->name; o++) {
            json_t *j = json_pack("{s:s, s:s, s:s?, s:s}", "name", o->name, "type", type_name[o->type], "arg", o->arg,
                                  "help", o->help);
            if (o->short_name) json_object_set_new(j, "short", json_sprintf("%c", o->short_name));
            if (o->min != 0 || o->max != 0) {
                json_object_set_new(j, "min", json_real(o->min));
                json_object_set_new(j, "max", json_real(o->max));
            }
            if (o->def) json_object_set_new(j, "default", json_string(o->def));
            if (o->complete) json_object_set_new(j, "complete", json_string(o->complete));
            json_array_append_new(a, j);
        }
    return a;
}
