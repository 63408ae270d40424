/* profiles_screen — state shared by the Profiles screen's files:
 * screen_profiles.c (list, diff, apply, boot) and profiles_io.c (save,
 * import-tuned and export through prompts). Not a public API. */
#ifndef SLUICE_UI_PROFILES_SCREEN_H
#define SLUICE_UI_PROFILES_SCREEN_H

#include "profile/profile.h"
#include "prompt.h"
#include "screen.h"
#include "textview.h"

enum prmode { PR_LIST, PR_VIEW, PR_CONFIRM };

struct profiles {
    struct screen base;
    struct profile_row *rows;            /* the catalogue */
    int n;
    struct textview list, diff, view;
    enum prmode mode;
    char view_title[160];
    int planned;                       /* row whose plan is below, -1 none */
    struct profile p;
    struct plan pl;
    bool have_plan;
    char plan_err[1024];
    char boot[PROFILE_NAME_MAX];       /* installed for boot, "" none */
    struct prompt prompt;              /* save, import, export questions */
    struct profile imported;           /* a TuneD import waiting for its name */
    struct notes unmapped;
    char import_comment[PATH_MAX + 128];
    bool have_import;
    char export_format[16];
};

/* screen_profiles.c */
void profiles_refresh(struct profiles *pr);
void profiles_open_view(struct profiles *pr, const char *title);
void profiles_plan_selected(struct profiles *pr);

/* profiles_io.c: S, T and E open a prompt; its keys come here while open. */
void profiles_io_start(struct profiles *pr, enum action a);
void profiles_io_key(struct profiles *pr, enum action a, int key);
void profiles_io_done(struct profiles *pr);

#endif
