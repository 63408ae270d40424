/* sample_diskstat_parse: /sys/block/DEV/stat lines of 11 (< 4.18), 15
 * (discard) and 17 (flush) fields, or anything else; two readings (the input
 * split at its first newline) go through the delta arithmetic of a probe. */
#include "fuzz.h"
#include "probe/sample.h"

#include <math.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    char *second = strchr(text, '\n');
    if (second) *second++ = 0;
    struct disk_sample a, b;
    int ra = sample_diskstat_parse(text, &a);
    int rb = sample_diskstat_parse(second ? second : text, &b);
    FUZZ_ASSERT(ra == 0 ? a.fields >= 11 && a.fields <= 17 : a.fields == 0);
    FUZZ_ASSERT(rb == 0 ? b.fields >= 11 && b.fields <= 17 : b.fields == 0);
    a.t_ns = 1000000000ull;
    b.t_ns = a.t_ns + (data[0] + 1) * 1000000ull;
    struct disk_acc acc;
    memset(&acc, 0, sizeof acc);
    sample_disk_accumulate(&acc, &a, &b);
    sample_disk_accumulate(&acc, &b, &a); /* time going backwards is ignored */
    struct probe_disk out;
    memset(&out, 0, sizeof out);
    sample_disk_finish(&acc, &out);
    FUZZ_ASSERT(isfinite(out.util_pct) && out.util_pct >= 0 && out.util_pct <= 100);
    FUZZ_ASSERT(isfinite(out.await_ms) && out.await_ms >= 0);
    FUZZ_ASSERT(isfinite(out.aqu_sz) && out.aqu_sz >= 0);
    free(text);
    return 0;
}
