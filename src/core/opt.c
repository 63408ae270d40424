/* opt — parsing, checking and describing options from their table. */
#include "core/opt.h"
#include "core/units.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
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
    bool lo = o->flags & OPT_MIN_OPEN ? v > o->min : v >= o->min;
    bool hi = o->flags & OPT_MAX_OPEN ? v < o->max : v <= o->max;
    return lo && hi;
}

/* A bound in the row's unit as the option takes it: "10ms", "24h", "64M". */
static void bound_text(const struct opt *o, double v, char *buf, size_t n)
{
    if (o->type == OPT_DURATION) {
        static const struct { const char *unit; long long ms; } u[] = { { "h", 3600000 }, { "m", 60000 }, { "s", 1000 } };
        long long ms = (long long)v;
        for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
            if (ms && ms % u[i].ms == 0) { snprintf(buf, n, "%lld%s", ms / u[i].ms, u[i].unit); return; }
        snprintf(buf, n, "%lldms", ms);
    } else if (o->type == OPT_SIZE) {
        static const char units[] = "kMGTP";
        long long b = (long long)v;
        int i = -1;
        while (i < 4 && b && b % 1024 == 0) { b /= 1024; i++; }
        if (i < 0) snprintf(buf, n, "%lld", b);
        else snprintf(buf, n, "%lld%c", b, units[i]);
    } else if (o->type == OPT_INT) snprintf(buf, n, "%.0f", v);
    else snprintf(buf, n, "%g", v);
}

/* Calls f with each choice of the row until it returns true; that index, or -1. */
static int each_choice(const struct opt *o, bool (*f)(const char *w, size_t len, void *arg), void *arg)
{
    if (o->choice_at) {
        const char *c;
        for (int i = 0; (c = o->choice_at(i)); i++)
            if (f(c, strlen(c), arg)) return i;
        return -1;
    }
    int i = 0;
    for (const char *w = o->complete; w && *w; i++) {
        size_t len = strcspn(w, " ");
        if (f(w, len, arg)) return i;
        w += len;
        w += strspn(w, " ");
    }
    return -1;
}

struct joined { char *buf; size_t n, used; char sep; };

static bool join_one(const char *w, size_t len, void *arg)
{
    struct joined *j = arg;
    if (j->used < j->n) {
        char sep[2] = { j->used ? j->sep : 0, 0 };
        int k = snprintf(j->buf + j->used, j->n - j->used, "%s%.*s", sep, (int)len, w);
        if (k > 0) j->used += (size_t)k;
    }
    return false;
}

static const char *join_choices(const struct opt *o, char sep, char *buf, size_t n)
{
    struct joined j = { buf, n, 0, sep };
    buf[0] = 0;
    each_choice(o, join_one, &j);
    return buf;
}

static bool same_word(const char *w, size_t len, void *text)
{
    return strlen(text) == len && strncmp(w, text, len) == 0;
}

const char *opt_arg(const struct opt *o, char *buf, size_t n)
{
    if (!o->choice_at || !o->arg || o->complete) return o->arg;   /* a kind completion lists: "W" */
    return join_choices(o, '|', buf, n);
}

const char *opt_complete(const struct opt *o, char *buf, size_t n)
{
    if (o->complete) return o->complete;
    return o->choice_at ? join_choices(o, ' ', buf, n) : "";
}

