/* knob_lookup on a fixture root: whatever a user, a profile or a merged
 * database names, the knob it resolves to is a catalogue file under the
 * kernel's directories, never an arbitrary path (a security property). */
#include "fuzz.h"
#include "core/device.h"
#include "core/knob.h"
#include "core/sysfs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sl_err e;
    if (sysfs_set_root(FUZZ_FIXTURES "/modern", &e) < 0) { fprintf(stderr, "%s\n", e.msg); abort(); }
    return 0;
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *name = fuzz_str(data, size);
    struct knob k;
    sl_err e;
    const char *scheds[] = { NULL, "bfq", "kyber", "mq-deadline", "cfq" };
    for (size_t i = 0; i < sizeof scheds / sizeof scheds[0]; i++) {
        if (knob_lookup(name, scheds[i], &k, &e) < 0) {
            FUZZ_ASSERT(e.msg[0] != 0);
            continue;
        }
        FUZZ_ASSERT(strstr(k.path, "..") == NULL && strstr(k.path, "//") == NULL);
        FUZZ_ASSERT(starts(k.path, "/proc/sys/vm/") || starts(k.path, "/sys/block/") ||
                    starts(k.path, "/sys/class/bdi/"));
        if (k.dev[0]) FUZZ_ASSERT(device_name_valid(k.dev));
        FUZZ_ASSERT(strcmp(k.name, name) == 0);
    }
    free(name);
    return 0;
}
