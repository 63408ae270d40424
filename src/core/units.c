/* units — durations and sizes. */
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long long units_monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long units_parse_duration_ms(const char *s)
{
    static const struct { const char *suffix; long long ms; } units[] = {
        { "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "min", 60000 }, { "h", 3600000 },
    };
    if (!s || !isdigit((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || v < 0) return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].suffix) == 0) {
            double ms = v * (double)units[i].ms;
            return ms > (double)LLONG_MAX / 2 ? -1 : (long long)ms;
        }
    return -1;
}

long long units_parse_size(const char *s)
{
    if (!s || !isdigit((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    static const char mult[] = "kmgt";
    if (*end) {
        const char *m = strchr(mult, tolower((unsigned char)*end));
        if (!m) return -1;
        const char *rest = end + 1;
        if (*rest && strcasecmp(rest, "b") != 0 && strcasecmp(rest, "ib") != 0) return -1;
        for (long i = 0; i <= m - mult; i++) {
            if (v > (unsigned long long)LLONG_MAX / 1024) return -1;
            v *= 1024;
        }
    }
    return v > (unsigned long long)LLONG_MAX ? -1 : (long long)v;
}

void units_format_bytes(unsigned long long bytes, char *buf, size_t n)
{
    static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    double v = (double)bytes;
    int i = 0;
    while (v >= 1024 && i < 5) { v /= 1024; i++; }
    if (i == 0) snprintf(buf, n, "%llu B", bytes);
    else snprintf(buf, n, "%.*f %s", v < 10 ? 1 : 0, v, names[i]);
}

void units_format_clock_ms(long long ms, char *buf, size_t n)
{
    long long s = ms > 0 ? ms / 1000 : 0;
    if (s < 60) snprintf(buf, n, "%llds", s);
    else snprintf(buf, n, "%lldm%02llds", s / 60, s % 60);
}

void units_format_duration_ms(long long ms, char *buf, size_t n)
{
    if (ms < 0) ms = 0;
    if (ms >= 60000) snprintf(buf, n, "%lldm", (ms + 59999) / 60000);
    else snprintf(buf, n, "%llds", (ms + 999) / 1000);
}
