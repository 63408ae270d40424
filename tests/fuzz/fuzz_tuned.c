/* profile_import_tuned on the modern fixture: a TuneD profile (tuned.conf)
 * from anywhere. What it maps must be catalogue knobs with valid values, and
 * the sluice profile it renders must load again (import-tuned writes it). */
#include "fuzz.h"
#include "profile/profile.h"
#include "core/sysfs.h"

#include <fcntl.h>
#include <unistd.h>

static char dir[] = "/tmp/sluice-fuzz-tuned.XXXXXX";
static char conf[sizeof dir + 16];
static struct profile_dirs dirs;

static void cleanup(void) { unlink(conf); rmdir(dir); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sl_err e;
    if (sysfs_set_root(FUZZ_FIXTURES "/modern", &e) < 0) { fprintf(stderr, "%s\n", e.msg); abort(); }
    if (!mkdtemp(dir)) abort();
    snprintf(conf, sizeof conf, "%s/tuned.conf", dir);
    atexit(cleanup);
    profile_dirs_init(&dirs, FUZZ_PROFILES);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(conf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0) abort();
    static struct profile p, again;
    struct notes nt = { 0 };
    sl_err e;
    sl_err_clear(&e);
    if (profile_import_tuned(dir, &p, &nt, &e) == 0) {
        for (int i = 0; i < p.n; i++) {
            FUZZ_ASSERT(prof_entry_def(&p.ent[i]) != NULL);
            FUZZ_ASSERT(!strpbrk(p.ent[i].value, "\n\r/"));
        }
        char *text = profile_render(&p, true);
        FUZZ_ASSERT(text != NULL);
        if (profile_load_text(&dirs, text, "rendered", &again, &e) < 0) {
            fprintf(stderr, "rendered profile does not load: %s\n---\n%s---\n", e.msg, text);
            FUZZ_ASSERT(!"rendered profile loads");
        }
        profile_free(&again);
        free(text);
    } else {
        FUZZ_ASSERT(e.msg[0] != 0);
    }
    notes_free(&nt);
    profile_free(&p);
    return 0;
}
