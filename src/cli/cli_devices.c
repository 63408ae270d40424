/* cli_devices — `devices`: whole disks and their hardware fingerprint. */
#include "cli/cli.h"
#include "core/esc.h"
#include "core/device.h"
#include "core/record.h"
#include "core/sysfs.h"
#include "core/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        json_object_set_new(o, "host", rec_json(host_fields, host_fields_len, &h));
        for (int i = 0; i < n; i++) json_array_append_new(arr, rec_json(device_fields, device_fields_len, &v[i]));
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
