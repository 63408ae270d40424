/* Unit tests of the UI's curses-free parts: charts, key scripts, the action
 * table, text wrapping, the worker framework, the settings form. */
#include "harness.h"
#include "ui/action.h"
#include "report/chart.h"
#include "ui/draw.h"
#include "ui/form.h"
#include "ui/input.h"
#include "ui/job.h"
#include "ui/probe_screen.h"
#include "ui/prompt.h"
#include "ui/textview.h"
#include "ui/search_screen.h"

#include <stdlib.h>
#include <time.h>

TEST(chart_bar_eighths)
{
    char buf[256];
    chart_bar(0.5, 4, false, buf, sizeof buf);
    CHECK_STR(buf, "##..");
    chart_bar(1.0 / 16, 2, true, buf, sizeof buf);     /* one eighth of 2 cells */
    CHECK_STR(buf, "▏ ");
    chart_bar(2.0, 3, true, buf, sizeof buf);          /* clamped */
    CHECK_STR(buf, "███");
    chart_bar(-1, 3, false, buf, sizeof buf);
    CHECK_STR(buf, "...");
    chart_bar(0.0 / 0.0, 2, false, buf, sizeof buf);   /* NaN draws empty */
    CHECK_STR(buf, "..");
}

TEST(chart_spark_levels)
{
    double v[] = { 0, 50, 100, 25 };
    char buf[256];
    chart_spark(v, 4, 0, 100, 10, true, buf, sizeof buf);
    CHECK_STR(buf, "▁▅█▃");
    chart_spark(v, 4, 0, 100, 2, false, buf, sizeof buf);  /* only the last two fit */
    CHECK_STR(buf, "@-");
    chart_spark(v, 4, 0, 0, 4, false, buf, sizeof buf);    /* empty range: all lowest */
    CHECK_STR(buf, "____");
}

TEST(chart_lines_braille)
{
    double up[] = { 0, 1, 2, 3 };
    char rows[2][64];
    /* 2 cells x 1 row = 4 x 4 dots: a rising diagonal from bottom left. */
    chart_lines(up, 4, 0, 3, 2, 1, true, &rows[0][0], sizeof rows[0]);
    /* Each point is joined to the previous one: cell 0 holds the dots of
     * y=0 (x0) and y=0..1 (x1): 0x40|0x80|0x20 = U+28E0. */
    CHECK_STR(rows[0], "⣠⠞");
    chart_lines(up, 4, 0, 3, 4, 2, false, &rows[0][0], sizeof rows[0]);
    CHECK_STR(rows[0], "  **");
    CHECK_STR(rows[1], "*** ");
}

TEST(chart_overlay_marks_each_series)
{
    /* Two series over 4 columns and 3 rows: A rises 0..2, B stays at 2;
     * they meet in the last column (a shared cell), and A's rise is
     * joined row to row. */
    double a[] = { 0, 1, 2, 2 }, b[] = { 2, 2, 2, 2 };
    const double *v[] = { a, b };
    char rows[3][64];
    chart_overlay(v, 2, 0, 2, 4, 3, false, &rows[0][0], sizeof rows[0]);
    CHECK_STR(rows[0], "oo##");
    CHECK_STR(rows[1], " ** ");
    CHECK_STR(rows[2], "**  ");
    chart_overlay(v, 2, 0, 2, 4, 3, true, &rows[0][0], sizeof rows[0]);
    CHECK_STR(rows[0], "○○◉◉");
    CHECK_STR(chart_overlay_mark(3, false), "x");
    CHECK_STR(chart_overlay_mark(7, true), "◉");   /* out of range: the shared mark */
}

TEST(chart_overlay_bar_marks_its_set)
{
    char out[64];
    chart_overlay_bar(0.5, 1, 6, false, out, sizeof out);
    CHECK_STR(out, "ooo   ");
    chart_overlay_bar(0.01, 0, 4, true, out, sizeof out);   /* a few samples: still one mark */
    CHECK_STR(out, "●   ");
    chart_overlay_bar(0, 0, 3, false, out, sizeof out);
    CHECK_STR(out, "   ");
}

