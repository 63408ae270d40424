/* host — the host fingerprint: CPU, memory, kernel, virtualisation. */
#include "core/device.h"
#include "core/record.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void read_or_empty(const char *path, char *buf, size_t n)
{
    if (sysfs_read(path, buf, n, NULL) < 0) buf[0] = 0;
}

static void cpu_facts(struct host_info *h, bool *hypervisor_flag)
{
    char *text;
    *hypervisor_flag = false;
    if (sysfs_read_text("/proc/cpuinfo", 4 << 20, &text, NULL) < 0) return;
    char *save, *line = strtok_r(text, "\n", &save);
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        if (strncmp(line, "processor", 9) == 0) h->cpus++;
        else if (!h->cpu_model[0] && strncmp(line, "model name", 10) == 0) {
            const char *v = colon + 1;
            while (*v == ' ' || *v == '\t') v++;
            snprintf(h->cpu_model, sizeof h->cpu_model, "%s", v);
        } else if (strncmp(line, "flags", 5) == 0 && strstr(colon, " hypervisor")) {
            *hypervisor_flag = true;
        }
    }
    free(text);
}

static void mem_facts(struct host_info *h)
{
    char *text;
    if (sysfs_read_text("/proc/meminfo", 1 << 20, &text, NULL) < 0) return;
    char *p = strstr(text, "MemTotal:");
    unsigned long long kb;
    if (p && sscanf(p, "MemTotal: %llu", &kb) == 1) h->mem_bytes = kb * 1024ULL;
    free(text);
}

static void virt_facts(struct host_info *h, bool hypervisor_flag)
{
    static const struct { const char *needle; const char *virt; } vendors[] = {
        { "QEMU", "qemu" }, { "KVM", "kvm" }, { "VMware", "vmware" }, { "Xen", "xen" },
        { "Microsoft", "hyperv" }, { "innotek", "virtualbox" }, { "Amazon EC2", "kvm" },
        { "Google", "kvm" },
    };
    char buf[128];
    read_or_empty("/sys/hypervisor/type", buf, sizeof buf);
    if (buf[0]) { snprintf(h->virt, sizeof h->virt, "%s", buf); return; }
    read_or_empty("/sys/class/dmi/id/sys_vendor", buf, sizeof buf);
    char product[128];
    read_or_empty("/sys/class/dmi/id/product_name", product, sizeof product);
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (strstr(buf, vendors[i].needle) || strstr(product, vendors[i].needle)) {
            snprintf(h->virt, sizeof h->virt, "%s", vendors[i].virt);
            return;
        }
    snprintf(h->virt, sizeof h->virt, "%s", hypervisor_flag ? "vm" : "none");
}

int host_read(struct host_info *h, sl_err *e)
{
    memset(h, 0, sizeof *h);
    if (sysfs_read("/proc/sys/kernel/osrelease", h->kernel, sizeof h->kernel, e) < 0) return -1;
    read_or_empty("/proc/sys/kernel/hostname", h->hostname, sizeof h->hostname);
    read_or_empty("/etc/machine-id", h->machine_id, sizeof h->machine_id);
    bool hv;
    cpu_facts(h, &hv);
    mem_facts(h);
    virt_facts(h, hv);
    return 0;
}

/* --- the host record, described once ----------------------------------- */

#define HOST(field, type, key, col, ...) REC_FIELD(struct host_info, field, type, key, col, __VA_ARGS__)
const struct rec_field host_fields[] = {
    HOST(hostname, REC_TEXT, "hostname", "hostname"),
    HOST(kernel, REC_TEXT, "kernel", "kernel"),
    HOST(cpu_model, REC_TEXT, "cpu_model", "cpu_model"),
    HOST(cpus, REC_INT, "cpus", "cpus"),
    HOST(mem_bytes, REC_U64, "mem_bytes", "mem_bytes", .unit = "bytes"),
    HOST(virt, REC_TEXT, "virtualization", "virt"),
};
#undef HOST
const size_t host_fields_len = sizeof host_fields / sizeof host_fields[0];

void host_class_of(const char *cpu_model, int cpus, long long mem_bytes, char *buf, size_t n)
{
    snprintf(buf, n, "host:%dcpu-%lldGiB-%s", cpus, (mem_bytes + (1LL << 29)) >> 30, cpu_model);
}
