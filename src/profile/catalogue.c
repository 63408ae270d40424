/* catalogue — the profiles on the search path, each loaded and judged
 * against this host: the one listing `sluice profile list` prints and the
 * Profiles screen shows. */
#include "profile/profile.h"
#include "core/sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The FOR THIS HOST column: "invalid" (p did not load), "any" (no match
 * rules), "yes" or "no". */
static const char *fit(const struct profile *p, bool loaded, const struct device *devs, int ndevs,
                       const struct host_info *h)
{
    if (!loaded) return "invalid";
    if (p->nmatch == 0) return "any";
    return profile_host_matches(p, devs, ndevs, h) ? "yes" : "no";
}

int profile_catalogue(const struct profile_dirs *d, struct profile_row **rows, sl_err *e)
{
    char **names, **paths;
    *rows = NULL;
    int n = profile_list(d, &names, &paths, e);
    if (n < 0) return -1;
    struct host_info h;
    struct device *devs = NULL;
    int nd = 0;
    if (host_read(&h, NULL) < 0) memset(&h, 0, sizeof h);
    if (sysfs_is_dir("/sys/block") && (nd = device_list(&devs, NULL)) < 0) nd = 0;
    *rows = xcalloc((size_t)(n ? n : 1), sizeof **rows);
    for (int i = 0; i < n; i++) {
        struct profile_row *r = &(*rows)[i];
        struct profile p;
        sl_err pe;
        r->ok = profile_load(d, names[i], &p, &pe) == 0;
        snprintf(r->name, sizeof r->name, "%s", names[i]);
        snprintf(r->path, sizeof r->path, "%s", paths[i]);
        snprintf(r->fits, sizeof r->fits, "%s", fit(&p, r->ok, devs, nd, &h));
        snprintf(r->summary, sizeof r->summary, "%s", r->ok ? p.summary : pe.msg);
        profile_free(&p);
        free(names[i]);
        free(paths[i]);
    }
    free(names);
    free(paths);
    free(devs);
    return n;
}
