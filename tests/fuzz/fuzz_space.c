/* space_load_file on the modern fixture: a user search space (INI) from
 * anyone. A space that loads must only hold catalogue knobs, enumerate
 * valid configurations, and round-trip each through its text form. */
#include "fuzz.h"
#include "search/space.h"
#include "core/sysfs.h"

#include <fcntl.h>
#include <unistd.h>

static char dir[] = "/tmp/sluice-fuzz-space.XXXXXX";
static char path[sizeof dir + 16];

static void cleanup(void) { unlink(path); rmdir(dir); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sl_err e;
    if (sysfs_set_root(FUZZ_FIXTURES "/modern", &e) < 0) { fprintf(stderr, "%s\n", e.msg); abort(); }
    if (!mkdtemp(dir)) abort();
    snprintf(path, sizeof path, "%s/in.space", dir);
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0) abort();
    static struct space sp;
    sl_err e;
    sl_err_clear(&e);
    if (space_load_file(path, &sp, &e) < 0) {
        FUZZ_ASSERT(e.msg[0] != 0);
        return 0;
    }
    FUZZ_ASSERT(sp.ndims >= 0 && sp.ndims <= SPACE_MAX_DIMS);
    for (int d = 0; d < sp.ndims; d++) {
        struct knob k;
        FUZZ_ASSERT(knob_lookup(sp.dim[d].knob, sp.dim[d].sched[0] ? sp.dim[d].sched : NULL, &k, &e) == 0);
        FUZZ_ASSERT(sp.dim[d].nlevels >= 1 && sp.dim[d].nlevels <= SPACE_MAX_LEVELS);
        FUZZ_ASSERT(sp.dim[d].base >= -1 && sp.dim[d].base < sp.dim[d].nlevels);
    }
    space_count(&sp, 100000);
    struct space_iter it;
    memset(&it, 0, sizeof it);
    struct search_config c, back;
    static char text[8192];
    for (int i = 0; i < 64 && space_next(&sp, &it, &c) == 1; i++) {
        FUZZ_ASSERT(space_valid(&sp, &c, NULL, 0));
        space_config_text(&sp, &c, text, sizeof text);
        if (space_config_parse(&sp, text, &back, &e) == 0) FUZZ_ASSERT(space_config_equal(&sp, &c, &back));
        double u[SPACE_MAX_DIMS];
        int cat[SPACE_MAX_DIMS];
        space_encode(&sp, &c, u, cat);
    }
    space_baseline(&sp, &c);
    return 0;
}
