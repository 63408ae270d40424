/* Unit tests: quote (one escaping or refusing function per generated
 * format) and esc (control characters on a terminal), against newline,
 * quote, ']', ':', '=', ';', '%', '$' and escape sequences (#14). A NUL
 * cannot reach them: C strings end there, and readers refuse it (F10). */
#include "harness.h"
#include "core/esc.h"
#include "profile/quote.h"

#include <fnmatch.h>

static const char *const hostile[] = {
    "a\nb", "a\"b", "a]b", "a:b", "a=b", "a ;b", "a%kb", "a$devpath", "a\033[2Jb", "\"]\nmax_sectors_kb : 4\n;",
    "${f:exec:/bin/sh}", "a\rb", "!neg", " edge ",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

TEST(esc_shows_control_characters)
{
    char out[128];
    CHECK_STR(esc_term("a\033[2Jb\n\t\x7f", out, sizeof out, 0), "a\\x1b[2Jb\\n\\t\\x7f");
    CHECK_STR(esc_term("two\nlines", out, sizeof out, 1), "two\nlines");
    CHECK_STR(esc_term("c1 \xc2\x9b" "31m", out, sizeof out, 0), "c1 \\x9b31m");
    CHECK_STR(esc_term("caf\xc3\xa9 \xc2\xb5s", out, sizeof out, 0), "caf\xc3\xa9 \xc2\xb5s");
    CHECK_STR(esc_term("\033\033\033", out, 6, 0), "\\x1b");
    CHECK_STR(esc_t(NULL), "");
}

/* 8-bit C1 controls sent as single bytes (CSI 0x9b, OSC 0x9d) act on a
 * terminal that takes 8-bit controls; in valid UTF-8 such a byte only
 * continues a character. So every byte that is not part of a valid UTF-8
 * character is shown, and valid characters pass whole. */
TEST(esc_shows_bytes_that_are_not_utf8)
{
    char out[128];
    CHECK_STR(esc_term("\x9b" "31m red", out, sizeof out, 0), "\\x9b31m red");
    CHECK_STR(esc_term("\x9d" "0;title\x9c", out, sizeof out, 0), "\\x9d0;title\\x9c");
    CHECK_STR(esc_term("caf\xe9", out, sizeof out, 0), "caf\\xe9");
    CHECK_STR(esc_term("\xc0\xaf \xed\xa0\x80", out, sizeof out, 0), "\\xc0\\xaf \\xed\\xa0\\x80");
    CHECK_STR(esc_term("cut \xe2\x82", out, sizeof out, 0), "cut \\xe2\\x82");
    CHECK_STR(esc_term("\xe2\x82\xac 5 \xf0\x9f\x92\xbe", out, sizeof out, 0), "\xe2\x82\xac 5 \xf0\x9f\x92\xbe");
    /* a character that does not fit whole is left out, not cut */
    CHECK_STR(esc_term("ab\xe2\x82\xac", out, 4, 0), "ab");
}

TEST(quote_comment_and_ini_stay_one_line)
{
    char out[256];
    for (size_t i = 0; i < NHOSTILE; i++) {
        quote_comment(hostile[i], out, sizeof out);
        CHECK(!strpbrk(out, "\n\r\033"));
        quote_ini_value(hostile[i], out, sizeof out);
        CHECK(!strpbrk(out, "\n\r\033"));
        CHECK(!strstr(out, " ;"));
    }
    quote_ini_value("fast ; # not comments", out, sizeof out);
    CHECK_STR(out, "fast \\x3b \\x23 not comments");
}

TEST(quote_selector_glob_matches_and_holds_no_syntax)
{
    char out[256];
    for (size_t i = 0; i < NHOSTILE; i++) {
        quote_selector_glob(hostile[i], out, sizeof out);
        CHECK(!strpbrk(out, "\n\r\033\"[],=;\\"));
        CHECK(out[0] != '!' && out[0] != ' ');
        CHECK_INT(fnmatch(out, hostile[i], 0), 0);
    }
    quote_selector_glob("WD-WX11", out, sizeof out);
    CHECK_STR(out, "WD-WX11");
}

/* A case of a quoter that refuses what it cannot quote: quoted is what it
 * makes of in, or NULL when it refuses in with an error containing why. */
struct quote_case {
    const char *in, *quoted, *why;
};

static void check_quoted(int (*quote)(const char *, char *, size_t, sl_err *), const char *name,
                         const struct quote_case *cases, size_t n)
{
    char out[512];
    for (size_t i = 0; i < n; i++) {
        const struct quote_case *c = &cases[i];
        sl_err e = { 0 };
        int rc = quote(c->in, out, sizeof out, &e);
        if (c->quoted ? rc != 0 || strcmp(out, c->quoted) : rc != -1 || !strstr(e.msg, c->why))
            harness_fail(__FILE__, __LINE__, "%s(\"%s\"): %d \"%s\" (error \"%s\"), expected %s \"%s\"", name, c->in,
                         rc, rc == 0 ? out : "", e.msg, c->quoted ? "" : "a refusal saying", c->quoted ? c->quoted : c->why);
    }
}

#define CHECK_QUOTED(quote, cases) check_quoted(quote, #quote, cases, sizeof cases / sizeof cases[0])

static const struct quote_case udev_assign[] = {
    { "mq-deadline", "mq-deadline", NULL },
    { "50%$x", "50%%$$x", NULL },
    { "4\"\nRUN+=\"/bin/sh", NULL, "\\n" },
    { "a\\b", NULL, "" },
};

static const struct quote_case sysctl_value[] = {
    { "10", "10", NULL },
    { "10\nvm.min_free_kbytes = 4194304", NULL, "" },
};

static const struct quote_case unit_exec[] = {
    { "/usr/sbin/sluice", "/usr/sbin/sluice", NULL },
    { "/opt/my tools/100%/$HOME/a\"b\\c", "\"/opt/my tools/100%%/$$HOME/a\\\"b\\\\c\"", NULL },
    { "/tmp/x\nExecStart=/bin/sh", NULL, "/tmp/x\\nExecStart=/bin/sh" },
};

TEST(quote_udev_values)
{
    char out[256];
    for (size_t i = 0; i < NHOSTILE; i++) {
        quote_udev_match(hostile[i], out, sizeof out);
        CHECK(!strpbrk(out, "\n\r\033\"\\%$*[]"));
    }
    CHECK_QUOTED(quote_udev_assign, udev_assign);
}

TEST(quote_sysctl_unit_and_paths)
{
    sl_err e;
    CHECK_QUOTED(quote_sysctl_value, sysctl_value);
    CHECK_QUOTED(quote_unit_exec, unit_exec);
    CHECK_INT(quote_check_path("profile file", "/etc/sluice/a.conf", &e), 0);
    CHECK_INT(quote_check_path("profile file", "/tmp/p\n[vm]", &e), -1);
    CHECK_CONTAINS(e.msg, "profile file \"/tmp/p\\n[vm]\"");
}

TEST(quote_tuned_value_calls_nothing)
{
    char out[256];
    for (size_t i = 0; i < NHOSTILE; i++) {
        quote_tuned_value(hostile[i], out, sizeof out);
        CHECK(!strpbrk(out, "\n\r\033$#"));
    }
    quote_tuned_value("sda,sdb", out, sizeof out);
    CHECK_STR(out, "sda,sdb");
    quote_tuned_value("10%/3% dirty; ${f:exec:/bin/sh} # x", out, sizeof out);
    CHECK_STR(out, "10%/3% dirty; ?{f:exec:/bin/sh} ? x");
}
