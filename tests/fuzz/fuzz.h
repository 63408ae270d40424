/* fuzz — shared bits of the libFuzzer targets (tests/fuzz/fuzz_*.c).
 * Each target is one parser fed arbitrary bytes; a crash, a sanitizer report
 * or a broken property (FUZZ_ASSERT) is a bug in the owning module. */
#ifndef SLUICE_FUZZ_H
#define SLUICE_FUZZ_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/sysfs.h"

/* The fixture roots and the shipped profiles, as absolute paths baked in by
 * the Makefile. */
#ifndef FUZZ_FIXTURES
#define FUZZ_FIXTURES "tests/fixtures"
#endif
#ifndef FUZZ_PROFILES
#define FUZZ_PROFILES "profiles"
#endif

/* The knobs the targets resolve are the modern fixture's (its root set once,
 * in LLVMFuzzerInitialize). */
static inline void fuzz_modern_root(void)
{
    sl_err e;
    if (sysfs_set_root(FUZZ_FIXTURES "/modern", &e) < 0) { fprintf(stderr, "%s\n", e.msg); abort(); }
}

/* For a parser that reads a file: fuzz_file makes a directory of the
 * target's own, /tmp/sluice-fuzz-TARGET.XXXXXX, removed with the file at
 * exit, and returns the path of NAME in it; fuzz_write puts each input there. */
struct fuzz_file_ { char dir[64], path[128]; };
static inline struct fuzz_file_ *fuzz_file_(void)
{
    static struct fuzz_file_ f;
    return &f;
}
static inline void fuzz_file_remove_(void)
{
    unlink(fuzz_file_()->path);
    rmdir(fuzz_file_()->dir);
}
static inline const char *fuzz_file(const char *target, const char *name)
{
    struct fuzz_file_ *f = fuzz_file_();
    snprintf(f->dir, sizeof f->dir, "/tmp/sluice-fuzz-%s.XXXXXX", target);
    if (!mkdtemp(f->dir)) abort();
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    atexit(fuzz_file_remove_);
    return f->path;
}
static inline const char *fuzz_file_dir(void) { return fuzz_file_()->dir; }
static inline void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0) abort();
}

/* The input as a NUL-terminated string (parsers take C strings); bytes after
 * an embedded NUL are what C code would never see, so they are kept out. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* A property that must hold for every input. */
#define FUZZ_ASSERT(cond)                                                              \
    do { if (!(cond)) { fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
