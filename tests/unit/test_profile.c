/* Unit tests of the profile parser, merging, selectors and plans. */
#include "harness.h"
#include "profile/profile.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct profile_dirs no_dirs;

static int load(const char *text, struct profile *p, sl_err *e)
{
    return profile_load_text(&no_dirs, text, "t.conf", p, e);
}

static const struct prof_entry *find(const struct profile *p, const char *sel, const char *key)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->ent[i].selector, sel) == 0 && strcmp(p->ent[i].key, key) == 0) return &p->ent[i];
    return NULL;
}

/* An error message for text, or "" when it loads. */
static const char *error_of(const char *text)
{
    static sl_err e;
    struct profile p;
    int rc = load(text, &p, &e);
    profile_free(&p);
    return rc == 0 ? "" : e.msg;
}

TEST(profile_parses_sections_and_values)
{
    struct profile p;
    sl_err e;
    int rc = load("# comment\n[profile]\nname = t\nsummary = one\n  two\nmatch = rotational=1\n"
                  "[vm]\ndirty_ratio = 10\ndirty_background_bytes = 64M\n"
                  "[bdflush]\nnfract = 40\n"
                  "[block]\nscheduler = mq-deadline | deadline\niosched.fifo_batch = 8\nread_ahead_kb = >4096\n"
                  "[block \"rotational=0, transport=nvme\"]\nnr_requests = <64\nbdi.max_ratio = 50\n",
                  &p, &e);
    CHECK_INT(rc, 0);
    if (rc) { printf("  %s\n", e.msg); return; }
    CHECK_STR(p.name, "t");
    CHECK_STR(p.summary, "one two");
    CHECK_INT(p.nmatch, 1);
    CHECK_INT(p.n, 8);
    const struct prof_entry *en = find(&p, "", "dirty_background_bytes");
    CHECK(en && en->sec == PS_VM);
    if (en) CHECK_STR(en->value, "67108864");
    en = find(&p, "", "nfract");
    CHECK(en && en->sec == PS_BDFLUSH && en->line == 11);
    en = find(&p, "", "scheduler");
    if (en) CHECK_STR(en->value, "mq-deadline|deadline");
    en = find(&p, "", "read_ahead_kb");
    CHECK(en && en->cond == PC_RAISE && strcmp(en->value, "4096") == 0);
    en = find(&p, "rotational=0, transport=nvme", "nr_requests");
    CHECK(en && en->cond == PC_LOWER && en->line == 17);
    CHECK(find(&p, "rotational=0, transport=nvme", "bdi.max_ratio") != NULL);
    profile_free(&p);
}

TEST(profile_errors_name_file_and_line)
{
    CHECK_STR(error_of("[vm]\ndirty_ratio 10\n"), "t.conf:2: syntax error: expected [section] or knob = value");
    CHECK_CONTAINS(error_of("[vm]\n[sysctl]\nvm.dirty_ratio = 10\n"), "t.conf:2: unknown section [sysctl]");
    CHECK_CONTAINS(error_of("[vm]\n\nno_such = 1\n"), "t.conf:3: unknown knob \"no_such\" in [vm]");
    CHECK_CONTAINS(error_of("[vm]\ndirty_ratio = 150\n"), "t.conf:2: dirty_ratio=150 is out of sluice's safe range 1..100");
    CHECK_CONTAINS(error_of("[vm]\n/proc/sys/vm/dirty_ratio = 10\n"), "t.conf:2: \"/proc/sys/vm/dirty_ratio\" is a path");
    CHECK_CONTAINS(error_of("[block]\nqueue/scheduler = none\n"), "is a path");
    CHECK_CONTAINS(error_of("[vm]\nvm.dirty_ratio = 10\n"), "relative to their section");
    CHECK_CONTAINS(error_of("[block]\nscheduler = >3\n"), "t.conf:2: scheduler: a conditional value");
    CHECK_CONTAINS(error_of("[block]\nscheduler = fastest\n"), "not an I/O scheduler sluice knows");
    CHECK_CONTAINS(error_of("[block]\nrotational = 0\n"), "read-only");
    CHECK_CONTAINS(error_of("[block]\niosched.nope = 1\n"), "unknown I/O scheduler tunable \"nope\"");
    CHECK_CONTAINS(error_of("[vm]\ndirty_ratio = 10\nswappiness = 1\ndirty_ratio = 20\n"), "t.conf:4: dirty_ratio is given twice");
    CHECK_CONTAINS(error_of("[vm]\ndirty_ratio = 10\ndirty_bytes = 1G\n"), "t.conf:3: give dirty_ratio or dirty_bytes, not both");
    CHECK_CONTAINS(error_of("[block \"speed=fast\"]\nnomerges = 1\n"), "t.conf:1: [block \"speed=fast\"]: selector");
    CHECK_CONTAINS(error_of("[block rotational=1]\nnomerges = 1\n"), "double quotes");
    CHECK_CONTAINS(error_of("[block \"rotational=1 transport=sata\"]\nnomerges = 1\n"), "separate terms with commas");
    CHECK_CONTAINS(error_of("dirty_ratio = 10\n"), "t.conf:1: \"dirty_ratio\" is outside a section");
    CHECK_CONTAINS(error_of("[profile]\ncolour = red\n"), "unknown key \"colour\" in [profile]");
    CHECK_CONTAINS(error_of("[vm]\ndrop_caches = 3\n"), "destructive");
    CHECK_CONTAINS(error_of("[bdflush]\nage_buffer = 5\n"), "age_buffer=5 is out of sluice's safe range 100..1000000");
    char longline[400];
    snprintf(longline, sizeof longline, "[vm]\ndirty_ratio = 1%0250d\n", 0);
    CHECK_CONTAINS(error_of(longline), "t.conf:2: line longer than");
    CHECK_STR(error_of("[vm]\n# a comment line that is long is fine: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\ndirty_ratio = 5\n"), "");
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) { harness_fail(__FILE__, __LINE__, "cannot write %s", path); return; }
    fputs(text, f);
    fclose(f);
}

