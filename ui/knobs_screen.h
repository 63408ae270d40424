/* knobs_screen — state shared by the Knobs screen's two files:
 * screen_knobs.c (the list, editing, filter) and knobs_apply.c (dry-run
 * diff, apply on trial, keep, revert). Not a public API. */
#ifndef SLUICE_UI_KNOBS_SCREEN_H
#define SLUICE_UI_KNOBS_SCREEN_H

#include "knob.h"
#include "screen.h"
#include "textview.h"

struct krow {
    struct knob k;
    char value[KNOB_VALUE_MAX];
    bool present;
    bool changed;                 /* differs from the kernel default */
};

struct pending {
    char name[KNOB_NAME_MAX];
    char value[KNOB_VALUE_MAX];   /* validated, canonical */
};

enum kmode {
    KM_LIST,     /* the knob list */
    KM_EDIT,     /* typing a value for the selected knob */
    KM_FILTER,   /* typing a filter */
    KM_VIEW,     /* a report over the list: diff, apply result, revert result */
};

struct knobs {
    struct screen base;
    struct textview list, view;
    struct krow *rows;
    int nrows;
    struct pending *pend;
    int npend;
    enum kmode mode;
    bool view_is_diff;            /* in KM_VIEW: `a` applies what the view shows */
    char view_title[96];
    char input[KNOB_VALUE_MAX];
    char edit_error[512];
    int edit_row;
    char filter[64];
    long long last_refresh_ms;
};

/* screen_knobs.c */
void knobs_refresh(struct knobs *ks);
void knobs_pending_clear(struct knobs *ks);

/* knobs_apply.c */
void knobs_diff(struct knobs *ks);
void knobs_apply(struct knobs *ks);
void knobs_keep(struct knobs *ks);
void knobs_revert(struct knobs *ks);

#endif
