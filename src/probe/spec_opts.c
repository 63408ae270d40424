/* spec_opts — the probe's size and duration options given as text (--bs,
 * --size, --time, --ramp), checked in one place for `sluice probe` and the
 * Probe screen's form, so both refuse a value with the same words. */
#include "probe.h"
#include "units.h"

#include <string.h>

int probe_spec_set(struct probe_spec *s, const char *option, const char *text, sl_err *e)
{
    bool size = strcmp(option, "--bs") == 0 || strcmp(option, "--size") == 0;
    bool time = strcmp(option, "--time") == 0 || strcmp(option, "--ramp") == 0;
    if (size) {
        long long v = units_parse_size(text);
        if (v <= 0) return sl_fail(e, SL_EUSAGE, "%s %s: give a size such as 4k, 1M or 2G", option, text);
        *(option[2] == 'b' ? &s->bs : &s->size_bytes) = (uint64_t)v;
        return 0;
    }
    if (time) {
        long long v = units_parse_duration_ms(text);
        if (v < 0) return sl_fail(e, SL_EUSAGE, "%s %s: give a duration such as 500ms, 5s or 2m", option, text);
        if (option[2] == 't') {
            if (v == 0) return sl_fail(e, SL_EUSAGE, "--time must be above 0");
            s->time_ms = (uint64_t)v;
            s->time_based = true;   /* buffered writers: no fixed work */
        } else {
            s->ramp_ms = (uint64_t)v;
            s->ramp_set = 1;
        }
        return 0;
    }
    return sl_fail(e, SL_EUSAGE, "%s: not a size or duration option of probe", option);
}
