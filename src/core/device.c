/* device — disk discovery and fingerprints, read through the sysfs module. */
#include "core/device.h"
#include "core/record.h"
#include "core/sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

bool device_name_valid(const char *name)
{
    if (!name || !*name || strlen(name) >= 64) return false;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_!:+-", *p)) return false;
    return true;
}

/* Read /sys/block/DEV/REL into buf, "" when absent. */
static void read_attr(const char *dev, const char *rel, char *buf, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "/sys/block/%s/%s", dev, rel);
    if (sysfs_read(path, buf, n, NULL) < 0) buf[0] = 0;
}

static long long read_attr_ll(const char *dev, const char *rel, long long dflt)
{
    char buf[64];
    read_attr(dev, rel, buf, sizeof buf);
    if (!buf[0]) return dflt;
    char *end;
    long long v = strtoll(buf, &end, 10);
    return end == buf ? dflt : v;
}

static void transport_from_path(const char *name, const char *syspath, char *out, size_t n)
{
    static const struct { const char *token; const char *transport; } by_path[] = {
        { "/nvme/", "nvme" }, { "/virtio", "virtio" }, { "/usb", "usb" },
        { "/mmc_host/", "mmc" }, { "/ata", "sata" }, { "/ide", "ide" },
        { "/target", "scsi" },
    };
    static const struct { const char *prefix; const char *transport; } by_name[] = {
        { "loop", "loop" }, { "dm-", "dm" }, { "md", "md" }, { "zram", "zram" },
        { "nbd", "nbd" }, { "ram", "ram" },
    };
    if (strstr(syspath, "/devices/virtual/")) {
        for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++)
            if (strncmp(name, by_name[i].prefix, strlen(by_name[i].prefix)) == 0) {
                snprintf(out, n, "%s", by_name[i].transport);
                return;
            }
        snprintf(out, n, "virtual");
        return;
    }
    for (size_t i = 0; i < sizeof by_path / sizeof by_path[0]; i++)
        if (strstr(syspath, by_path[i].token)) {
            snprintf(out, n, "%s", by_path[i].transport);
            return;
        }
    /* 2.4 and unknown buses: guess from the name. */
    if (strncmp(name, "hd", 2) == 0) snprintf(out, n, "ide");
    else if (strncmp(name, "sd", 2) == 0) snprintf(out, n, "scsi");
    else snprintf(out, n, "unknown");
}

static void list_dir_words(const char *dir, char *out, size_t n)
{
    char **names;
    out[0] = 0;
    int cnt = sysfs_list(dir, &names, NULL);
    if (cnt < 0) return;
    for (int i = 0; i < cnt; i++) {
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s", len ? " " : "", names[i]);
    }
    sysfs_names_free(names, cnt);
}

static void hw_queue_facts(struct device *d)
{
    char dir[256], **names;
    snprintf(dir, sizeof dir, "/sys/block/%s/mq", d->name);
    int cnt = sysfs_list(dir, &names, NULL);
    int depth = 0;
    for (int i = 0; i < cnt; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "mq/%s/nr_tags", names[i]);
        long long t = read_attr_ll(d->name, rel, 0);
        if (t > depth) depth = (int)t;
    }
    d->hw_queues = cnt > 0 ? cnt : 0;
    if (cnt > 0) sysfs_names_free(names, cnt);
    /* SCSI reports the device's own tag depth, which is what the disk takes. */
    long long scsi = read_attr_ll(d->name, "device/queue_depth", 0);
    d->queue_depth = scsi > 0 ? (int)scsi : depth;
}

