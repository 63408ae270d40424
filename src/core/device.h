/* device — whole block disks and their hardware fingerprint, and the host's.
 * Partitions and paths map to their disk (st_dev -> /sys/dev/block/M:m). */
#ifndef SLUICE_DEVICE_H
#define SLUICE_DEVICE_H

#include <stdbool.h>
#include "core/err.h"

struct device {
    char name[64];
    unsigned major, minor;
    char transport[16];       /* nvme sata scsi virtio loop dm md mmc usb ide zram virtual unknown */
    char vendor[64];
    char model[128];
    char serial[128];
    char wwid[192];
    int rotational;           /* 1, 0, or -1 unknown */
    unsigned long long size_bytes;
    int logical_block_size, physical_block_size;
    int hw_queues;            /* blk-mq hardware queues (0: not blk-mq) */
    int queue_depth;          /* hardware queue depth (0: unknown) */
    int max_hw_sectors_kb;
    bool has_queue;           /* /sys/block/DEV/queue exists (false on 2.4) */
    char scheduler[32];       /* active scheduler, "" when unknown */
    char slaves[256];         /* stacked-on devices, space separated */
    char backing_file[256];   /* loop devices */
    char dm_name[64];
    char syspath[512];        /* where /sys/block/DEV resolves, inside the root */
};

struct host_info {
    char hostname[128];
    char machine_id[64];
    char kernel[128];
    char cpu_model[128];
    int cpus;
    unsigned long long mem_bytes;
    char virt[32];            /* none, kvm, qemu, vmware, xen, hyperv, ... */
};

/* All whole disks with a non-zero size, sorted by name. From /sys/block, or
 * from /proc/partitions on a kernel without sysfs. Caller frees *out. */
int device_list(struct device **out, sl_err *e);
/* One disk by name. -1 with a message when it is unknown; a partition name
 * gets a message naming its disk. */
int device_get(const char *name, struct device *out, sl_err *e);
/* The whole disk behind a device number (a partition maps to its parent). */
int device_for_devnum(unsigned major, unsigned minor, char *disk, size_t n, sl_err *e);
/* Where the filesystems on a disk (or its partitions) are mounted, from
 * ROOT/proc/self/mountinfo: "/srv /var/backup (xfs)", "" when none; a bind
 * mount of a subtree counts once per mountpoint. -1 when mountinfo cannot
 * be read (a kernel before 2.6.26: then nothing is known). */
int device_mountpoints(const char *disk, char *buf, size_t n);
/* The whole disk holding a file or directory. */
int device_for_path(const char *path, char *disk, size_t n, sl_err *e);
/* Device names become parts of paths: only [A-Za-z0-9_!:+-] are accepted. */
bool device_name_valid(const char *name);
/* Stable text identifying the hardware class (transport, model, rotational,
 * size class, queue depth) — the key results are shared by. */
void device_class(const struct device *d, char *buf, size_t n);

int host_read(struct host_info *h, sl_err *e);
/* The class of a host, for runs on no device (null, or a device that was
 * not found): "host:2cpu-24GiB-MODEL". Memory to the nearest GiB: the same
 * VM size reports a few MiB apart. */
void host_class_of(const char *cpu_model, int cpus, long long mem_bytes, char *buf, size_t n);

#endif
