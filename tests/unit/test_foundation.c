/* Unit tests for the foundation: sysfs, knob, units, device. */
#include "harness.h"
#include "core/vmstat.h"
#include "core/device.h"
#include "core/knob.h"
#include "core/sysfs.h"
#include "core/units.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void use_fixture(const char *name)
{
    sl_err e;
    CHECK(sysfs_set_root(harness_fixture_copy(name), &e) == 0);
}

static void file_text(const char *rel, char *buf, size_t n)
{
    char path[1024];
    sysfs_path(path, sizeof path, rel);
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(buf, 1, n - 1, f) : 0;
    buf[got] = 0;
    if (f) fclose(f);
}

TEST(sysfs_read_trims_and_write_appends_newline)
{
    use_fixture("modern");
    char buf[64];
    sl_err e;
    CHECK_INT(sysfs_read("/sys/block/sda/queue/scheduler", buf, sizeof buf, &e), 28);
    CHECK_STR(buf, "none [mq-deadline] kyber bfq");
    CHECK(sysfs_write("/proc/sys/vm/swappiness", "33", &e) == 0);
    file_text("/proc/sys/vm/swappiness", buf, sizeof buf);
    CHECK_STR(buf, "33\n");
}

TEST(sysfs_errors_name_path_and_errno)
{
    use_fixture("modern");
    char buf[64];
    sl_err e;
    CHECK(sysfs_read("/proc/sys/vm/no_such_file", buf, sizeof buf, &e) < 0);
    CHECK_INT(e.errnum, ENOENT);
    CHECK_CONTAINS(e.msg, "/proc/sys/vm/no_such_file: No such file or directory");
    CHECK_CONTAINS(e.msg, sysfs_root());
    /* O_NOFOLLOW: a symlinked knob file is refused, not followed. */
    char link[1024];
    sysfs_path(link, sizeof link, "/proc/sys/vm/swappiness");
    CHECK(unlink(link) == 0 && symlink("dirty_ratio", link) == 0);
    CHECK(sysfs_read("/proc/sys/vm/swappiness", buf, sizeof buf, &e) < 0);
    CHECK_INT(e.errnum, ELOOP);
    CHECK(sysfs_write("/proc/sys/vm/swappiness", "1", &e) < 0);
    file_text("/proc/sys/vm/dirty_ratio", buf, sizeof buf);
    CHECK_STR(buf, "20\n");
}

TEST(sysfs_root_must_be_a_directory)
{
    sl_err e;
    CHECK(sysfs_set_root("/nonexistent/root", &e) < 0);
    CHECK_CONTAINS(e.msg, "/nonexistent/root");
    CHECK(sysfs_set_root("/etc/hostname", &e) < 0);
    CHECK_CONTAINS(e.msg, "not a directory");
    CHECK(sysfs_set_root("/", &e) == 0 && sysfs_is_real_root());
}

TEST(scheduler_parse_bracketed_bare_and_spaced)
{
    char active[32], offered[256];
    CHECK(knob_sched_parse("none [mq-deadline] kyber bfq ", active, sizeof active, offered, sizeof offered) == 0);
    CHECK_STR(active, "mq-deadline");
    CHECK_STR(offered, "none mq-deadline kyber bfq");
    CHECK(knob_sched_parse("[none] mq-deadline", active, sizeof active, NULL, 0) == 0);
    CHECK_STR(active, "none");
    /* A fixture file overwritten with a bare name reads as that name. */
    CHECK(knob_sched_parse("bfq\n", active, sizeof active, offered, sizeof offered) == 0);
    CHECK_STR(active, "bfq");
    CHECK_CONTAINS(offered, "mq-deadline");
    CHECK(knob_sched_parse("", active, sizeof active, NULL, 0) < 0);
}