TEST(chart_scatter_points)
{
    double x[] = { 0, 1, 0.5 }, y[] = { 0, 1, 1 };
    char rows[2][64];
    chart_scatter(x, y, 3, 0, 1, 0, 1, 3, 2, false, &rows[0][0], sizeof rows[0]);
    CHECK_STR(rows[0], " **");   /* (0.5,1) rounds to column 1, (1,1) to column 2 */
    CHECK_STR(rows[1], "*  ");
    chart_scatter(x, y, 1, 0, 1, 0, 1, 1, 1, true, &rows[0][0], sizeof rows[0]);
    CHECK_STR(rows[0], "⡀");      /* bottom-left dot 7 */
}

TEST(chart_nice_max_steps)
{
    CHECK_NEAR(chart_nice_max(4.8e6), 5e6, 1);
    CHECK_NEAR(chart_nice_max(5.1e6), 1e7, 1);
    CHECK_NEAR(chart_nice_max(0), 1, 0);
    CHECK_NEAR(chart_nice_max(120), 200, 0);
}

TEST(draw_wrap_and_clip)
{
    char lines[4][256], buf[64];
    int n = draw_wrap("one two three four", 9, lines, 4);
    CHECK_INT(n, 3);
    CHECK_STR(lines[0], "one two");
    CHECK_STR(lines[1], "three");
    CHECK_STR(lines[2], "four");
    n = draw_wrap("abcdefghijkl", 5, lines, 4);   /* a word longer than the width is cut */
    CHECK_INT(n, 3);
    CHECK_STR(lines[2], "kl");
    CHECK_INT(draw_cells("█▏x"), 3);
    draw_clip("abcdef", 4, buf, sizeof buf);
    CHECK_STR(buf, "abc~");      /* ASCII glyphs while no terminal is open */
    draw_clip("abc", 4, buf, sizeof buf);
    CHECK_STR(buf, "abc");
}

/* A text of any length wraps to its last word, line by line; a line
 * never ends inside a UTF-8 character when the buffer is the limit. */
TEST(draw_wrap_next_takes_every_word)
{
    char text[2048] = "", line[64];
    for (int i = 0; i < 100; i++) strcat(text, "word ");
    strcat(text, "conclusion");
    const char *p = text;
    int n = 0;
    char last[64] = "";
    while (draw_wrap_next(&p, 20, line, sizeof line)) {
        CHECK(draw_cells(line) <= 20);
        snprintf(last, sizeof last, "%s", line);
        n++;
    }
    CHECK_INT(n, 26);   /* 4 words a line, the 101st alone on the last */
    CHECK_STR(last, "conclusion");
    p = "ééééé";        /* 2 bytes each: 5 bytes of room take 2 of them */
    CHECK(draw_wrap_next(&p, 10, line, 6));
    CHECK_STR(line, "éé");
    CHECK(draw_wrap_next(&p, 10, line, 6));
    CHECK_STR(line, "éé");
    CHECK(draw_wrap_next(&p, 10, line, 6));
    CHECK_STR(line, "é");
    CHECK(!draw_wrap_next(&p, 10, line, 6));
}

