/* Search spaces on the fixture roots: shipped spaces, baselines, the rules
 * between knobs (never violated by any enumerated configuration), user
 * space files, and conversion to knobsets that `set` would accept. */
#include "harness.h"
#include "search/space.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>

static int dim_index(const struct space *sp, const char *knob)
{
    for (int i = 0; i < sp->ndims; i++)
        if (strcmp(sp->dim[i].knob, knob) == 0) return i;
    return -1;
}

static const char *base_value(const struct space *sp, const char *knob)
{
    int d = dim_index(sp, knob);
    return d >= 0 && sp->dim[d].base >= 0 ? sp->dim[d].level[sp->dim[d].base] : NULL;
}

TEST(space_writeback_baseline_and_rule)
{
    sl_err e;
    CHECK_INT(sysfs_set_root(harness_fixture_copy("modern"), &e), 0);
    struct space sp;
    CHECK_INT(space_build("writeback", NULL, &sp, &e), 0);
    CHECK_INT(sp.ndims, 4);
    CHECK_STR(base_value(&sp, "vm.dirty_ratio"), "20");
    CHECK_STR(base_value(&sp, "vm.dirty_background_ratio"), "10");
    CHECK_STR(base_value(&sp, "vm.dirty_expire_centisecs"), "3000");
    int dd = dim_index(&sp, "vm.dirty_ratio"), bd = dim_index(&sp, "vm.dirty_background_ratio");
    struct space_iter it = { 0 };
    long long n = 0, bad = 0;
    struct search_config c;
    while (space_next(&sp, &it, &c)) {
        n++;
        if (sp.dim[bd].num[c.lv[bd]] >= sp.dim[dd].num[c.lv[dd]]) bad++;
    }
    CHECK(n > 100);
    CHECK_INT(bad, 0);
    CHECK_INT(space_count(&sp, 1000000), n);
    /* a config breaking the rule is refused with a reason */
    space_baseline(&sp, &c);
    c.lv[bd] = sp.dim[bd].nlevels - 1;
    c.lv[dd] = 0;
    char why[256];
    CHECK(!space_valid(&sp, &c, why, sizeof why));
    CHECK_CONTAINS(why, "is not below");
}

TEST(space_bytes_mode_when_bytes_in_force)
{
    sl_err e;
    const char *root = harness_fixture_copy("modern");
    char path[512];
    snprintf(path, sizeof path, "%s/proc/sys/vm/dirty_bytes", root);
    FILE *f = fopen(path, "w");
    fputs("268435456\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/proc/sys/vm/dirty_ratio", root);
    f = fopen(path, "w");
    fputs("0\n", f);
    fclose(f);
    CHECK_INT(sysfs_set_root(root, &e), 0);
    struct space sp;
    CHECK_INT(space_build("writeback", NULL, &sp, &e), 0);
    CHECK(dim_index(&sp, "vm.dirty_bytes") >= 0);
    CHECK(dim_index(&sp, "vm.dirty_ratio") < 0);
    CHECK_STR(base_value(&sp, "vm.dirty_bytes"), "268435456");
    int dd = dim_index(&sp, "vm.dirty_bytes"), bd = dim_index(&sp, "vm.dirty_background_bytes");
    struct space_iter it = { 0 };
    long long bad = 0;
    struct search_config c;
    while (space_next(&sp, &it, &c)) bad += sp.dim[bd].num[c.lv[bd]] >= sp.dim[dd].num[c.lv[dd]];
    CHECK_INT(bad, 0);
}

TEST(space_queue_rules_scheduler_and_depth)
{
    sl_err e;
    CHECK_INT(sysfs_set_root(harness_fixture_copy("modern"), &e), 0);
    struct space sp;
    CHECK_INT(space_build("queue", "sda", &sp, &e), 0);
    CHECK_STR(base_value(&sp, "block.sda.scheduler"), "mq-deadline");
    CHECK_STR(base_value(&sp, "block.sda.nr_requests"), "64");
    CHECK_STR(base_value(&sp, "block.sda.iosched.fifo_batch"), "16");
    CHECK(dim_index(&sp, "block.sda.iosched.read_lat_nsec") >= 0);   /* kyber is offered */
    int sd = dim_index(&sp, "block.sda.scheduler"), nd = dim_index(&sp, "block.sda.nr_requests");
    CHECK(sp.queue_depth == 32);
    struct space_iter it = { 0 };
    long long n = 0, bad = 0;
    struct search_config c;
    while (space_next(&sp, &it, &c) && n < 300000) {
        n++;
        const char *sched = sp.dim[sd].level[c.lv[sd]];
        if (strcmp(sched, "none") == 0 && sp.dim[nd].num[c.lv[nd]] > 32) bad++;
        for (int i = 0; i < sp.ndims; i++)
            if (sp.dim[i].sched[0] && (c.lv[i] >= 0) != (strcmp(sp.dim[i].sched, sched) == 0)) bad++;
    }
    CHECK(n > 1000);
    CHECK_INT(bad, 0);
    /* full = writeback + queue */
    struct space full;
    CHECK_INT(space_build("full", "sda", &full, &e), 0);
    CHECK_INT(full.ndims, sp.ndims + 4);
    CHECK_INT(space_build("queue", NULL, &sp, &e), -1);
    CHECK_CONTAINS(e.msg, "--device");
}

