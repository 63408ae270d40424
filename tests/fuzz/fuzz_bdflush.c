/* knob_bdflush_parse: the 2.4 /proc/sys/vm/bdflush vector ("30 500 0 0 500
 * 3000 60 20 0"), short, long, signed, overflowing or not numbers at all. */
#include "fuzz.h"
#include "core/knob.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    long long f[KNOB_BDFLUSH_FIELDS + 1];
    f[KNOB_BDFLUSH_FIELDS] = 0x5a5a5a5a; /* canary: never written past the vector */
    int n = knob_bdflush_parse(text, f);
    FUZZ_ASSERT(n >= 0 && n <= KNOB_BDFLUSH_FIELDS);
    FUZZ_ASSERT(f[KNOB_BDFLUSH_FIELDS] == 0x5a5a5a5a);
    free(text);
    return 0;
}
