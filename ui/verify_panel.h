/* verify_panel — "verify live" inside a screen (Profiles, Search): asks
 * for the test's duration and block, runs the same engine as `sluice
 * verify --live` (verify/live.h) on a worker thread through the UI's job
 * mechanism, and draws the plan, each block as it arrives (A and B marked,
 * a bar of its wait or stall) and at the end the verdict per metric. A
 * screen embeds one and routes its keys, draw and tick to it while it is
 * active. */
#ifndef SLUICE_UI_VERIFY_PANEL_H
#define SLUICE_UI_VERIFY_PANEL_H

#include <limits.h>
#include <pthread.h>
#include "ui/job.h"
#include "session/knobset.h"
#include "ui/prompt.h"
#include "ui/screen.h"
#include "ui/textview.h"
#include "verify/live.h"

struct verify_panel {
    struct app *app;
    struct prompt prompt;          /* duration and block, before the test */
    bool shown;                    /* the test's view replaces the screen (until Esc) */
    struct knobset cand;           /* B, owned; the worker reads it while it runs */
    bool have_cand;
    char source[160];              /* "profile latency", stored with the test */
    struct verify_spec spec;
    struct verify_run run;         /* the worker's while it runs, the UI's after */
    struct verify_observer obs;
    char db_path[PATH_MAX];
    struct job job;
    bool started, cancelled, lock_ready;
    pthread_mutex_t lock;          /* guards what the observer publishes: */
    struct verify_plan plan;
    bool have_plan;
    char session[9];
    struct verify_block *blocks;   /* plan.nblocks, the first nshown measured */
    int nshown;
    char note[256];
    struct textview tv;
};

/* Offer a live verification of cand (copied) named by source ("profile
 * latency"): opens the prompt for its duration and block. Errors (a
 * candidate that does not prepare, a test still running) go to the message
 * line. */
void verify_panel_offer(struct verify_panel *vp, struct app *app, const struct knobset *cand, const char *source);
/* The prompt is open or the test's view is shown: the screen hands it its
 * keys. */
bool verify_panel_active(const struct verify_panel *vp);
/* The test's view replaces the screen's content (verify_panel_draw). */
bool verify_panel_shown(const struct verify_panel *vp);
/* Keys while active: the prompt's, x cancels a running test, Esc closes
 * the view of an ended one, the moving keys scroll. H_IGNORED for what the
 * app takes (screen switches, help, quit). */
enum handled verify_panel_key(struct verify_panel *vp, enum action a, int key);
/* The test's view in r (when shown). */
void verify_panel_draw(struct verify_panel *vp, struct rect r);
/* The prompt over r, when open (after the screen drew itself). */
void verify_panel_draw_prompt(struct verify_panel *vp, struct rect r);
/* Every loop turn: reap the finished worker and say how it ended. */
void verify_panel_tick(struct verify_panel *vp);
bool verify_panel_busy(struct verify_panel *vp);
/* Ask a running test to stop: B is put back, the test stored as interrupted. */
void verify_panel_cancel(struct verify_panel *vp);
/* The view / and n/N search while shown (NULL: none). */
struct textview *verify_panel_view(struct verify_panel *vp);
/* After the worker ended (busy() false): free what the panel holds. */
void verify_panel_free(struct verify_panel *vp);

#endif