TEST(knob_lookup_names_and_errors)
{
    use_fixture("modern");
    struct knob k;
    sl_err e;
    CHECK(knob_lookup("vm.dirty_ratio", NULL, &k, &e) == 0);
    CHECK_STR(k.path, "/proc/sys/vm/dirty_ratio");
    CHECK(knob_lookup("block.sda.iosched.fifo_batch", NULL, &k, &e) == 0);
    CHECK_STR(k.path, "/sys/block/sda/queue/iosched/fifo_batch");
    CHECK(knob_lookup("bdi.sda.max_ratio", NULL, &k, &e) == 0);
    CHECK_STR(k.path, "/sys/class/bdi/8:0/max_ratio");
    CHECK(knob_lookup("block.sda.iosched.slice_idle", "bfq", &k, &e) == 0);
    CHECK_STR(k.def->scheds, "bfq cfq");
    CHECK(knob_lookup("block.sda.iosched.slice_idle", NULL, &k, &e) < 0);
    CHECK_CONTAINS(e.msg, "mq-deadline");
    CHECK(knob_lookup("vm/../../etc/passwd", NULL, &k, &e) < 0);
    CHECK_CONTAINS(e.msg, "never paths");
    CHECK(knob_lookup("block.sda1.nr_requests", NULL, &k, &e) < 0);
    CHECK_CONTAINS(e.msg, "partition");
    CHECK(knob_lookup("block.s/a.nr_requests", NULL, &k, &e) < 0);
}

TEST(knob_validate_ranges_types_enums)
{
    use_fixture("modern");
    struct knob k;
    sl_err e;
    char canon[64];
    CHECK(knob_lookup("vm.dirty_bytes", NULL, &k, &e) == 0);
    CHECK(knob_validate(&k, "256M", canon, sizeof canon, &e) == 0);
    CHECK_STR(canon, "268435456");
    CHECK(knob_validate(&k, "0", canon, sizeof canon, &e) < 0);
    CHECK(knob_validate(&k, "12x", canon, sizeof canon, &e) < 0);
    CHECK(knob_lookup("vm.dirty_ratio", NULL, &k, &e) == 0);
    CHECK(knob_validate(&k, "101", canon, sizeof canon, &e) < 0);
    CHECK_CONTAINS(e.msg, "1..100");
    CHECK(knob_validate(&k, " 10", canon, sizeof canon, &e) < 0);
    CHECK(knob_validate(&k, "0x10", canon, sizeof canon, &e) < 0);
    CHECK(knob_lookup("block.sda.scheduler", NULL, &k, &e) == 0);
    CHECK(knob_validate(&k, "bfq", canon, sizeof canon, &e) == 0);
    CHECK(knob_validate(&k, "cfq", canon, sizeof canon, &e) < 0);
    CHECK(knob_lookup("block.sda.nomerges", NULL, &k, &e) == 0);
    CHECK(knob_validate(&k, "3", canon, sizeof canon, &e) < 0);
    CHECK(knob_lookup("block.sda.logical_block_size", NULL, &k, &e) == 0);
    CHECK(knob_validate(&k, "4096", canon, sizeof canon, &e) < 0);
    CHECK_CONTAINS(e.msg, "read-only");
}

/* A knob's flags are worded once (show, man, the Knobs screen, the refusal):
 * the Knobs screen said "never written" where show said "destructive". */
TEST(knob_flags_worded_once)
{
    use_fixture("modern");
    struct knob k;
    sl_err e;
    char flags[64], canon[64];
    CHECK(knob_lookup("block.sda.write_cache", NULL, &k, &e) == 0);
    knob_flags_text(k.def, flags, sizeof flags);
    CHECK_STR(flags, ", read-only, destructive");
    CHECK_STR(knob_unwritable(k.def), "read-only: sluice shows it but never writes it");
    CHECK(knob_lookup("vm.drop_caches", NULL, &k, &e) == 0);
    CHECK_STR(knob_unwritable(k.def), "destructive or an action, not a setting: sluice does not write it");
    CHECK(knob_validate(&k, "3", canon, sizeof canon, &e) < 0);
    CHECK_STR(e.msg, "vm.drop_caches is destructive or an action, not a setting: sluice does not write it");
    CHECK(knob_lookup("vm.dirty_ratio", NULL, &k, &e) == 0);
    knob_flags_text(k.def, flags, sizeof flags);
    CHECK_STR(flags, ", searchable");
    CHECK(knob_unwritable(k.def) == NULL);
}

