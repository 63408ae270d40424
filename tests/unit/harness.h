/* harness — a tiny unit-test harness: TEST(name) registers a test from any
 * file; CHECK* record a failure with file:line and keep going. */
#ifndef SLUICE_HARNESS_H
#define SLUICE_HARNESS_H

#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void harness_register(const char *name, test_fn fn);
void harness_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Directory of the fixtures (tests/fixtures), and a fresh temporary copy of
 * one fixture root (removed at exit). */
const char *harness_fixtures(void);
const char *harness_fixture_copy(const char *name);
const char *harness_tmpdir(void);
/* A new, empty sluice database created as harness_tmpdir()/name (a file of
 * that name is removed first); a failure to open it is a test failure (NULL
 * then). Close with store_close. */
struct store;
struct store *harness_store(const char *name);

#define TEST(name)                                                             \
    static void test_##name(void);                                             \
    __attribute__((constructor)) static void register_##name(void)             \
    { harness_register(#name, test_##name); }                                  \
    static void test_##name(void)

#define CHECK(cond) \
    do { if (!(cond)) harness_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); } while (0)
#define CHECK_INT(a, b)                                                                        \
    do { long long a_ = (long long)(a), b_ = (long long)(b);                                   \
         if (a_ != b_) harness_fail(__FILE__, __LINE__, "%s == %lld, expected %lld", #a, a_, b_); } while (0)
#define CHECK_STR(a, b)                                                                        \
    do { const char *a_ = (a), *b_ = (b);                                                      \
         if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                \
             harness_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)
#define CHECK_NEAR(a, b, tol)                                                                  \
    do { double a_ = (a), b_ = (b);                                                            \
         if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol)))                                          \
             harness_fail(__FILE__, __LINE__, "%s == %.9g, expected %.9g (tolerance %g)", #a, a_, b_, (double)(tol)); } while (0)
#define CHECK_CONTAINS(hay, needle)                                                            \
    do { const char *h_ = (hay), *n_ = (needle);                                               \
         if (!h_ || !strstr(h_, n_))                                                           \
             harness_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", n_); } while (0)

#endif
