/* profile_load_text + profile_plan + the three exports on the modern
 * fixture: a profile from someone else (a mail, a fleet repo) is hostile
 * input. Includes resolve against the shipped profiles. Whatever loads must
 * plan only catalogue knobs, and nothing generated for /etc may carry a line
 * that is not a comment, a "key = value" sysctl line or a udev rule. */
#include "fuzz.h"
#include "profile/profile.h"
#include "core/sysfs.h"

#ifndef FUZZ_PROFILES
#define FUZZ_PROFILES "profiles"
#endif

static struct profile_dirs dirs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sl_err e;
    if (sysfs_set_root(FUZZ_FIXTURES "/modern", &e) < 0) { fprintf(stderr, "%s\n", e.msg); abort(); }
    profile_dirs_init(&dirs, FUZZ_PROFILES);
    return 0;
}

static void check_lines(const char *text, const char *const *allowed)
{
    if (!text) return;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        bool ok = len == 0 || line[0] == '#';
        for (int i = 0; !ok && allowed[i]; i++) ok = strncmp(line, allowed[i], strlen(allowed[i])) == 0;
        if (!ok) fprintf(stderr, "generated line: %.*s\n", (int)len, line);
        FUZZ_ASSERT(ok);
        line += len + (line[len] == '\n');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    static struct profile p;
    sl_err e;
    sl_err_clear(&e);
    if (profile_load_text(&dirs, text, "fuzz.conf", &p, &e) < 0) {
        FUZZ_ASSERT(e.msg[0] != 0);
        profile_free(&p);
        free(text);
        return 0;
    }
    struct plan pl;
    memset(&pl, 0, sizeof pl);
    if (profile_plan(&p, &pl, &e) == 0) {
        for (int i = 0; i < pl.n; i++) {
            struct knob k;
            FUZZ_ASSERT(knob_lookup(pl.it[i].knob, NULL, &k, &e) == 0 || strstr(pl.it[i].knob, ".iosched."));
            FUZZ_ASSERT(!strchr(pl.it[i].want, '\n') && !strchr(pl.it[i].want, '/'));
        }
        struct notes nt = { 0 };
        char *sysctl = profile_export_sysctl(&p, &pl, &nt);
        static const char *const sysctl_ok[] = { "vm.", NULL };
        check_lines(sysctl, sysctl_ok);
        char *udev = profile_export_udev(&p, &pl, &nt);
        static const char *const udev_ok[] = { "ACTION==\"add|change\", SUBSYSTEM==\"block\", ", NULL };
        check_lines(udev, udev_ok);
        char *tuned = profile_export_tuned(&p, &pl, &nt);
        free(sysctl);
        free(udev);
        free(tuned);
        notes_free(&nt);
        struct knobset ks = { 0 };
        plan_knobset(&pl, &ks, &e);
        knobset_free(&ks);
    }
    plan_free(&pl);
    profile_free(&p);
    free(text);
    return 0;
}