TEST(bdflush_fields_read_and_write_whole_vector)
{
    use_fixture("linux24");
    struct knob k;
    sl_err e;
    char buf[128];
    CHECK(knob_lookup("vm.bdflush.age_buffer", NULL, &k, &e) == 0);
    CHECK(knob_read(&k, buf, sizeof buf, &e) == 0);
    CHECK_STR(buf, "3000");
    CHECK(knob_write(&k, "6000", &e) == 0);
    CHECK(sysfs_read("/proc/sys/vm/bdflush", buf, sizeof buf, &e) > 0);
    CHECK_STR(buf, "30 500 0 0 500 6000 60 20 0");
    CHECK(knob_lookup("vm.bdflush.nfract_sync", NULL, &k, &e) == 0);
    CHECK(knob_read(&k, buf, sizeof buf, &e) == 0);
    CHECK_STR(buf, "60");
}

TEST(knob_list_is_per_device_and_scheduler_aware)
{
    use_fixture("modern");
    struct knob *list;
    sl_err e;
    const char *glob = "block.*.iosched.*";
    int n = knob_list(&glob, 1, &list, &e);
    int sda = 0, nvme = 0;
    for (int i = 0; i < n; i++) {
        if (strncmp(list[i].name, "block.sda.", 10) == 0) sda++;
        if (strncmp(list[i].name, "block.nvme0n1.", 14) == 0) nvme++;
    }
    CHECK_INT(sda, 7);  /* mq-deadline's seven tunables */
    CHECK_INT(nvme, 0); /* scheduler none: no iosched/ */
    free(list);
}

TEST(units_durations_and_sizes)
{
    CHECK_INT(units_parse_duration_ms("90"), 90000);
    CHECK_INT(units_parse_duration_ms("90s"), 90000);
    CHECK_INT(units_parse_duration_ms("10m"), 600000);
    CHECK_INT(units_parse_duration_ms("250ms"), 250);
    CHECK_INT(units_parse_duration_ms("1.5h"), 5400000);
    CHECK_INT(units_parse_duration_ms("-1s"), -1);
    CHECK_INT(units_parse_duration_ms("5x"), -1);
    CHECK_INT(units_parse_size("4k"), 4096);
    CHECK_INT(units_parse_size("1GiB"), 1LL << 30);
    CHECK_INT(units_parse_size("16M"), 16LL << 20);
    CHECK_INT(units_parse_size("1Q"), -1);
    char buf[32];
    units_format_bytes(1536, buf, sizeof buf);
    CHECK_STR(buf, "1.5 KiB");
}

TEST(devices_partitions_and_stacking)
{
    use_fixture("modern");
    char disk[64];
    sl_err e;
    CHECK(device_for_devnum(8, 1, disk, sizeof disk, &e) == 0);
    CHECK_STR(disk, "sda");
    CHECK(device_for_devnum(259, 0, disk, sizeof disk, &e) == 0);
    CHECK_STR(disk, "nvme0n1");
    CHECK(device_for_devnum(42, 42, disk, sizeof disk, &e) < 0);
    struct device d;
    CHECK(device_get("dm-0", &d, &e) == 0);
    CHECK_STR(d.transport, "dm");
    CHECK_STR(d.slaves, "loop0");
    CHECK_STR(d.dm_name, "vg0-data");
    CHECK(device_get("sda", &d, &e) == 0);
    CHECK_STR(d.transport, "sata");
    CHECK_INT(d.queue_depth, 32);
    CHECK_INT(d.rotational, 1);
    CHECK(device_get("nvme0n1", &d, &e) == 0);
    CHECK_INT(d.hw_queues, 4);
    CHECK_INT(d.queue_depth, 1023);
    char cls[128];
    device_class(&d, cls, sizeof cls);
    CHECK_STR(cls, "nvme-samsung_ssd_970_evo_plus_1tb-rot0-qd1023-s9");
    struct device *all;
    int n = device_list(&all, &e);
    CHECK_INT(n, 5); /* loop1 has size 0 and is left out */
    free(all);
}

