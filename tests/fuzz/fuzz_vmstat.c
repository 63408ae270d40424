/* vmstat_parse: /proc/vmstat ("name value" lines) from any kernel,
 * truncated, reordered or garbage. */
#include "fuzz.h"
#include "probe/sample.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    struct vmstat v;
    int rc = vmstat_parse(text, &v);
    FUZZ_ASSERT((rc == 0) == v.ok);
    FUZZ_ASSERT(v.has_threshold || v.thresh == 0);
    uint64_t freerun = vmstat_freerun(&v);
    FUZZ_ASSERT(v.has_threshold || freerun == 0);
    free(text);
    return 0;
}
