/* units — parsing and printing durations and sizes the same way everywhere. */
#ifndef SLUICE_UNITS_H
#define SLUICE_UNITS_H

#include <stddef.h>

/* "90", "90s", "500ms", "10m", "2h" -> milliseconds; -1 when malformed. */
long long units_parse_duration_ms(const char *s);
/* "4096", "4k", "16M", "2G", "1GiB" -> bytes (binary multiples); -1 when malformed. */
long long units_parse_size(const char *s);
/* A duration as --budget and --time take it, rounded up: 95000 -> "95s",
 * 700000 -> "12m" (whole minutes from one minute on). */
void units_format_duration_ms(long long ms, char *buf, size_t n);
/* A time as a clock reads it, whole seconds: 45000 -> "45s", 200000 ->
 * "3m20s" (units_format_duration_ms rounds up to whole minutes, as
 * --budget takes them: 3m20s would read 4m). */
void units_format_clock_ms(long long ms, char *buf, size_t n);
/* Milliseconds on the monotonic clock: what elapsed times and deadlines
 * are measured on (a change of the wall clock does not move them). */
long long units_monotonic_ms(void);
/* 1536 -> "1.5 KiB" */
void units_format_bytes(unsigned long long bytes, char *buf, size_t n);

#endif