static void dirs_for(struct profile_dirs *d, const char *dir)
{
    memset(d, 0, sizeof *d);
    snprintf(d->dir[0], sizeof d->dir[0], "%s", dir);
    d->n = 1;
}

TEST(profile_includes_override_and_cycles)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/profiles-inc", harness_tmpdir());
    mkdir(dir, 0755);
    write_file(dir, "base.conf", "[profile]\nname = base\nmatch = rotational=1\n[vm]\ndirty_ratio = 40\nswappiness = 10\n[block]\nnomerges = 1\n");
    write_file(dir, "child.conf", "[profile]\nname = child\ninclude = base\n[vm]\ndirty_bytes = 1G\nswappiness = 30\n");
    write_file(dir, "a.conf", "[profile]\ninclude = b\n");
    write_file(dir, "b.conf", "[profile]\ninclude = a\n");
    write_file(dir, "named.conf", "[profile]\nname = other\n");
    write_file(dir, "missing.conf", "[profile]\ninclude = nowhere\n");
    struct profile_dirs d;
    dirs_for(&d, dir);
    struct profile p;
    sl_err e;
    CHECK_INT(profile_load(&d, "child", &p, &e), 0);
    const struct prof_entry *en = find(&p, "", "swappiness");
    CHECK(en && strcmp(en->value, "30") == 0 && strstr(en->file, "child.conf"));
    CHECK(find(&p, "", "dirty_ratio") == NULL); /* the partner replaced it */
    CHECK(find(&p, "", "dirty_bytes") != NULL);
    en = find(&p, "", "nomerges");
    CHECK(en && strstr(en->file, "base.conf") && en->line == 8);
    CHECK_INT(p.nmatch, 1); /* inherited */
    profile_free(&p);

    CHECK_INT(profile_load(&d, "a", &p, &e), -1);
    CHECK_CONTAINS(e.msg, "include cycle: ");
    CHECK_CONTAINS(e.msg, "a.conf -> ");
    profile_free(&p);
    CHECK_INT(profile_load(&d, "named", &p, &e), -1);
    CHECK_CONTAINS(e.msg, "named.conf:2: name = other, but the file is named.conf");
    profile_free(&p);
    CHECK_INT(profile_load(&d, "missing", &p, &e), -1);
    CHECK_CONTAINS(e.msg, "include = nowhere: no profile \"nowhere\"");
    profile_free(&p);
    CHECK_INT(profile_load(&d, "../etc/passwd", &p, &e), -1);
    profile_free(&p);
    CHECK_INT(profile_find(&d, "..", NULL, 0, &e), -1);
}

TEST(profile_render_round_trips)
{
    struct profile p, q;
    sl_err e;
    CHECK_INT(load("[profile]\nname = r\nsummary = s\n[vm]\nswappiness = 5\n[block \"name=sd*\"]\nread_ahead_kb = >512\n"
                   "[block]\nscheduler = none|noop\n", &p, &e), 0);
    char *text = profile_render(&p, false);
    CHECK_INT(profile_load_text(&no_dirs, text, "r2.conf", &q, &e), 0);
    CHECK_INT(q.n, p.n);
    const struct prof_entry *en = find(&q, "name=sd*", "read_ahead_kb");
    CHECK(en && en->cond == PC_RAISE);
    free(text);
    profile_free(&p);
    profile_free(&q);
}