static void identity(struct device *d)
{
    static const char *const model_attrs[] = { "device/model", "device/name" };
    static const char *const serial_attrs[] = { "device/serial", "serial" };
    static const char *const wwid_attrs[] = { "wwid", "device/wwid", "device/wwn" };
    read_attr(d->name, "device/vendor", d->vendor, sizeof d->vendor);
    for (size_t i = 0; i < 2 && !d->model[0]; i++) read_attr(d->name, model_attrs[i], d->model, sizeof d->model);
    for (size_t i = 0; i < 2 && !d->serial[0]; i++) read_attr(d->name, serial_attrs[i], d->serial, sizeof d->serial);
    for (size_t i = 0; i < 3 && !d->wwid[0]; i++) read_attr(d->name, wwid_attrs[i], d->wwid, sizeof d->wwid);
    read_attr(d->name, "dm/name", d->dm_name, sizeof d->dm_name);
    read_attr(d->name, "loop/backing_file", d->backing_file, sizeof d->backing_file);
    char dir[256];
    snprintf(dir, sizeof dir, "/sys/block/%s/slaves", d->name);
    list_dir_words(dir, d->slaves, sizeof d->slaves);
}

static int device_from_sysfs(const char *name, struct device *d, sl_err *e)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    char path[256], buf[64];
    snprintf(path, sizeof path, "/sys/block/%s", name);
    if (sysfs_resolve(path, d->syspath, sizeof d->syspath, e) < 0) return -1;
    read_attr(name, "dev", buf, sizeof buf);
    if (sscanf(buf, "%u:%u", &d->major, &d->minor) != 2)
        return sl_fail(e, SL_EFAIL, "%s%s/dev: cannot read the device number", sysfs_root(), path);
    d->size_bytes = (unsigned long long)read_attr_ll(name, "size", 0) * 512ULL; /* always 512-byte sectors */
    transport_from_path(name, d->syspath, d->transport, sizeof d->transport);
    snprintf(path, sizeof path, "/sys/block/%s/queue", name);
    d->has_queue = sysfs_is_dir(path);
    d->rotational = (int)read_attr_ll(name, "queue/rotational", -1);
    d->logical_block_size = (int)read_attr_ll(name, "queue/logical_block_size",
                                              read_attr_ll(name, "queue/hw_sector_size", 0));
    d->physical_block_size = (int)read_attr_ll(name, "queue/physical_block_size", d->logical_block_size);
    d->max_hw_sectors_kb = (int)read_attr_ll(name, "queue/max_hw_sectors_kb", 0);
    char sched[256];
    read_attr(name, "queue/scheduler", sched, sizeof sched);
    char *lb = strchr(sched, '['), *rb = lb ? strchr(lb, ']') : NULL;
    if (lb && rb) snprintf(d->scheduler, sizeof d->scheduler, "%.*s", (int)(rb - lb - 1), lb + 1);
    else if (sched[0] && !strchr(sched, ' ')) snprintf(d->scheduler, sizeof d->scheduler, "%s", sched);
    hw_queue_facts(d);
    identity(d);
    return 0;
}

static int cmp_dev(const void *a, const void *b)
{
    return strcmp(((const struct device *)a)->name, ((const struct device *)b)->name);
}

/* 2.4: /proc/partitions, whole disks are the names no other entry prefixes
 * with a partition suffix (hda vs hda1). */
static int devices_from_proc_partitions(struct device **out, sl_err *e)
{
    char *text;
    if (sysfs_read_text("/proc/partitions", 1 << 20, &text, e) < 0) return -1;
    int n = 0, cap = 8;
    struct device *v = xcalloc((size_t)cap, sizeof *v);
    char *save, *line = strtok_r(text, "\n", &save);
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        unsigned maj, min;
        unsigned long long blocks;
        char name[64];
        if (sscanf(line, " %u %u %llu %63s", &maj, &min, &blocks, name) != 4) continue;
        size_t len = strlen(name);
        bool partition = false;
        for (int i = 0; i < n; i++) {
            size_t pl = strlen(v[i].name);
            if (len > pl && strncmp(name, v[i].name, pl) == 0 && isdigit((unsigned char)name[len - 1]))
                partition = true;
        }
        if (partition || !device_name_valid(name)) continue;
        if (n == cap) { cap *= 2; v = xrealloc(v, sizeof *v * (size_t)cap); }
        memset(&v[n], 0, sizeof v[n]);
        snprintf(v[n].name, sizeof v[n].name, "%s", name);
        v[n].major = maj;
        v[n].minor = min;
        v[n].size_bytes = blocks * 1024ULL;
        v[n].rotational = -1;
        transport_from_path(name, "", v[n].transport, sizeof v[n].transport);
        n++;
    }
    free(text);
    *out = v;
    return n;
}