TEST(input_script_lines)
{
    struct input_event ev[16];
    sl_err e;
    CHECK_INT(input_parse_line("q\n", ev, 16, &e), 1);
    CHECK_INT(ev[0].kind, IN_KEY);
    CHECK_INT(ev[0].key, 'q');
    CHECK_INT(input_parse_line("4<Enter>0<lt>", ev, 16, &e), 4);
    CHECK_INT(ev[1].key, '\n');
    CHECK_INT(ev[3].key, '<');
    CHECK_INT(input_parse_line("<F10><C-u><PgDn>", ev, 16, &e), 3);
    CHECK_INT(ev[0].key, KEY_F(10));
    CHECK_INT(ev[1].key, 21);
    CHECK_INT(ev[2].key, KEY_NPAGE);
    CHECK_INT(input_parse_line(":dump-screen", ev, 16, &e), 1);
    CHECK_INT(ev[0].kind, IN_ACTION);
    CHECK_INT(ev[0].action, ACT_DUMP_SCREEN);
    CHECK_INT(input_parse_line("<Resize 100x30>", ev, 16, &e), 1);
    CHECK_INT(ev[0].kind, IN_RESIZE);
    CHECK_INT(ev[0].cols, 100);
    CHECK_INT(ev[0].lines, 30);
    CHECK_INT(input_parse_line("<Wait>", ev, 16, &e), 1);
    CHECK_INT(ev[0].kind, IN_WAIT);
    CHECK_INT(input_parse_line("# comment", ev, 16, &e), 0);
    CHECK_INT(input_parse_line("", ev, 16, &e), 0);
    CHECK_INT(input_parse_line("<Bogus>", ev, 16, &e), -1);
    CHECK_CONTAINS(e.msg, "unknown key <Bogus>");
    CHECK_INT(input_parse_line(":no-such-action", ev, 16, &e), -1);
    CHECK_CONTAINS(e.msg, "unknown action :no-such-action");
    CHECK_INT(input_parse_line("abcdef", ev, 3, &e), -1);
}

TEST(action_table_bindings)
{
    CHECK_INT(action_for_key(KEY_F(1)), ACT_HELP);
    CHECK_INT(action_for_key('?'), ACT_HELP);
    CHECK_INT(action_for_key(KEY_ENTER), ACT_EDIT);
    CHECK_INT(action_for_key('\r'), ACT_EDIT);
    CHECK_INT(action_for_key('Z'), ACT_NONE);
    CHECK_INT(action_by_name("revert"), ACT_REVERT);
    CHECK_STR(action_info(ACT_KNOBS)->group, "Screens");
    CHECK_STR(action_info(ACT_APPLY)->group, "Knobs");
    char buf[32];
    action_keys_text(ACT_QUIT, buf, sizeof buf);
    CHECK_STR(buf, "F10 q");
    action_keys_text(ACT_REFRESH, buf, sizeof buf);
    CHECK_STR(buf, "^L");
    /* Every key is bound once: one table, no shadowed bindings. */
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
        const struct action_info *ai = action_info((enum action)a);
        CHECK(ai != NULL);
        if (ai->key) CHECK_INT(action_for_key(ai->key), a);
        if (ai->key2) CHECK_INT(action_for_key(ai->key2), a);
    }
}

