/* export — a resolved profile in the platform's own formats: sysctl.d for vm
 * knobs, udev rules keyed on stable disk ids for queue knobs, and a TuneD
 * profile. What a format cannot express becomes a note, never a silent drop. */
#include "profile/profile.h"
#include "profile/quote.h"
#include "core/sysfs.h"
#include "profile/textbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void notes_add(struct notes *nt, const char *fmt, ...)
{
    nt->v = xrealloc(nt->v, sizeof *nt->v * (size_t)(nt->n + 1));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(nt->v[nt->n++], sizeof nt->v[0], fmt, ap);
    va_end(ap);
}

void notes_free(struct notes *nt)
{
    free(nt->v);
    nt->v = NULL;
    nt->n = 0;
}

static void header(struct textbuf *b, const struct profile *p, const char *what)
{
    char path[PATH_MAX * 4], summary[sizeof p->summary * 4];
    quote_comment(p->path, path, sizeof path);
    quote_comment(p->summary, summary, sizeof summary);
    if (p->path[0]) textbuf_printf(b, "# %s from sluice profile \"%s\" (%s).\n", what, p->name, path);
    else textbuf_printf(b, "# %s from sluice profile \"%s\".\n", what, p->name);
    if (p->summary[0]) textbuf_printf(b, "# %s\n", summary);
}

static bool exportable(const struct plan_item *it, const char *format, struct notes *nt)
{
    if (it->action == PA_SKIP) {
        notes_add(nt, "%s: %s here, not in the %s output", it->knob, it->note, format);
        return false;
    }
    if (it->src->cond != PC_SET) {
        notes_add(nt, "%s = %s%s: a conditional value depends on the value at boot; 'sluice apply --boot' applies it, %s cannot",
                  it->knob, it->src->cond == PC_RAISE ? ">" : "<", it->want, format);
        return false;
    }
    return true;
}

char *profile_export_sysctl(const struct profile *p, const struct plan *pl, struct notes *nt)
{
    struct textbuf b = { 0 };
    header(&b, p, "vm knobs");
    textbuf_printf(&b, "# Block queue knobs are in udev rules; see sysctl.d(5) for the order files apply in.\n");
    int lines = 0;
    for (int i = 0; i < pl->n; i++) {
        const struct plan_item *it = &pl->it[i];
        if (it->src->sec == PS_BLOCK) continue;
        if (it->src->sec == PS_BDFLUSH) {
            notes_add(nt, "%s: one field of the 2.4 bdflush vector; sysctl.d sets whole files, 'sluice apply --boot' sets it", it->knob);
            continue;
        }
        if (!exportable(it, "sysctl.d", nt)) continue;
        char want[KNOB_VALUE_MAX];
        sl_err qe;
        if (quote_sysctl_value(it->want, want, sizeof want, &qe) < 0) {
            notes_add(nt, "%s: %s: not exported", it->knob, qe.msg);
            continue;
        }
        textbuf_printf(&b, "%s = %s\n", it->knob, want);
        lines++;
    }
    if (!lines) textbuf_printf(&b, "# (this profile sets no vm knob sysctl.d can express)\n");
    return textbuf_take(&b);
}