int device_list(struct device **out, sl_err *e)
{
    if (!sysfs_is_dir("/sys/block")) return devices_from_proc_partitions(out, e);
    char **names;
    int cnt = sysfs_list("/sys/block", &names, e);
    if (cnt < 0) return -1;
    struct device *v = xcalloc((size_t)cnt + 1, sizeof *v);
    int n = 0;
    for (int i = 0; i < cnt; i++) {
        if (!device_name_valid(names[i])) continue;
        if (device_from_sysfs(names[i], &v[n], NULL) < 0) continue;
        if (v[n].size_bytes == 0) continue; /* unattached loop devices and the like */
        n++;
    }
    sysfs_names_free(names, cnt);
    qsort(v, (size_t)n, sizeof *v, cmp_dev);
    *out = v;
    return n;
}

/* Name of the disk a partition belongs to, via /sys/class/block/NAME. */
static int parent_of_partition(const char *name, char *disk, size_t n)
{
    char path[256], real[512];
    snprintf(path, sizeof path, "/sys/class/block/%s/partition", name);
    if (!sysfs_exists(path)) return -1;
    snprintf(path, sizeof path, "/sys/class/block/%s", name);
    if (sysfs_resolve(path, real, sizeof real, NULL) < 0) return -1;
    char *slash = strrchr(real, '/');
    if (!slash) return -1;
    *slash = 0;
    slash = strrchr(real, '/');
    if (!slash) return -1;
    snprintf(disk, n, "%s", slash + 1);
    return 0;
}

int device_get(const char *name, struct device *out, sl_err *e)
{
    if (!device_name_valid(name))
        return sl_fail(e, SL_EUSAGE, "\"%s\" is not a block device name", name);
    if (!sysfs_is_dir("/sys/block")) {
        struct device *all;
        int n = devices_from_proc_partitions(&all, e);
        for (int i = 0; i < n; i++)
            if (strcmp(all[i].name, name) == 0) { *out = all[i]; free(all); return 0; }
        if (n >= 0) free(all);
        return sl_fail(e, SL_EUSAGE, "no block device \"%s\" in %s/proc/partitions", name, sysfs_root());
    }
    char path[256];
    snprintf(path, sizeof path, "/sys/block/%s", name);
    if (!sysfs_exists(path)) {
        char disk[64];
        if (parent_of_partition(name, disk, sizeof disk) == 0)
            return sl_fail(e, SL_EUSAGE, "%s is a partition; its queue belongs to the disk %s: use %s", name, disk, disk);
        return sl_fail(e, SL_EUSAGE, "no block device \"%s\" (see 'sluice devices')", name);
    }
    return device_from_sysfs(name, out, e);
}

int device_for_devnum(unsigned major, unsigned minor, char *disk, size_t n, sl_err *e)
{
    char path[64], real[512];
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u", major, minor);
    if (sysfs_resolve(path, real, sizeof real, NULL) < 0)
        return sl_fail(e, SL_EFAIL, "device %u:%u: not found under %s/sys/dev/block (a network or virtual filesystem?)",
                       major, minor, sysfs_root());
    char *base = strrchr(real, '/');
    if (!base) return sl_fail(e, SL_EFAIL, "device %u:%u: unexpected sysfs path %s", major, minor, real);
    base++;
    char part[600];
    snprintf(part, sizeof part, "%s/partition", real);
    if (sysfs_exists(part)) {
        *(base - 1) = 0;
        char *parent = strrchr(real, '/');
        if (!parent) return sl_fail(e, SL_EFAIL, "device %u:%u: no parent disk", major, minor);
        snprintf(disk, n, "%s", parent + 1);
    } else {
        snprintf(disk, n, "%s", base);
    }
    return 0;
}

