/* scratch — removing the scratch tree a probe created. */
#include "probe_internal.h"

#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type == FTW_DP) rmdir(path);
    else unlink(path);   /* files, and symlinks themselves (FTW_PHYS never follows them) */
    return 0;
}

void probe_scratch_remove(const char *dir)
{
    /* Only ever called on a directory we created with mkdtemp (0700). */
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
