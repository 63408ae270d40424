/* cli_profile_io — profiles in and out: `profile export` (sysctl.d, udev,
 * TuneD), `profile save` and `profile import-tuned`. */
#include "cli_profile.h"
#include "sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_profile_export(struct cli_ctx *ctx, int argc, char **argv)
{
    struct sub_opts o;
    if (cli_profile_opts("export", argc, argv, &o, 1, 1)) return SL_EUSAGE;
    if (!o.format || (strcmp(o.format, "sysctl") && strcmp(o.format, "udev") && strcmp(o.format, "tuned")))
        return cli_usage("profile", "export: give --format sysctl, udev or tuned");
    struct profile p;
    struct plan pl;
    sl_err e;
    if (cli_profile_plan(o.dirs, argv[optind], &p, &pl, &e) < 0) return cli_error(&e);
    struct notes nt = { 0 };
    char *text = !strcmp(o.format, "sysctl") ? profile_export_sysctl(&p, &pl, &nt)
                 : !strcmp(o.format, "udev") ? profile_export_udev(&p, &pl, &nt)
                                             : profile_export_tuned(&p, &pl, &nt);
    fputs(text, stdout);
    fflush(stdout);
    for (int i = 0; i < nt.n; i++) fprintf(stderr, "sluice: note: %s\n", nt.v[i]);
    free(text);
    notes_free(&nt);
    plan_free(&pl);
    profile_free(&p);
    return 0;
}

int cli_profile_save(struct cli_ctx *ctx, int argc, char **argv) { return cli_usage("profile", "save: not yet"); }
int cli_profile_import_tuned(struct cli_ctx *ctx, int argc, char **argv) { return cli_usage("profile", "import-tuned: not yet"); }