int device_mountpoints(const char *disk, char *buf, size_t n)
{
    char *text;
    buf[0] = 0;
    if (sysfs_read_text("/proc/self/mountinfo", 1 << 20, &text, NULL) < 0) return -1;
    char fstype[32] = "";
    size_t len = 0;
    for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [FIELDS...] - FSTYPE SOURCE ..." */
        unsigned major, minor;
        char mnt[512], owner[64];
        const char *dash = strstr(line, " - ");
        if (sscanf(line, "%*d %*d %u:%u %*s %511s", &major, &minor, mnt) != 3 || !dash) continue;
        if (major == 0 || device_for_devnum(major, minor, owner, sizeof owner, NULL) < 0 || strcmp(owner, disk) != 0) continue;
        if (!fstype[0]) sscanf(dash + 3, "%31s", fstype);
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? " " : "", mnt);
        if (len >= n) break;
    }
    free(text);
    if (buf[0] && len < n) snprintf(buf + len, n - len, " (%s)", fstype);
    return 0;
}

int device_for_path(const char *path, char *disk, size_t n, sl_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0) return sl_fail_errno(e, SL_EUSAGE, errno, "%s", path);
    return device_for_devnum(major(st.st_dev), minor(st.st_dev), disk, n, e);
}

void device_class(const struct device *d, char *buf, size_t n)
{
    /* Size in powers of two GiB so one model in two capacities stays close. */
    int size_class = 0;
    for (unsigned long long gib = d->size_bytes >> 30; gib > 1; gib >>= 1) size_class++;
    char model[128];
    size_t j = 0;
    for (const char *p = d->model; *p && j + 1 < sizeof model; p++)
        model[j++] = (isalnum((unsigned char)*p) || *p == '-' || *p == '.') ? (char)tolower((unsigned char)*p) : '_';
    model[j] = 0;
    snprintf(buf, n, "%s-%s-rot%d-qd%d-s%d", d->transport, j ? model : "unknown",
             d->rotational, d->queue_depth, size_class);
}

/* --- the device record, described once --------------------------------- */

static void devnum_text(const void *rec, char *buf, size_t n)
{
    const struct device *d = rec;
    snprintf(buf, n, "%u:%u", d->major, d->minor);
}

static void class_text(const void *rec, char *buf, size_t n) { device_class(rec, buf, n); }

#define DEV(field, type, key, col, ...) REC_FIELD(struct device, field, type, key, col, __VA_ARGS__)
const struct rec_field device_fields[] = {
    DEV(name, REC_TEXT, "name", "name", .flags = REC_KEY),
    { .json = "devnum", .type = REC_DERIVED, .derive = devnum_text },
    DEV(transport, REC_TEXT, "transport", "transport"),
    DEV(vendor, REC_TEXT, "vendor", "vendor"),
    DEV(model, REC_TEXT, "model", "model"),
    DEV(serial, REC_TEXT, "serial", "serial", .flags = REC_KEY),
    DEV(wwid, REC_TEXT, "wwid", "wwid", .flags = REC_KEY),
    DEV(rotational, REC_TRI, "rotational", "rotational"),
    DEV(size_bytes, REC_U64, "size_bytes", "size_bytes", .unit = "bytes"),
    DEV(logical_block_size, REC_INT, "logical_block_size", "logical_block_size", .unit = "bytes"),
    DEV(physical_block_size, REC_INT, "physical_block_size", "physical_block_size", .unit = "bytes"),
    DEV(hw_queues, REC_INT, "hw_queues", "hw_queues"),
    DEV(queue_depth, REC_INT, "queue_depth", "queue_depth"),
    DEV(max_hw_sectors_kb, REC_INT, "max_hw_sectors_kb", "max_hw_sectors_kb", .unit = "KiB"),
    DEV(scheduler, REC_TEXT, "scheduler", NULL, .flags = REC_NULL_EMPTY),
    DEV(has_queue, REC_BOOL, "block_knobs", NULL),
    DEV(slaves, REC_TEXT, "slaves", NULL),
    DEV(backing_file, REC_TEXT, "backing_file", NULL),
    DEV(dm_name, REC_TEXT, "dm_name", NULL),
    { .json = "hw_class", .column = "hw_class", .type = REC_DERIVED, .derive = class_text },
};
#undef DEV
const size_t device_fields_len = sizeof device_fields / sizeof device_fields[0];
