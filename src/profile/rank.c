/* rank — which shipped profiles suit this host when nothing was measured
 * (recommend's fallback): every profile whose match rules select the host,
 * ranked, each with the reasons it matched. A disk's rotational flag inside
 * a virtual machine describes the virtual disk, not the storage behind it,
 * so a profile chosen only by that flag ranks below one chosen by the
 * host itself. */
#include "profile/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether sel is a single rotational= term: the guest's flag on a VM. */
static bool rotational_only(const char *sel)
{
    return strncmp(sel, "rotational=", 11) == 0 && !strchr(sel, ',');
}

static void append(char *buf, size_t n, const char *fmt, const char *a, const char *b)
{
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, fmt, a, b);
}

/* Score one profile's rules against the host; 0 when none matches. */
static double judge(const struct profile *p, const struct host_info *h, const struct device *devs, int nd,
                    struct profile_fit *f)
{
    double score = 0;
    bool guest_flag = false;
    for (int i = 0; i < p->nmatch; i++) {
        const char *sel = p->match[i];
        if (selector_matches(sel, NULL, h)) {
            score += 3;   /* the host itself (virt=, kernel=) */
            append(f->reasons, sizeof f->reasons, "%s%s", f->reasons[0] ? "; " : "", sel);
            append(f->reasons, sizeof f->reasons, ": this host (virtualization %s, kernel %s)", h->virt, h->kernel);
            continue;
        }
        char disks[256] = "";
        bool all_virtual = true;
        for (int j = 0; j < nd; j++) {
            if (!selector_selects(sel, &devs[j], h)) continue;
            append(disks, sizeof disks, "%s%s", disks[0] ? ", " : "", devs[j].name);
            all_virtual = all_virtual && (strcmp(devs[j].transport, "virtio") == 0 || strcmp(h->virt, "none") != 0);
        }
        if (!disks[0]) continue;
        bool weak = rotational_only(sel) && all_virtual;
        guest_flag = guest_flag || weak;
        score += weak ? 0.5 : 2;
        append(f->reasons, sizeof f->reasons, "%s%s", f->reasons[0] ? "; " : "", sel);
        append(f->reasons, sizeof f->reasons, ": %s%s", disks,
               weak ? " (virtual disks: the guest's flag, not the host's storage)" : "");
    }
    f->guest_flag_only = guest_flag && score < 2;
    return score;
}

static int by_score(const void *a, const void *b)
{
    const struct profile_fit *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? 1 : -1;
    return strcmp(x->name, y->name);
}

int profile_rank(const struct profile_dirs *d, const struct host_info *h, const struct device *devs, int nd,
                 const char *general, struct profile_fit **out, sl_err *e)
{
    char **names, **paths;
    *out = NULL;
    int n = profile_list(d, &names, &paths, e);
    if (n < 0) return -1;
    struct profile_fit *fits = xcalloc((size_t)n + 1, sizeof *fits);
    int k = 0;
    for (int i = 0; i < n; i++) {
        struct profile p;
        if (profile_load(d, paths[i], &p, NULL) == 0) {
            struct profile_fit *f = &fits[k];
            memset(f, 0, sizeof *f);
            f->score = p.nmatch ? judge(&p, h, devs, nd, f) : 0;
            if (f->score == 0 && general && strcmp(p.name, general) == 0) {
                f->score = 0.25;
                snprintf(f->reasons, sizeof f->reasons, "no match rules: general, for this objective");
            }
            if (f->score > 0) {
                snprintf(f->name, sizeof f->name, "%s", p.name);
                snprintf(f->summary, sizeof f->summary, "%s", p.summary);
                k++;
            }
            profile_free(&p);
        }
        free(names[i]);
        free(paths[i]);
    }
    free(names);
    free(paths);
    qsort(fits, (size_t)k, sizeof *fits, by_score);
    *out = fits;
    return k;
}