/* E:KEY=value from the udev database of the running system (inside the root). */
static bool udev_db_property(const struct device *d, const char *key, char *out, size_t n)
{
    char path[64], *text;
    snprintf(path, sizeof path, "/run/udev/data/b%u:%u", d->major, d->minor);
    if (sysfs_read_text(path, 1 << 16, &text, NULL) < 0) return false;
    char needle[64];
    snprintf(needle, sizeof needle, "E:%s=", key);
    bool found = false;
    for (char *line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n"))
        if (strncmp(line, needle, strlen(needle)) == 0 && line[strlen(needle)]) {
            snprintf(out, n, "%s", line + strlen(needle));
            found = true;
        }
    free(text);
    return found;
}

/* The most stable key udev can match this disk on, and where it came from. */
static void udev_match(const struct device *d, char *buf, size_t n, char *why, size_t wn)
{
    char v[256], q[256], q2[256];
    if (udev_db_property(d, "ID_WWN", v, sizeof v)) {
        quote_udev_match(v, q, sizeof q);
        snprintf(buf, n, "ENV{ID_WWN}==\"%s\"", q);
        snprintf(why, wn, "ID_WWN from the udev database");
    } else if (udev_db_property(d, "ID_SERIAL", v, sizeof v)) {
        quote_udev_match(v, q, sizeof q);
        snprintf(buf, n, "ENV{ID_SERIAL}==\"%s\"", q);
        snprintf(why, wn, "ID_SERIAL from the udev database");
    } else if (d->wwid[0]) {
        quote_udev_match(d->wwid, q, sizeof q);
        snprintf(buf, n, "ATTRS{wwid}==\"%s\"", q);
        snprintf(why, wn, "the device's wwid (no udev database here)");
    } else if (d->serial[0]) {
        quote_udev_match(d->serial, q, sizeof q);
        snprintf(buf, n, "ATTRS{serial}==\"%s\"", q);
        snprintf(why, wn, "the device's serial (no udev database here)");
    } else if (d->model[0]) {
        quote_udev_match(d->vendor, q, sizeof q);
        quote_udev_match(d->model, q2, sizeof q2);
        if (q[0]) snprintf(buf, n, "ATTRS{vendor}==\"%s\", ATTRS{model}==\"%s\"", q, q2);
        else snprintf(buf, n, "ATTRS{model}==\"%s\"", q2);
        snprintf(why, wn, "vendor and model: every disk of this model gets the same values");
    } else {
        quote_udev_match(d->name, q, sizeof q);
        snprintf(buf, n, "KERNEL==\"%s\"", q);
        snprintf(why, wn, "the kernel name: this disk reports no stable id, and names can change between boots");
    }
}

/* The attribute path of a block item relative to the disk's sysfs directory. */
static void udev_attr(const struct plan_item *it, char *buf, size_t n)
{
    const char *key = it->src->key;
    if (strncmp(key, "iosched.", 8) == 0) snprintf(buf, n, "queue/iosched/%s", key + 8);
    else if (strncmp(key, "bdi.", 4) == 0) snprintf(buf, n, "bdi/%s", key + 4);
    else snprintf(buf, n, "queue/%s", key);
}

char *profile_export_udev(const struct profile *p, const struct plan *pl, struct notes *nt)
{
    struct textbuf b = { 0 };
    header(&b, p, "Block queue knobs");
    textbuf_printf(&b, "# One rule per disk, keyed on a stable id; within a rule udev writes the attributes in\n"
                       "# order: scheduler first (switching it resets the rest), then nr_requests, then iosched.\n"
                       "# Numbered after 60-persistent-storage.rules so the ID_* properties exist.\n");
    int rules = 0;
    for (int j = 0; j < pl->ndevs; j++) {
        const struct device *d = &pl->devs[j];
        struct textbuf attrs = { 0 };
        for (int i = 0; i < pl->n; i++) {
            const struct plan_item *it = &pl->it[i];
            if (it->src->sec != PS_BLOCK || strcmp(it->dev, d->name) != 0) continue;
            if (!exportable(it, "udev", nt)) continue;
            char attr[128], want[2 * KNOB_VALUE_MAX];
            sl_err qe;
            if (quote_udev_assign(it->want, want, sizeof want, &qe) < 0) {
                notes_add(nt, "%s: %s: not exported", it->knob, qe.msg);
                continue;
            }
            udev_attr(it, attr, sizeof attr);
            textbuf_printf(&attrs, ", ATTR{%s}=\"%s\"", attr, want);
        }
        if (!attrs.s) continue;
        char match[700], why[160];
        udev_match(d, match, sizeof match, why, sizeof why);
        char transport[sizeof d->transport * 4], model[sizeof d->model * 4], name[sizeof d->name * 4];
        quote_comment(d->transport, transport, sizeof transport);
        quote_comment(d->model, model, sizeof model);
        quote_comment(d->name, name, sizeof name);
        textbuf_printf(&b, "\n# %s (%s%s%s, %s): keyed on %s\n", name, transport, model[0] ? " " : "", model,
                       d->rotational == 1 ? "rotational" : d->rotational == 0 ? "non-rotational" : "rotational unknown", why);
        textbuf_printf(&b, "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", %s%s\n", match, attrs.s);
        free(attrs.s);
        rules++;
    }
    if (!rules) textbuf_printf(&b, "\n# (this profile sets no queue knob on the disks of this machine)\n");
    return textbuf_take(&b);
}

/* TuneD's [disk] plugin knows the elevator and readahead; everything else
 * goes through [sysfs] paths with the same device glob. */
static void tuned_block_section(struct textbuf *b, const struct profile *p, const char *sel, const char *devices,
                                const char *sysfs_devices, int idx, struct notes *nt)
{
    struct textbuf disk = { 0 }, sysfs = { 0 };
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec != PS_BLOCK || strcmp(en->selector, sel) != 0) continue;
        char v[KNOB_VALUE_MAX + 2];
        prof_entry_value_text(en, v, sizeof v);
        if (strcmp(en->key, "scheduler") == 0) {
            /* TuneD tries one elevator; the first alternative is the modern name. */
            char first[64];
            snprintf(first, sizeof first, "%.*s", (int)strcspn(en->value, "|"), en->value);
            if (strchr(en->value, '|'))
                notes_add(nt, "scheduler = %s: TuneD takes one elevator, exported as %s", en->value, first);
            textbuf_printf(&disk, "elevator=%s\n", first);
        } else if (strcmp(en->key, "read_ahead_kb") == 0) {
            textbuf_printf(&disk, "readahead=%s\n", v);
        } else if (en->cond != PC_SET) {
            notes_add(nt, "[block%s%s%s] %s = %s: TuneD's [sysfs] has no conditional values: not exported", sel[0] ? " \"" : "",
                      sel, sel[0] ? "\"" : "", en->key, v);
        } else {
            const char *glob = sysfs_devices[0] ? sysfs_devices : "*";
            char attr[128];
            if (strncmp(en->key, "iosched.", 8) == 0) snprintf(attr, sizeof attr, "queue/iosched/%s", en->key + 8);
            else if (strncmp(en->key, "bdi.", 4) == 0) snprintf(attr, sizeof attr, "bdi/%s", en->key + 4);
            else snprintf(attr, sizeof attr, "queue/%s", en->key);
            /* [sysfs] takes one glob per line: a device list becomes {a,b}-free lines each. */
            char list[512];
            snprintf(list, sizeof list, "%s", glob);
            for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                char dev[256];
                quote_tuned_value(tok, dev, sizeof dev);
                textbuf_printf(&sysfs, "/sys/block/%s/%s=%s\n", dev, attr, v);
            }
        }
    }
    if (disk.s) {
        if (idx) textbuf_printf(b, "\n[disk_sluice%d]\ntype=disk\n", idx);
        else textbuf_printf(b, "\n[disk]\n");
        char quoted[512];
        quote_tuned_value(devices, quoted, sizeof quoted);
        if (devices[0]) textbuf_printf(b, "devices=%s\n", quoted);
        textbuf_printf(b, "%s", disk.s);
    }
    if (sysfs.s) {
        textbuf_printf(b, "\n[sysfs%s%d]\ntype=sysfs\n", idx ? "_sluice" : "_sluice_all", idx);
        textbuf_printf(b, "%s", sysfs.s);
    }
    free(disk.s);
    free(sysfs.s);
}

