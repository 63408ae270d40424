/* sample_psi_parse: /proc/pressure/io ("some avg10=.. total=N" and "full
 * ..."), two readings split at the first NUL-free half, through the
 * arithmetic that reports stall shares. */
#include "fuzz.h"
#include "probe/sample.h"

#include <math.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    char *second = strstr(text, "\n\n");
    if (second) { *second = 0; second += 2; }
    struct psi_sample a, b;
    int ra = sample_psi_parse(text, &a);
    int rb = sample_psi_parse(second ? second : text, &b);
    FUZZ_ASSERT((ra == 0) == a.ok && (rb == 0) == b.ok);
    a.t_ns = 1000000000ull;
    b.t_ns = a.t_ns + (size + 1) * 1000000ull;
    struct psi_acc acc;
    memset(&acc, 0, sizeof acc);
    sample_psi_accumulate(&acc, &a, &b);
    struct probe_psi out;
    memset(&out, 0, sizeof out);
    sample_psi_finish(&acc, &out);
    FUZZ_ASSERT(isfinite(out.some_pct) && out.some_pct >= 0 && out.some_pct <= 100);
    FUZZ_ASSERT(isfinite(out.full_pct) && out.full_pct >= 0 && out.full_pct <= 100);
    free(text);
    return 0;
}
