/* results_screen — state shared by the Results screen's files:
 * screen_results.c (the run list, one run, two batches compared) and
 * results_compare.c (groups of runs compared: configurations, searches,
 * kernels). Not a public API. */
#ifndef SLUICE_UI_RESULTS_SCREEN_H
#define SLUICE_UI_RESULTS_SCREEN_H

#include "search/evidence.h"
#include "store_run.h"
#include "detail.h"
#include "textview.h"

enum rmode { RM_LIST, RM_FILTER, RM_VIEW, RM_GROUPS };
enum group_kind { GK_CONFIG, GK_SEARCH, GK_KERNEL, GK_COUNT };

struct rgroup {
    char key[128];                   /* config hash, search uuid, kernel release */
    char text[300];                  /* the line the list shows */
};

struct results {
    struct screen base;
    struct run_row *runs;
    int n;
    struct textview list, view, groups;
    enum rmode mode, view_back;      /* view_back: where Esc leaves a view to */
    char filter[64], input[64];
    char view_title[160];
    char marked[37];                 /* uuid of run A, "" none */
    struct detail detail;            /* Enter on a run: its report */
    /* compare by group (results_compare.c) */
    enum group_kind kind;
    char workload[32];
    struct evidence ev;
    struct rgroup *g;
    int ng;
    char gmark[128];                 /* key of group A, "" none */
};

/* screen_results.c */
void results_open_view(struct results *rs, const char *fmt, const char *arg);

/* results_compare.c */
void results_groups_open(struct results *rs);
void results_groups_draw(struct results *rs, struct rect r);
enum handled results_groups_key(struct results *rs, enum action a, int key);
void results_groups_free(struct results *rs);

#endif