TEST(selectors_match_devices_and_hosts)
{
    struct device d = { .name = "sda", .transport = "sata", .model = "WDC WD20EFRX", .rotational = 1, .has_queue = true };
    struct host_info h = { .virt = "kvm", .kernel = "6.8.0" };
    CHECK(selector_matches("rotational=1", &d, &h));
    CHECK(!selector_matches("rotational=0", &d, &h));
    CHECK(selector_matches("name=sd*, model=WDC*", &d, &h));
    CHECK(!selector_matches("name=sd*, transport=nvme", &d, &h));
    CHECK(selector_matches("transport=!nvme", &d, &h));
    CHECK(selector_matches("virt=!none", NULL, &h));
    CHECK(!selector_matches("name=sda", NULL, &h));
    struct device loop = { .name = "loop0", .transport = "loop", .rotational = 0, .has_queue = true };
    CHECK(!selector_selects("rotational=0", &loop, &h));
    CHECK(selector_selects("name=loop*", &loop, &h));
    CHECK_INT(selector_check("wwid=", NULL), -1);
    CHECK_INT(selector_check("colour=red", NULL), -1);
    CHECK_INT(selector_check("kernel=2.4.*", NULL), 0);
}

TEST(plan_resolves_against_a_fixture)
{
    sl_err e;
    CHECK_INT(sysfs_set_root(harness_fixture_copy("modern"), &e), 0);
    struct profile p;
    CHECK_INT(load("[vm]\ndirty_ratio = 20\nswappiness = >100\n[block]\nscheduler = bfq|mq-deadline\niosched.fifo_batch = 8\n"
                   "[block \"transport=nvme\"]\nscheduler = kyber|none\nread_ahead_kb = <64\n[block \"model=nothing*\"]\nnomerges = 2\n",
                   &p, &e), 0);
    struct plan pl;
    CHECK_INT(profile_plan(&p, &pl, &e), 0);
    int found = 0;
    for (int i = 0; i < pl.n; i++) {
        const struct plan_item *it = &pl.it[i];
        if (!strcmp(it->knob, "vm.dirty_ratio")) { found++; CHECK_INT(it->action, PA_SAME); }
        if (!strcmp(it->knob, "vm.swappiness")) { found++; CHECK_INT(it->action, PA_WRITE); }
        if (!strcmp(it->knob, "block.sda.scheduler")) { found++; CHECK_STR(it->want, "bfq"); }
        if (!strcmp(it->knob, "block.nvme0n1.scheduler")) { found++; CHECK_STR(it->want, "kyber"); }
        if (!strcmp(it->knob, "block.nvme0n1.read_ahead_kb")) { found++; CHECK_INT(it->action, PA_WRITE); }
        CHECK(strncmp(it->knob, "block.loop", 10) != 0 && strncmp(it->knob, "block.dm-", 9) != 0);
    }
    CHECK_INT(found, 5);
    /* fifo_batch belongs to mq-deadline, not bfq or kyber: skipped with warnings */
    bool warned_fifo = false, warned_sel = false;
    for (int i = 0; i < pl.nwarn; i++) {
        warned_fifo = warned_fifo || strstr(pl.warn[i], "block.sda.iosched.fifo_batch skipped: the bfq scheduler of sda has no fifo_batch");
        warned_sel = warned_sel || strstr(pl.warn[i], "t.conf:11: [block \"model=nothing*\"] matches no device here");
    }
    CHECK(warned_fifo);
    CHECK(warned_sel);
    plan_free(&pl);
    profile_free(&p);

    CHECK_INT(load("[block]\nscheduler = cfq\n", &p, &e), 0);
    CHECK_INT(profile_plan(&p, &pl, &e), -1);
    CHECK_CONTAINS(e.msg, "t.conf:2: block.");
    CHECK_CONTAINS(e.msg, "offers only: none mq-deadline kyber bfq");
    plan_free(&pl);
    profile_free(&p);

    CHECK_INT(sysfs_set_root(harness_fixture_copy("linux26"), &e), 0);
    CHECK_INT(load("[vm]\ndirty_bytes = 64M\nswappiness = 10\n[block]\nscheduler = mq-deadline|deadline\n", &p, &e), 0);
    CHECK_INT(profile_plan(&p, &pl, &e), 0);
    bool sched = false, skipped = false;
    for (int i = 0; i < pl.n; i++) {
        if (!strcmp(pl.it[i].knob, "block.hda.scheduler")) sched = !strcmp(pl.it[i].want, "deadline");
        if (!strcmp(pl.it[i].knob, "vm.dirty_bytes")) skipped = pl.it[i].action == PA_SKIP;
    }
    CHECK(sched);
    CHECK(skipped);
    plan_free(&pl);
    profile_free(&p);
    sysfs_set_root("", &e);
}

TEST(profile_load_without_error_struct)
{
    /* Callers that only want to know whether a profile loads pass e = NULL. */
    struct profile p;
    CHECK_INT(profile_load_text(&no_dirs, "[vm]\ndirty_ratio = 500\n", "t.conf", &p, NULL), -1);
    profile_free(&p);
    CHECK_INT(profile_load_text(&no_dirs, "[vm\n", "t.conf", &p, NULL), -1);
    profile_free(&p);
}