const char *opt_accepts(const struct opt *o, char *buf, size_t n)
{
    static const char *const what[] = { [OPT_INT] = "a whole number", [OPT_REAL] = "a number",
                                        [OPT_DURATION] = "a duration", [OPT_SIZE] = "a size" };
    char lo[32], hi[32], words[512];
    switch (o->type) {
    case OPT_CHOICE: case OPT_ENUM:
        snprintf(buf, n, "one of %s", join_choices(o, ' ', words, sizeof words));
        return buf;
    case OPT_U64: snprintf(buf, n, "give a whole number"); return buf;
    case OPT_INT: case OPT_REAL: case OPT_DURATION: case OPT_SIZE: break;
    default: snprintf(buf, n, "give a value"); return buf;
    }
    const char *example = o->type == OPT_DURATION ? " such as 30s or 5m" : o->type == OPT_SIZE ? " such as 4k, 512M or 2G" : "";
    if (o->min == 0 && o->max == 0) { snprintf(buf, n, "give %s%s", what[o->type], example); return buf; }
    bound_text(o, o->min, lo, sizeof lo);
    bound_text(o, o->max, hi, sizeof hi);
    bool open_lo = o->flags & OPT_MIN_OPEN, open_hi = o->flags & OPT_MAX_OPEN;
    if (isinf(o->max)) snprintf(buf, n, "give %s%s %s", what[o->type], open_lo ? " above" : ",", lo);
    else if (open_lo || open_hi)
        snprintf(buf, n, "give %s %s %s and %s %s", what[o->type], open_lo ? "above" : "from", lo, open_hi ? "below" : "up to", hi);
    else if (o->min == 0 && o->type != OPT_INT && o->type != OPT_REAL) snprintf(buf, n, "give %s up to %s", what[o->type], hi);
    else snprintf(buf, n, "give %s from %s to %s", what[o->type], lo, hi);
    if (isinf(o->max) && !open_lo) snprintf(buf + strlen(buf), n - strlen(buf), " or more");
    return buf;
}

/* The one refusal of a value: the option, the value, what it takes. */
static int refuse(const struct opt *o, const char *text, sl_err *e)
{
    char accepts[600];
    return sl_fail(e, SL_EUSAGE, "--%s %s: %s", o->name, text, opt_accepts(o, accepts, sizeof accepts));
}

int opt_check(const struct opt *o, double v, sl_err *e)
{
    if (in_range(o, v)) return 0;
    char text[32];
    bound_text(o, v, text, sizeof text);
    return refuse(o, text, e);
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

static int store_value(const struct opt *o, void *at, const char *text, sl_err *e)
{
    char *end;
    switch (o->type) {
    case OPT_FLAG: *(bool *)at = true; return 0;
    case OPT_TEXT: return store_text(o, at, text, e);
    case OPT_CHOICE:
        if (each_choice(o, same_word, (void *)text) < 0) return refuse(o, text, e);
        return store_text(o, at, text, e);
    case OPT_ENUM: {
        int i = o->choice_parse ? o->choice_parse(text) : each_choice(o, same_word, (void *)text);
        if (i < 0) return refuse(o, text, e);
        *(int *)at = i;
        return 0;
    }
    case OPT_INT: {
        errno = 0;
        long v = strtol(text, &end, 10);
        if (end == text || *end || errno || v < INT_MIN || v > INT_MAX || !in_range(o, (double)v)) return refuse(o, text, e);
        *(int *)at = (int)v;
        return 0;
    }
    case OPT_U64: {
        errno = 0;
        unsigned long long v = strtoull(text, &end, 10);
        if (end == text || *end || errno || strchr(text, '-')) return refuse(o, text, e);
        *(uint64_t *)at = v;
        return 0;
    }
    case OPT_REAL: {
        double v = strtod(text, &end);
        if (end == text || *end || !isfinite(v) || !in_range(o, v)) return refuse(o, text, e);
        *(double *)at = v;
        return 0;
    }
    case OPT_DURATION: case OPT_SIZE: {
        long long v = o->type == OPT_DURATION ? units_parse_duration_ms(text) : units_parse_size(text);
        if (v < 0 || !in_range(o, (double)v)) return refuse(o, text, e);
        *(long long *)at = v;
        return 0;
    }
    case OPT_CALL: return o->set(at, o, text, e);
    }
    return sl_fail(e, SL_EUSAGE, "--%s: unknown option type", o->name);
}

int opt_store(const struct opt *o, void *at, const char *text, sl_err *e)
{
    if (store_value(o, at, text, e) < 0) return -1;
    /* the seen flag lives in the same struct as the value: at - offset */
    if (o->seen) *(bool *)((char *)at - o->offset + o->seen - 1) = true;
    return 0;
}

const struct opt *opt_row(const struct opt *rows, const char *name)
{
    for (const struct opt *o = rows; o->name; o++)
        if (strcmp(o->name, name) == 0) return o;
    return NULL;
}

int opt_default_of(const struct opt *o, void *at, sl_err *e)
{
    if (!o->def || (o->flags & OPT_DEF_WORDS)) return sl_fail(e, SL_EUSAGE, "--%s has no default value", o->name);
    if (store_value(o, at, o->def, e) < 0) return sl_fail(e, SL_EUSAGE, "--%s: its default %s: %s", o->name, o->def, e->msg);
    return 0;
}

int opt_defaults(const struct opt_table *t, void *opts, sl_err *e)
{
    for (int g = 0; g < OPT_GROUPS_MAX && t->groups[g].rows; g++)
        for (const struct opt *o = t->groups[g].rows; o->name; o++) {
            if (!o->def || (o->flags & (OPT_DEF_LATER | OPT_DEF_WORDS))) continue;
            if (opt_default_of(o, (char *)opts + t->groups[g].base + o->offset, e) < 0) return -1;
        }
    return 0;
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
            char arg[256];
            int w = o->arg ? snprintf(buf + used, n - used, " [--%s %s]", o->name, opt_arg(o, arg, sizeof arg))
                           : snprintf(buf + used, n - used, " [--%s]", o->name);
            if (w > 0) used += (size_t)w;
        }
}

