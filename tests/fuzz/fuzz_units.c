/* units_parse_duration_ms / units_parse_size (every --for, --time, --size,
 * --budget on the command line and in profiles), and the byte formatter. */
#include "fuzz.h"
#include "core/units.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    long long ms = units_parse_duration_ms(text);
    FUZZ_ASSERT(ms >= -1);
    long long bytes = units_parse_size(text);
    FUZZ_ASSERT(bytes >= -1);
    char buf[32];
    if (bytes >= 0) {
        units_format_bytes((unsigned long long)bytes, buf, sizeof buf);
        FUZZ_ASSERT(strlen(buf) < sizeof buf);
    }
    unsigned long long raw = 0;
    memcpy(&raw, data, size < sizeof raw ? size : sizeof raw);
    units_format_bytes(raw, buf, sizeof buf);
    units_format_bytes(raw, buf, 4);
    free(text);
    return 0;
}