TEST(devices_from_proc_partitions_on_24)
{
    use_fixture("linux24");
    struct device *all;
    sl_err e;
    int n = device_list(&all, &e);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_STR(all[0].name, "hda");
        CHECK_STR(all[1].name, "hdb");
        CHECK(!all[0].has_queue);
    }
    if (n >= 0) free(all);
    struct host_info h;
    CHECK(host_read(&h, &e) == 0);
    CHECK_STR(h.kernel, "2.4.19-pre3");
    CHECK_INT(h.cpus, 1);
}

TEST(sl_prefix_says_where_a_failure_from_below_happened)
{
    sl_err e;
    sl_fail(&e, SL_EUSAGE, "no such table: hosts");
    CHECK_INT(sl_prefix(&e, SL_EFAIL, "migration %s failed", "004_x"), -1);
    CHECK_STR(e.msg, "migration 004_x failed: no such table: hosts");
    CHECK_INT(e.status, SL_EFAIL);
    CHECK_INT(sl_prefix(NULL, SL_EFAIL, "ignored"), -1);
}

/* The kernel's rules between knobs are catalogue columns (role, partner):
 * each dirty limit has a ratio and a bytes half that name each other, and
 * the scheduler and nr_requests are found by role, not by name. */
TEST(knob_roles_and_partners_are_catalogue_columns)
{
    static const enum knob_role dirty[] = { KR_DIRTY, KR_DIRTY_BG };
    for (size_t i = 0; i < 2; i++) {
        const struct knob_def *ratio = knob_def_of_role(SCOPE_VM, dirty[i], false);
        const struct knob_def *bytes = knob_def_of_role(SCOPE_VM, dirty[i], true);
        CHECK(ratio && bytes);
        if (!ratio || !bytes) continue;
        CHECK_STR(ratio->partner, bytes->name);
        CHECK_STR(bytes->partner, ratio->name);
        CHECK(knob_def_of_role(SCOPE_BDFLUSH, dirty[i], false) != NULL);   /* 2.4: nfract_sync, nfract */
    }
    CHECK_STR(knob_def_of_role(SCOPE_VM, KR_DIRTY_BG, false)->name, "dirty_background_ratio");
    CHECK_STR(knob_def_of_role(SCOPE_BLOCK, KR_SCHED, false)->name, "scheduler");
    CHECK_STR(knob_def_of_role(SCOPE_BLOCK, KR_NR_REQUESTS, false)->name, "nr_requests");
    CHECK(knob_def_of_role(SCOPE_BLOCK, KR_NR_REQUESTS, false)->order > knob_def_of_role(SCOPE_BLOCK, KR_SCHED, false)->order);
}

/* The free page reporting counter the probe waits on (probe/settle.h): read
 * under the root like every kernel file, absent on kernels without it. */
TEST(vmstat_reported_kib_reads_the_counter_under_the_root)
{
    use_fixture("modern");
    uint64_t kib = 7;
    CHECK_INT(vmstat_reported_kib(&kib), -1);   /* the fixture's kernel keeps none */
    CHECK_INT((long long)kib, 7);
    char dir[1024], path[1024];
    sysfs_path(dir, sizeof dir, "/sys/module/page_reporting/parameters");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    CHECK(system(cmd) == 0);
    sysfs_path(path, sizeof path, VMSTAT_REPORTED_KIB);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) { fputs("1485233520\n", f); fclose(f); }
    CHECK_INT(vmstat_reported_kib(&kib), 0);
    CHECK_INT((long long)kib, 1485233520LL);
}
