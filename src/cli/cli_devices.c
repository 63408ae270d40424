/* cli_devices — `devices`: whole disks and their hardware fingerprint. */
#include "cli.h"
#include "esc.h"
#include "device.h"
#include "sysfs.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *device_json(const struct device *d)
{
    char cls[256];
    device_class(d, cls, sizeof cls);
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(d->name));
    char devnum[32];
    snprintf(devnum, sizeof devnum, "%u:%u", d->major, d->minor);
    json_object_set_new(o, "devnum", json_string(devnum));
    json_object_set_new(o, "transport", json_string(d->transport));
    json_object_set_new(o, "vendor", json_string(d->vendor));
    json_object_set_new(o, "model", json_string(d->model));
    json_object_set_new(o, "serial", json_string(d->serial));
    json_object_set_new(o, "wwid", json_string(d->wwid));
    json_object_set_new(o, "rotational", d->rotational < 0 ? json_null() : json_boolean(d->rotational));
    json_object_set_new(o, "size_bytes", json_integer((json_int_t)d->size_bytes));
    json_object_set_new(o, "logical_block_size", json_integer(d->logical_block_size));
    json_object_set_new(o, "physical_block_size", json_integer(d->physical_block_size));
    json_object_set_new(o, "hw_queues", json_integer(d->hw_queues));
    json_object_set_new(o, "queue_depth", json_integer(d->queue_depth));
    json_object_set_new(o, "max_hw_sectors_kb", json_integer(d->max_hw_sectors_kb));
    json_object_set_new(o, "scheduler", d->scheduler[0] ? json_string(d->scheduler) : json_null());
    json_object_set_new(o, "block_knobs", json_boolean(d->has_queue));
    json_object_set_new(o, "slaves", json_string(d->slaves));
    json_object_set_new(o, "backing_file", json_string(d->backing_file));
    json_object_set_new(o, "dm_name", json_string(d->dm_name));
    json_object_set_new(o, "hw_class", json_string(cls));
    return o;
}

static json_t *host_json(const struct host_info *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "hostname", json_string(h->hostname));
    json_object_set_new(o, "kernel", json_string(h->kernel));
    json_object_set_new(o, "cpu_model", json_string(h->cpu_model));
    json_object_set_new(o, "cpus", json_integer(h->cpus));
    json_object_set_new(o, "mem_bytes", json_integer((json_int_t)h->mem_bytes));
    json_object_set_new(o, "virtualization", json_string(h->virt));
    return o;
}

static void print_devices(const struct host_info *h, const struct device *v, int n)
{
    char mem[32];
    units_format_bytes(h->mem_bytes, mem, sizeof mem);
    printf("host %s: %s, %d CPU%s (%s), %s RAM, virtualization %s\n\n", h->hostname, h->kernel, h->cpus,
           h->cpus == 1 ? "" : "s", h->cpu_model[0] ? h->cpu_model : "unknown CPU", mem, h->virt);
    struct table *t = table_new(9, "DEVICE", "DEV", "TRANSPORT", "MODEL", "SIZE", "ROT", "SCHED", "QDEPTH", "STACKING");
    for (int i = 0; i < n; i++) {
        const struct device *d = &v[i];
        char devnum[32], size[32], qd[32], stack[600] = "";
        snprintf(devnum, sizeof devnum, "%u:%u", d->major, d->minor);
        units_format_bytes(d->size_bytes, size, sizeof size);
        snprintf(qd, sizeof qd, d->hw_queues > 1 ? "%d x%d" : "%d", d->queue_depth, d->hw_queues);
        if (d->slaves[0]) snprintf(stack, sizeof stack, "on %s", d->slaves);
        else if (d->backing_file[0]) snprintf(stack, sizeof stack, "file %s", d->backing_file);
        if (d->dm_name[0]) {
            size_t len = strlen(stack);
            snprintf(stack + len, sizeof stack - len, "%s(%s)", len ? " " : "", d->dm_name);
        }
        table_row(t, d->name, devnum, d->transport, d->model[0] ? d->model : "-", size,
                  d->rotational < 0 ? "?" : d->rotational ? "yes" : "no",
                  d->has_queue ? (d->scheduler[0] ? d->scheduler : "-") : "n/a", qd, stack[0] ? stack : "-");
    }
    table_print(t);
    if (n > 0 && !v[0].has_queue && !sysfs_is_dir("/sys"))
        printf("\nthis kernel has no /sys (2.4?): disks come from /proc/partitions and block knobs are unavailable\n");
}

struct devices_opts {
    const char *for_path;
};

static const struct opt devices_rows[] = {
    { .name = "for", .type = OPT_TEXT, .arg = "PATH",
      .help = "only the whole disk that holds PATH (a file, partition or device)",
      OPT_PTR(struct devices_opts, for_path), .complete = COMPLETE_FILE },
    { NULL },
};
static const struct opt_table devices_table = { sizeof(struct devices_opts), NULL, { { devices_rows, 0 } }, NULL, NULL };

static int run_devices(struct cli_ctx *ctx, int argc, char **argv)
{
    const char *for_path = ((const struct devices_opts *)ctx->opts)->for_path;
    if (argc > 1) return cli_usage("devices", "unexpected argument %s", argv[1]);
    sl_err e;
    if (for_path) {
        char disk[64];
        if (device_for_path(for_path, disk, sizeof disk, &e) < 0) return cli_error(&e);
        if (ctx->json) {
            json_t *o = json_object();
            json_object_set_new(o, "path", json_string(for_path));
            json_object_set_new(o, "disk", json_string(disk));
            return cli_print_json(o);
        }
        printf("%s\n", esc_t(disk));
        return 0;
    }
    struct host_info h;
    if (host_read(&h, &e) < 0) return cli_error(&e);
    struct device *v;
    int n = device_list(&v, &e);
    if (n < 0) return cli_error(&e);
    if (ctx->json) {
        json_t *o = json_object(), *arr = json_array();
        json_object_set_new(o, "host", host_json(&h));
        for (int i = 0; i < n; i++) json_array_append_new(arr, device_json(&v[i]));
        json_object_set_new(o, "devices", arr);
        free(v);
        return cli_print_json(o);
    }
    print_devices(&h, v, n);
    free(v);
    return 0;
}

CLI_COMMAND_OPTS(cmd_devices, "devices", run_devices, devices_table,
            "block devices and their hardware fingerprint (or the disk holding PATH)", 0);
