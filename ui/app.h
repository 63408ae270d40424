/* app — the run loop (htop's ScreenManager): one loop polls input with a
 * 100 ms timeout, ticks the screens, redraws on a timer, routes keys to the
 * current screen and then to the global actions, and owns the title bar,
 * the message/hint line and the F-key bar. */
#ifndef SLUICE_UI_APP_H
#define SLUICE_UI_APP_H

#include "core/err.h"
#include "db/store.h"
#include "ui/screen.h"
#include "ui/term.h"

struct app;

/* Run the UI on the database at db_path until the user quits, the key
 * script ends or a signal comes. Returns the exit status (128+signal after
 * SIGINT/SIGTERM/SIGHUP), or -1 with e filled when the terminal or the
 * key script could not be opened. */
int app_run(const char *db_path, sl_err *e);

/* For screens. */
/* One line on the message line until the next key. */
void app_message(struct app *a, enum role r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The results database (opened at start); NULL with e filled if it failed. */
store *app_store(struct app *a, sl_err *e);
const char *app_db_path(const struct app *a);
/* Milliseconds on the UI clock: monotonic time, or under a key script a
 * virtual clock that advances 100 ms per event, so dumps are repeatable. */
long long app_now_ms(const struct app *a);
/* The UI's answer to K (keep) or R (revert) of the trial (trial.h), shared
 * by every screen that puts changes on trial: "nothing is on trial" and
 * errors go to the message line, a keep is confirmed there. Returns 0 when
 * done (for a revert, rep says what was put back and the caller shows it),
 * -1 otherwise. id gets the session's short id. */
struct restore_report;
int app_trial_decide(struct app *a, bool keep, struct restore_report *rep, char id[9]);
/* The directory last typed on the Probe or the Search form: the other
 * form, shown with its own Directory empty, starts from it. */
void app_set_probe_dir(struct app *a, const char *dir);
const char *app_probe_dir(const struct app *a);
/* F5 on the Overview hands the Search form the search its next step
 * suggests (directory and budget); the Search screen takes it once when
 * shown (false, dir and budget "": none was handed). */
void app_suggest_search(struct app *a, const char *dir, const char *budget);
bool app_take_suggested_search(struct app *a, char *dir, size_t dir_n, char *budget, size_t budget_n);
/* The values last typed in the form called name ("probe", "search"), from
 * the database; and remembering what the keys changed since. A database
 * error goes to the message line. */
struct form;
void app_form_recall(struct app *a, struct form *fm, const char *name);
void app_form_remember(struct app *a, struct form *fm, const char *name);
/* After a key the Probe or Search form took: its Directory (dir_field),
 * when set, becomes the other form's start, and the values are remembered
 * as name's. */
void app_form_edited(struct app *a, struct form *fm, int dir_field, const char *name);
/* A screen's struct of size bytes, zeroed, its struct screen (the first
 * member) naming its class and the app: how every create() starts. */
void *screen_new(size_t size, const struct screen_class *cls, struct app *app);
/* The screen shown before the current one (NULL: none), e.g. the one help
 * was opened from. */
const struct screen_class *app_previous_screen(const struct app *a);
/* Whether s is the screen shown now. */
bool app_is_shown(const struct app *a, const struct screen *s);
/* Back to the previous screen. */
void app_back(struct app *a);

#endif