TEST(space_configs_become_valid_knobsets)
{
    sl_err e;
    CHECK_INT(sysfs_set_root(harness_fixture_copy("modern"), &e), 0);
    struct space sp;
    CHECK_INT(space_build("full", "sda", &sp, &e), 0);
    /* every 997th configuration of a slice of the space passes knobset_prepare */
    struct space_iter it = { 0 };
    long long n = 0, ok = 0;
    struct search_config c;
    long long k = 0;
    while (space_next(&sp, &it, &c) && n < 40) {
        if (k++ % 997) continue;
        n++;
        struct knobset ks = { 0 };
        sl_err ke;
        if (space_to_knobset(&sp, &c, &ks, &ke) == 0 && knobset_prepare(&ks, &ke) == 0) ok++;
        else printf("  config %lld: %s\n", n, ke.msg);
        knobset_free(&ks);
    }
    CHECK(n >= 20);
    CHECK_INT(ok, n);
    struct knob *touched;
    int nt = space_touched(&sp, &touched, &e);
    bool has_bytes = false, has_async = false;
    for (int i = 0; i < nt; i++) {
        has_bytes = has_bytes || strcmp(touched[i].name, "vm.dirty_bytes") == 0;
        has_async = has_async || strcmp(touched[i].name, "block.sda.iosched.async_depth") == 0;
    }
    CHECK(has_bytes && has_async);
    free(touched);
    /* text round trip and hash */
    space_baseline(&sp, &c);
    char text[2048], h1[17], h2[17];
    space_config_text(&sp, &c, text, sizeof text);
    CHECK_CONTAINS(text, "block.sda.scheduler=mq-deadline");
    struct search_config back;
    CHECK_INT(space_config_parse(&sp, text, &back, &e), 0);
    CHECK(space_config_equal(&sp, &c, &back));
    space_config_hash(&sp, &c, h1);
    space_config_hash(&sp, &back, h2);
    CHECK_STR(h1, h2);
    CHECK_INT(space_config_changes(&sp, &c), 0);
}

TEST(space_bdflush_only_on_24)
{
    sl_err e;
    struct space sp;
    CHECK_INT(sysfs_set_root(harness_fixture_copy("modern"), &e), 0);
    CHECK_INT(space_build("bdflush", NULL, &sp, &e), -1);
    CHECK_CONTAINS(e.msg, "2.4");
    CHECK_INT(sysfs_set_root(harness_fixture_copy("linux24"), &e), 0);
    CHECK_INT(space_build("writeback", NULL, &sp, &e), -1);
    CHECK_CONTAINS(e.msg, "bdflush");
    CHECK_INT(space_build("bdflush", NULL, &sp, &e), 0);
    CHECK_INT(sp.ndims, 5);
    CHECK_STR(base_value(&sp, "vm.bdflush.nfract"), "30");
    CHECK_STR(base_value(&sp, "vm.bdflush.nfract_sync"), "60");
    int dd = dim_index(&sp, "vm.bdflush.nfract_sync"), bd = dim_index(&sp, "vm.bdflush.nfract");
    struct space_iter it = { 0 };
    long long bad = 0;
    struct search_config c;
    while (space_next(&sp, &it, &c)) bad += sp.dim[bd].num[c.lv[bd]] >= sp.dim[dd].num[c.lv[dd]];
    CHECK_INT(bad, 0);
}

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", harness_tmpdir(), name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

TEST(space_user_file)
{
    sl_err e;
    CHECK_INT(sysfs_set_root(harness_fixture_copy("modern"), &e), 0);
    struct space sp;
    const char *p = write_file("mine.space",
                               "[space]\nname = mine\n"
                               "[knob vm.dirty_ratio]\nvalues = 10 20 40\n"
                               "[knob vm.dirty_expire_centisecs]\nrange = 500..8000\nsteps = 5\nscale = log\n"
                               "[knob block.sda.iosched.fifo_batch]\nvalues = 8 32\n");
    CHECK_INT(space_build(p, NULL, &sp, &e), 0);
    CHECK_STR(sp.name, "mine");
    CHECK_INT(sp.ndims, 3);
    CHECK_STR(sp.device, "sda");
    int x = dim_index(&sp, "vm.dirty_expire_centisecs");
    CHECK(x >= 0);
    CHECK_STR(sp.dim[x].level[0], "500");
    CHECK_STR(sp.dim[x].level[1], "1000");   /* 500*2^1 (log steps) */
    CHECK_STR(base_value(&sp, "block.sda.iosched.fifo_batch"), "16");  /* inserted current value */
    p = write_file("bad1.space", "[knob vm.drop_caches]\nvalues = 1\n");
    CHECK_INT(space_build(p, NULL, &sp, &e), -1);
    CHECK_CONTAINS(e.msg, "not searchable");
    p = write_file("bad2.space", "[knob vm.dirty_ratio]\nvalues = 10 500\n");
    CHECK_INT(space_build(p, NULL, &sp, &e), -1);
    CHECK_CONTAINS(e.msg, "safe range");
    p = write_file("bad3.space", "[knob vm.dirty_ratio]\nvalue = 10\n");
    CHECK_INT(space_build(p, NULL, &sp, &e), -1);
    CHECK_CONTAINS(e.msg, "unknown key");
    CHECK_INT(space_build("nonesuch", NULL, &sp, &e), -1);
    CHECK_CONTAINS(e.msg, "shipped spaces are writeback");
}
