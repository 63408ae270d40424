/* harness — runs every registered test; prints "ok NAME" or "FAIL NAME". */
#include "harness.h"
#include "db/store.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_TESTS 512
static struct { const char *name; test_fn fn; } tests[MAX_TESTS];
static int ntests, current_failures;
static char tmpdir[PATH_MAX];

void harness_register(const char *name, test_fn fn)
{
    if (ntests < MAX_TESTS) { tests[ntests].name = name; tests[ntests].fn = fn; ntests++; }
}

void harness_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "  %s:%d: ", file, line);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    current_failures++;
}

const char *harness_fixtures(void)
{
    const char *f = getenv("SLUICE_FIXTURES");
    return f && *f ? f : "tests/fixtures";
}

const char *harness_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/sluice-unit.XXXXXX");
        if (!mkdtemp(tmpdir)) { perror("mkdtemp"); exit(2); }
    }
    return tmpdir;
}

const char *harness_fixture_copy(const char *name)
{
    static char dst[PATH_MAX];
    static int serial;
    snprintf(dst, sizeof dst, "%s/%s.%d", harness_tmpdir(), name, serial++);
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "cp -a '%s/%s' '%s'", harness_fixtures(), name, dst);
    if (system(cmd) != 0) { fprintf(stderr, "cannot copy fixture %s\n", name); exit(2); }
    return dst;
}

static void cleanup(void)
{
    if (!tmpdir[0]) return;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

int main(int argc, char **argv)
{
    atexit(cleanup);
    int passed = 0, failed = 0;
    for (int i = 0; i < ntests; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1])) continue;
        current_failures = 0;
        tests[i].fn();
        if (current_failures) { printf("FAIL unit/%s\n", tests[i].name); failed++; }
        else { printf("ok unit/%s\n", tests[i].name); passed++; }
    }
    fflush(stdout);
    return failed ? 1 : 0;
}

struct store *harness_store(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", harness_tmpdir(), name);
    unlink(path);   /* a new, empty store, also when a test asks for the name again */
    store *s = NULL;
    sl_err e;
    if (store_open(path, &s, &e) != 0) harness_fail(__FILE__, __LINE__, "opening %s: %s", path, e.msg);
    return s;
}
