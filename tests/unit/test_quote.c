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

TEST(quote_udev_values)
{
    char out[256];
    sl_err e;
    for (size_t i = 0; i < NHOSTILE; i++) {
        quote_udev_match(hostile[i], out, sizeof out);
        CHECK(!strpbrk(out, "\n\r\033\"\\%$*[]"));
    }
    CHECK_INT(quote_udev_assign("mq-deadline", out, sizeof out, &e), 0);
    CHECK_STR(out, "mq-deadline");
    CHECK_INT(quote_udev_assign("50%$x", out, sizeof out, &e), 0);
    CHECK_STR(out, "50%%$$x");
    CHECK_INT(quote_udev_assign("4\"\nRUN+=\"/bin/sh", out, sizeof out, &e), -1);
    CHECK_CONTAINS(e.msg, "\\n");
    CHECK_INT(quote_udev_assign("a\\b", out, sizeof out, &e), -1);
}

TEST(quote_sysctl_unit_and_paths)
{
    char out[512];
    sl_err e;
    CHECK_INT(quote_sysctl_value("10", out, sizeof out, &e), 0);
    CHECK_STR(out, "10");
    CHECK_INT(quote_sysctl_value("10\nvm.min_free_kbytes = 4194304", out, sizeof out, &e), -1);
    CHECK_INT(quote_unit_exec("/usr/sbin/sluice", out, sizeof out, &e), 0);
    CHECK_STR(out, "/usr/sbin/sluice");
    CHECK_INT(quote_unit_exec("/opt/my tools/100%/$HOME/a\"b\\c", out, sizeof out, &e), 0);
    CHECK_STR(out, "\"/opt/my tools/100%%/$$HOME/a\\\"b\\\\c\"");
    CHECK_INT(quote_unit_exec("/tmp/x\nExecStart=/bin/sh", out, sizeof out, &e), -1);
    CHECK_CONTAINS(e.msg, "/tmp/x\\nExecStart=/bin/sh");
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