/* A TuneD devices= list for a selector: a lone name= glob maps directly,
 * anything else is resolved to this machine's disks. */
static void tuned_devices(const char *sel, const struct plan *pl, char *out, size_t n, struct notes *nt)
{
    out[0] = 0;
    if (!sel[0]) return;
    if (strncmp(sel, "name=", 5) == 0 && !strchr(sel, ',') && sel[5] != '!') {
        snprintf(out, n, "%s", sel + 5);
        return;
    }
    for (int j = 0; j < pl->ndevs; j++)
        if (selector_selects(sel, &pl->devs[j], &pl->host)) {
            size_t len = strlen(out);
            snprintf(out + len, n - len, "%s%s", len ? "," : "", pl->devs[j].name);
        }
    notes_add(nt, "[block \"%s\"]: TuneD cannot select disks by %s; exported for this machine's matching disks (%s)", sel,
              sel, out[0] ? out : "none");
}

char *profile_export_tuned(const struct profile *p, const struct plan *pl, struct notes *nt)
{
    struct textbuf b = { 0 };
    header(&b, p, "TuneD profile converted");
    char summary[sizeof p->summary];
    quote_tuned_value(p->summary[0] ? p->summary : p->name, summary, sizeof summary);
    textbuf_printf(&b, "[main]\nsummary=%s\n", summary);
    if (p->nmatch)
        notes_add(nt, "match rules (%s...) are not exported: TuneD chooses profiles with recommend.conf", p->match[0]);
    bool sysctl = false;
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec == PS_BDFLUSH) {
            notes_add(nt, "[bdflush] %s: TuneD has no 2.4 bdflush support: not exported", en->key);
            continue;
        }
        if (en->sec != PS_VM) continue;
        if (!sysctl) textbuf_printf(&b, "\n[sysctl]\n");
        sysctl = true;
        char v[KNOB_VALUE_MAX + 2];
        prof_entry_value_text(en, v, sizeof v);
        textbuf_printf(&b, "vm.%s=%s\n", en->key, v);
    }
    /* A plain [block] covers whole, non-stacked disks (and only those matching
     * the match rules): [sysfs] globs would also hit loop and dm devices. */
    char covered[512] = "";
    for (int j = 0; j < pl->ndevs; j++)
        if (profile_covers(p, &pl->devs[j], &pl->host)) {
            size_t len = strlen(covered);
            snprintf(covered + len, sizeof covered - len, "%s%s", len ? "," : "", pl->devs[j].name);
        }
    tuned_block_section(&b, p, "", p->nmatch ? covered : "", covered, 0, nt);
    int idx = 0;
    for (int i = 0; i < p->n; i++) {
        const struct prof_entry *en = &p->ent[i];
        if (en->sec != PS_BLOCK || !en->selector[0]) continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = p->ent[j].sec == PS_BLOCK && !strcmp(p->ent[j].selector, en->selector);
        if (seen) continue;
        char devices[512];
        tuned_devices(en->selector, pl, devices, sizeof devices, nt);
        if (!devices[0]) continue;
        tuned_block_section(&b, p, en->selector, devices, devices, ++idx, nt);
    }
    return textbuf_take(&b);
}
