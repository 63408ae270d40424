/* fuzz — shared bits of the libFuzzer targets (tests/fuzz/fuzz_*.c).
 * Each target is one parser fed arbitrary bytes; a crash, a sanitizer report
 * or a broken property (FUZZ_ASSERT) is a bug in the owning module. */
#ifndef SLUICE_FUZZ_H
#define SLUICE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixture roots, as an absolute path baked in by the Makefile. */
#ifndef FUZZ_FIXTURES
#define FUZZ_FIXTURES "tests/fixtures"
#endif

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
