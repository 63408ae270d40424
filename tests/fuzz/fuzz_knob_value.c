/* knob_validate on a fixture root: the first byte picks a knob of the modern
 * fixture (vm, block, iosched, bdi), the rest is the value a user, a profile
 * or a merged database proposes. A value that validates must come back as a
 * canonical form that validates again to itself, and must be in range. */
#include "fuzz.h"
#include "core/knob.h"
#include "core/sysfs.h"

static struct knob *knobs;
static int nknobs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sl_err e;
    if (sysfs_set_root(FUZZ_FIXTURES "/modern", &e) < 0) { fprintf(stderr, "%s\n", e.msg); abort(); }
    nknobs = knob_list(NULL, 0, &knobs, &e);
    if (nknobs <= 0) { fprintf(stderr, "no knobs: %s\n", e.msg); abort(); }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const struct knob *k = &knobs[data[0] % nknobs];
    char *value = fuzz_str(data + 1, size - 1);
    char canon[KNOB_VALUE_MAX], again[KNOB_VALUE_MAX];
    sl_err e;
    if (knob_validate(k, value, canon, sizeof canon, &e) == 0) {
        FUZZ_ASSERT(knob_validate(k, canon, again, sizeof again, &e) == 0);
        FUZZ_ASSERT(strcmp(canon, again) == 0);
        FUZZ_ASSERT(knob_values_equal(k, canon, again));
        FUZZ_ASSERT(!strchr(canon, '\n') && !strchr(canon, '/'));
        const struct knob_def *d = k->def;
        if (d->type == KT_INT || d->type == KT_FIELD || d->type == KT_BYTES) {
            long long v = strtoll(canon, NULL, 10);
            FUZZ_ASSERT(v >= d->min && v <= d->max);
        }
    } else {
        FUZZ_ASSERT(e.msg[0] != 0 && e.status == SL_EUSAGE);
    }
    knob_values_equal(k, value, canon);
    free(value);
    return 0;
}