void opt_help(const struct opt_table *t, FILE *out)
{
    for (int g = 0; g < OPT_GROUPS_MAX && t->groups[g].rows; g++)
        for (const struct opt *o = t->groups[g].rows; o->name; o++) {
            char left[300], arg[256];
            snprintf(left, sizeof left, "%c%c%c --%s%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
                     o->short_name ? ',' : ' ', o->name, o->arg ? " " : "", o->arg ? opt_arg(o, arg, sizeof arg) : "");
            fprintf(out, "  %-28s %s", left, o->help);
            if (o->def) fprintf(out, " (default %s)", o->def);
            fputc('\n', out);
        }
}

static const char *type_name[] = { [OPT_FLAG] = "flag", [OPT_TEXT] = "text", [OPT_INT] = "int", [OPT_REAL] = "real",
                                    [OPT_DURATION] = "duration", [OPT_SIZE] = "size", [OPT_CHOICE] = "choice",
                                    [OPT_ENUM] = "choice", [OPT_U64] = "int", [OPT_CALL] = "text" };

json_t *opt_json(const struct opt_table *t)
{
    json_t *a = json_array();
    for (int g = 0; t && g < OPT_GROUPS_MAX && t->groups[g].rows; g++)
        for (const struct opt *o = t->groups[g].rows; o->name; o++) {
            char arg[256], words[512];
            json_t *j = json_pack("{s:s, s:s, s:s?, s:s}", "name", o->name, "type", type_name[o->type], "arg",
                                  opt_arg(o, arg, sizeof arg), "help", o->help);
            if (o->short_name) json_object_set_new(j, "short", json_sprintf("%c", o->short_name));
            if (o->min != 0 || o->max != 0) {
                json_object_set_new(j, "min", json_real(o->min));
                if (!isinf(o->max)) json_object_set_new(j, "max", json_real(o->max));
            }
            if (o->def) json_object_set_new(j, "default", json_string(o->def));
            if (o->complete || o->choice_at) json_object_set_new(j, "complete", json_string(opt_complete(o, words, sizeof words)));
            json_array_append_new(a, j);
        }
    return a;
}
