/* search_screen — state shared by the Search screen's files: screen_search.c
 * (settings, the worker running search_flow_run, apply or discard the
 * winner) and search_view.c (live trials, best-so-far, the verdict and the
 * Pareto front). Not a public API. */
#ifndef SLUICE_UI_SEARCH_SCREEN_H
#define SLUICE_UI_SEARCH_SCREEN_H

#include <pthread.h>
#include "search/run.h"
#include "search/verdict.h"
#include "db/store_search.h"
#include "ui/detail.h"
#include "ui/form.h"
#include "ui/job.h"
#include "ui/screen.h"
#include "ui/textview.h"
#include "ui/verify_panel.h"

#define SEARCH_UI_MAX_TRIALS 4000
#define SEARCH_UI_PLAN_LINES 4

enum sfield2 { SS_SPACE, SS_DEVICE, SS_WORKLOAD, SS_OBJECTIVE, SS_STRATEGY, SS_BUDGET, SS_ORACLE, SS_DIR, SS_TIME,
               SS_RAMP, SS_SIZE, SS_SEED, SS_CONFIRM, SS_COUNT };

enum smode { SM_FORM, SM_RUN, SM_RESUME };

/* The settings form's fields (SS_COUNT), made from search's option rows. */
const struct form_field *search_form_fields(void);

struct search_scr {
    struct screen base;
    enum smode mode;
    struct form form;                  /* the settings ("" = the default) */
    bool suggested;                    /* the form holds the Overview's next step, no key pressed
                                          since: Enter starts it */
    bool suggest_held[3];              /* Directory, Budget, Objective: the Overview's value is in it,
                                          not run yet, not typed over (so not remembered) */
    bool quick;                        /* the form holds the Overview's tune: the quick tune's
                                          defaults (search_flow_quick_defaults), as `sluice tune
                                          --quick` runs it, until it starts */
    /* the run: opts belongs to the worker while it runs */
    struct search_flow_opts opts;
    struct search_spec shown;          /* the UI's copy of what runs: the view reads this */
    struct search_row *resumable;      /* interrupted searches (SM_RESUME) */
    int nresumable;
    struct textview resume_tv;
    struct search_observer observer;
    char db_path[PATH_MAX];
    struct search_flow_outcome out;
    struct job job;
    bool ran, cancelled, have_result;
    struct verdict_card *card;         /* the finished search's verdict (NULL: none) */
    pthread_mutex_t lock;              /* guards the fields below */
    char uuid[37];
    struct space space;                /* copied when the search starts */
    bool have_space;
    double run_s;                      /* the plan's time of one evaluation (0: unknown) */
    char plan[SEARCH_UI_PLAN_LINES][1024]; /* the plan made once a run's time is known, as the CLI
                                          prints it (report_plan_lines), and the burst */
    int nplan;
    struct search_trial *trials;
    int ntrials;
    struct objective obj;
    struct textview tv;
    struct detail detail;              /* Enter on a search: its stored report */
    struct verify_panel verify;        /* V: the winner verified live */
};

/* search_view.c */
void search_view_draw(struct search_scr *ss, struct rect r);

#endif