static int count_until_cancelled(struct job *j, void *arg, sl_err *e)
{
    long long n = 0;
    while (!job_cancelled(j)) {
        job_set_progress(j, ++n, 0);
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    return sl_fail(e, SL_EFAIL, "cancelled after %lld steps", n);
}

static int ten_steps(struct job *j, void *arg, sl_err *e)
{
    for (int i = 1; i <= 10; i++) job_set_progress(j, i, 10);
    atomic_store(&j->value[0], 42);
    return 0;
}

/* The live quick tune from the Overview said "evaluation 2 of 19, 44s
 * elapsed, about 13m26s left" under a budget of at most 10 minutes: the
 * first evaluation's pace (the calibration's minute in it) times the runs
 * left. A worker that knows when it ends (a search: its budget) says so,
 * and the line counts down from that. */
TEST(job_progress_counts_down_from_the_workers_end)
{
    struct job j = { 0 };
    atomic_store(&j.state, JOB_RUNNING);
    j.started_ms = 1000;
    job_set_progress(&j, 1, 19);
    char line[128];
    job_progress_text(&j, "evaluation", 45000, 8.5, line, sizeof line);
    CHECK_STR(line, "evaluation 2 of 19, 44s elapsed, about 13m12s left");   /* the pace of the one done */
    job_set_ends_after(&j, 5 * 60 * 1000);
    job_progress_text(&j, "evaluation", 45000, 8.5, line, sizeof line);
    CHECK_STR(line, "evaluation 2 of 19, 44s elapsed, about 4m16s left");
    job_progress_text(&j, "evaluation", 400000, 8.5, line, sizeof line);   /* past it: nothing left, not less */
    CHECK_STR(line, "evaluation 2 of 19, 6m39s elapsed, about 0.0s left");
}

TEST(job_progress_and_cancel)
{
    struct job j = { 0 };
    sl_err e;
    CHECK_INT(job_start(&j, ten_steps, NULL, &e), 0);
    while (!job_reap(&j)) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    CHECK_INT(j.rc, 0);
    CHECK_NEAR(job_fraction(&j), 1.0, 0);
    CHECK_INT(atomic_load(&j.value[0]), 42);
    CHECK(!job_running(&j));

    CHECK_INT(job_start(&j, count_until_cancelled, NULL, &e), 0);
    CHECK_INT(job_start(&j, ten_steps, NULL, &e), -1);   /* one at a time */
    CHECK_CONTAINS(e.msg, "still running");
    while (atomic_load(&j.done) < 3) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    CHECK_NEAR(job_fraction(&j), -1, 0);                  /* total unknown */
    job_stop(&j);
    CHECK(!job_running(&j));
    CHECK_INT(j.rc, -1);
    CHECK_CONTAINS(j.err.msg, "cancelled after");
}

static const char *const test_modes[] = { "", "fast", "slow", NULL };
static bool test_extra_shown(const struct form *fm) { return strcmp(fm->value[1], "slow") == 0; }
static const struct form_field test_fields[] = {
    [0] = { "Name", "--name", "a name", FORM_TEXT },
    [1] = { "Mode", "--mode", "a mode", FORM_CHOICE, test_modes },
    [2] = { "Extra", "--extra", "only when slow", FORM_TEXT, .shown = test_extra_shown },
    [3] = { "Count", "--count", "1 to 9", FORM_TEXT },
};

TEST(form_cursor_choices_editing)
{
    struct form fm;
    form_init(&fm, test_fields, 4);
    CHECK(form_key(&fm, ACT_EDIT, '\n') == H_HANDLED && fm.editing);
    form_key(&fm, ACT_NONE, 'a');
    form_key(&fm, ACT_NONE, 'b');
    form_key(&fm, ACT_NONE, KEY_BACKSPACE);
    form_key(&fm, ACT_NONE, '\n');
    CHECK(!fm.editing);
    CHECK_STR(fm.value[0], "a");
    /* Esc while editing keeps the old value */
    form_key(&fm, ACT_EDIT, '\n');
    form_key(&fm, ACT_NONE, 'z');
    form_key(&fm, ACT_BACK, 27);
    CHECK_STR(fm.value[0], "a");
    CHECK(form_key(&fm, ACT_BACK, 27) == H_IGNORED);   /* the screen's */
    /* the hidden field is skipped until Mode is slow */
    form_key(&fm, ACT_DOWN, 0);
    form_key(&fm, ACT_DOWN, 0);
    CHECK(fm.sel == 3);
    form_key(&fm, ACT_UP, 0);
    CHECK(fm.sel == 1);
    form_key(&fm, ACT_LEFT, 0);                        /* "" -> slow (wraps) */
    CHECK_STR(fm.value[1], "slow");
    CHECK(form_shown(&fm, 2));
    form_key(&fm, ACT_DOWN, 0);
    CHECK(fm.sel == 2);
    form_key(&fm, ACT_FIRST, 0);
    form_key(&fm, ACT_DOWN, 0);
    /* u: a choice with "" among its values clears, then there is nothing to clear */
    CHECK(form_can_clear(&fm));
    form_key(&fm, ACT_UNDO, 'u');
    CHECK_STR(fm.value[1], "");
    CHECK(!form_can_clear(&fm));
    form_key(&fm, ACT_LAST, 0);
    CHECK(fm.sel == 3);
}

/* A digit typed over a text field opens its editor with it (it is no
 * screen switch there); over a choice it is refused and changes nothing. */
TEST(form_typed_digit_goes_into_the_field)
{
    struct form fm;
    form_init(&fm, test_fields, 4);
    snprintf(fm.value[0], sizeof fm.value[0], "old");
    CHECK(form_key(&fm, action_for_key('2'), '2') == H_HANDLED && fm.editing);
    form_key(&fm, ACT_NONE, '0');
    form_key(&fm, action_for_key('s'), 's');
    CHECK_STR(fm.value[0], "old");                    /* nothing taken before Enter */
    form_key(&fm, ACT_EDIT, '\n');
    CHECK_STR(fm.value[0], "20s");
    form_key(&fm, ACT_DOWN, 0);                        /* Mode, a choice */
    CHECK(form_key(&fm, action_for_key('3'), '3') == H_HANDLED && !fm.editing);
    CHECK_STR(fm.value[1], "");
    CHECK(fm.error[0] != 0);
    CHECK(!prompt_typed_text(ACT_START, 's'));         /* a bound letter stays the screen's */
    CHECK(prompt_typed_text(ACT_NONE, 'v'));
}

/* #31: a click on a row moves the cursor there, a second one opens it;
 * a click on a form's field selects it, a second one is Enter. */
TEST(click_moves_the_cursor_then_opens)
{
    struct textview tv = { 0 };
    tv.use_cursor = true;
    for (int i = 0; i < 5; i++) { tv_line(&tv, i != 2, i); tv_add(&tv, ROLE_NORMAL, "row %d", i); }
    tv.cursor = 0;
    CHECK_INT(tv_click(&tv, 3), 0);
    CHECK_INT(tv.cursor, 3);
    CHECK_INT(tv_click(&tv, 3), 1);
    CHECK_INT(tv_click(&tv, 2), -1);   /* a header line */
    CHECK_INT(tv_click(&tv, 9), -1);
    tv_free(&tv);
    struct form fm;
    form_init(&fm, test_fields, 4);
    CHECK(!form_click(&fm, 1) && fm.sel == 1);
    CHECK(form_click(&fm, 1));
}

/* The Probe and Search forms are their commands' option rows by another
 * face: each field's label, option, help and default come from its row
 * (the forms restated them: "default /var/tmp" in two help texts, an empty
 * Seed shown as 0 while a search seeds with 1). */
static void check_form_against(const struct form_field *fields, int from, int n, const struct opt_table *t)
{
    for (int f = from; f < n; f++) {
        const struct form_field *fd = &fields[f];
        const struct opt *o = opt_find(t, fd->option, NULL);
        CHECK(o != NULL);
        if (!o) continue;
        CHECK(fd->row == o);
        CHECK_STR(fd->label, o->label);
        CHECK(strncmp(fd->help + 1, o->help + 1, strlen(o->help) - 1) == 0);   /* as a sentence */
        if (o->def) {
            char dflt[300];
            snprintf(dflt, sizeof dflt, "(default %s)", o->def);
            CHECK_CONTAINS(fd->help, dflt);
        }
        CHECK_STR(form_field_default(fd), o->def ? o->def : "");
        CHECK_INT(fd->kind == FORM_CHOICE, o->type == OPT_FLAG || o->choice_at != NULL || fd->choices != NULL ||
                                               fd->choice_at != NULL);
    }
}

TEST(form_fields_are_the_option_rows)
{
    check_form_against(probe_form_fields(), PF_WORKLOAD + 1, PF_COUNT, &probe_spec_table);
    check_form_against(search_form_fields(), 0, SS_COUNT, &search_flow_table);
    CHECK_STR(form_field_default(&search_form_fields()[SS_SEED]), "1");
    CHECK_STR(form_field_default(&search_form_fields()[SS_DIR]), PROBE_DIR_DEFAULT);
    struct search_flow_opts o;
    search_flow_defaults(&o);
    CHECK_INT((int)o.spec.seed, atoi(form_field_default(&search_form_fields()[SS_SEED])));
}
