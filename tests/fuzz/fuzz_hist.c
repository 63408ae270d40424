/* hist_decode: latency histograms come back from the database, including
 * databases merged from other machines; then everything computed from them. */
#include "fuzz.h"
#include "stat/hist.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct hist h, back;
    size_t used = hist_decode(&h, data, size);
    FUZZ_ASSERT(used <= size);
    if (used == 0) FUZZ_ASSERT(h.n == 0);
    hist_percentile(&h, 50);
    hist_percentile(&h, 99.9);
    hist_percentile(&h, 100);
    hist_stddev(&h);
    hist_count_above(&h, h.max_ns);
    if (used) {
        size_t need = hist_encoded_size(&h);
        unsigned char *out = malloc(need);
        FUZZ_ASSERT(hist_encode(&h, out) == need);
        FUZZ_ASSERT(hist_decode(&back, out, need) == need && back.n == h.n);
        free(out);
        struct hist sum;
        hist_init(&sum);
        hist_merge(&sum, &h);
    }
    return 0;
}
