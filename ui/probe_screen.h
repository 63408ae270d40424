/* probe_screen — state shared by the Probe screen's files: screen_probe.c
 * (settings form, starting and cancelling the worker) and probe_view.c
 * (the live view and the results). Not a public API. */
#ifndef SLUICE_UI_PROBE_SCREEN_H
#define SLUICE_UI_PROBE_SCREEN_H

#include <limits.h>
#include <pthread.h>
#include "ui/form.h"
#include "ui/job.h"
#include "probe/probe.h"
#include "ui/screen.h"
#include "ui/textview.h"

#define PROBE_UI_SERIES 600      /* one minute at 100 ms */

enum pfield { PF_WORKLOAD, PF_LOADFILE, PF_DIR, PF_THREADS, PF_BS, PF_SIZE, PF_TIME, PF_RAMP, PF_REPEAT, PF_DIRECT,
              PF_IODEPTH, PF_SYNC_EVERY, PF_SEED, PF_CANARY,
              PF_IDLE,   /* last: key scripts that walk the rows above stay valid */
              PF_COUNT };

enum pmode { PM_FORM, PM_RUN, PM_TEXT };

/* The settings form's fields (PF_COUNT), made from the probe's option rows. */
const struct form_field *probe_form_fields(void);

struct probe_scr {
    struct screen base;
    enum pmode mode;
    struct form form;                  /* the settings ("" = the workload's default) */
    /* the run */
    struct probe_spec spec;            /* resolved, read by the worker */
    char db_path[PATH_MAX];
    struct job job;
    struct probe_progress pg;          /* the probe publishes, the UI polls */
    struct probe_live live;            /* pg.live: the histogram as it grows */
    struct hist live_lat;              /* the UI's copy of it, taken on the timer */
    uint64_t live_seq;                 /* of that copy (0: none yet) */
    int live_rep;
    pthread_mutex_t lock;              /* guards res and nres */
    struct probe_result *res[PROBE_MAX_REPEAT];
    int nres;
    bool ran, cancelled;
    char outcome[1024];                /* how the run ended */
    double mb_s[PROBE_UI_SERIES], dirty_mb[PROBE_UI_SERIES];
    int nseries;
    /* Under a test root, a probe writing into a real directory fills this
     * host's page cache, not the fixture's: the dirty meter then reads this
     * host's /proc/vmstat (the stored series holds the root's) */
    bool meter_host;
    long long last_sample_ms;
    struct textview tv;                /* results below the graph, or a text (fio job) */
    char text_title[96];
};

/* probe_view.c */
void probe_view_draw(struct probe_scr *ps, struct rect r);
void probe_view_sample(struct probe_scr *ps);
/* Copy the live histogram when the probe published a newer one. */
void probe_view_take_live(struct probe_scr *ps);

#endif
