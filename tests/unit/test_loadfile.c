/* loadfile: dbench's NetBench format, parsed strictly. */
#include "harness.h"
#include "probe/loadfile.h"

#include <stdio.h>
#include <stdlib.h>

static const char *write_tmp(const char *name, const char *text)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", harness_tmpdir(), name);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

TEST(loadfile_builtin_parses)
{
    struct nb_load l;
    sl_err e;
    CHECK_INT(loadfile_parse(NULL, &l, &e), 0);
    CHECK(l.n > 100);
    CHECK_INT(l.max_io, 65536);
    /* it starts and ends by removing its tree, so it can loop */
    CHECK_INT(l.ops[0].kind, NB_DELTREE);
    CHECK_INT(l.ops[l.n - 1].kind, NB_DELTREE);
    CHECK_STR(l.ops[0].path, "/~dmtmp");
    loadfile_free(&l);
}

TEST(loadfile_fields)
{
    const char *p = write_tmp("f.load", "# c\n\n"
                                        "1.5 NTCreateX \"\\clients\\client1\\dir\\a b.txt\" 0x1 0x5 77 NT_STATUS_OK\n"
                                        "  ReadX 77 0x10 512 100 NT_STATUS_OK\n"
                                        "QUERY_PATH_INFORMATION \"\\clients\\client1\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
                                        "qfsinfo\n");
    struct nb_load l;
    sl_err e;
    /* the last line: an operation name dbench does not know */
    CHECK_INT(loadfile_parse(p, &l, &e), -1);
    CHECK_CONTAINS(e.msg, "line 6: unknown operation \"qfsinfo\"");
    p = write_tmp("g.load", "1.5 NTCreateX \"\\clients\\client1\\dir\\a b.txt\" 0x1 0x5 77 NT_STATUS_OK\n"
                            "  ReadX 77 0x10 512 100 NT_STATUS_OK\n"
                            "QUERY_PATH_INFORMATION \"\\clients\\client1\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
                            "query_fs_information 0x0\n");
    CHECK_INT(loadfile_parse(p, &l, &e), 0);
    CHECK_INT(l.n, 4);
    CHECK_NEAR(l.ops[0].at_s, 1.5, 1e-9);
    CHECK_STR(l.ops[0].path, "/dir/a b.txt");
    CHECK_INT(l.ops[0].p[0], 1);
    CHECK_INT(l.ops[0].p[1], 5);
    CHECK_INT(l.ops[0].p[2], 77);
    CHECK(l.ops[0].expect_ok);
    CHECK(l.ops[1].at_s < 0);
    CHECK_INT(l.ops[1].p[1], 16);
    CHECK_INT(l.ops[1].p[3], 100);
    CHECK_STR(l.ops[2].path, "");
    CHECK(!l.ops[2].expect_ok);
    CHECK_INT(l.ops[3].kind, NB_QFSINFO);   /* names are case-insensitive, like dbench's; 0x0 is success */
    CHECK(l.ops[3].expect_ok);
    CHECK_INT(l.max_io, 512);
    loadfile_free(&l);
}

TEST(loadfile_refusals)
{
    static const struct { const char *text, *msg; } bad[] = {
        { "WriteX 1 0 4096 8192 NT_STATUS_OK\n", "returned size at most the size" },
        { "WriteX 1 0 99999999 99999999 NT_STATUS_OK\n", "size at most 16M" },
        { "Rename \"\\clients\\client1\\a\" NT_STATUS_OK\n", "give 2 before the status" },
        { "Mkdir \"\\clients\\client12\" NT_STATUS_OK\n", "is not under \\clients\\client1" },
        { "Mkdir \"\\clients\\client1\\.\\x\" NT_STATUS_OK\n", "\".\" or \"..\" component" },
        { "3.0\n", "a time and nothing else" },
        { "Sleep 99999999 NT_STATUS_OK\n", "Sleep: give 0 to 10000000" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = write_tmp("bad.load", bad[i].text);
        struct nb_load l;
        sl_err e;
        CHECK_INT(loadfile_parse(p, &l, &e), -1);
        CHECK_CONTAINS(e.msg, "line 1: ");
        CHECK_CONTAINS(e.msg, bad[i].msg);
        CHECK_INT(e.status, SL_EUSAGE);
    }
}
