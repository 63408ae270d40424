/* prompt — the one-line input dialog (see prompt.h). */
#include "ui/prompt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void prompt_open(struct prompt *p, int id, const char *title, const char *question, const char *initial,
                 const char *help, const char *const *choices)
{
    memset(p, 0, sizeof *p);
    p->open = true;
    p->id = id;
    snprintf(p->title, sizeof p->title, "%s", title);
    snprintf(p->question, sizeof p->question, "%s", question);
    snprintf(p->input, sizeof p->input, "%s", initial ? initial : "");
    snprintf(p->help, sizeof p->help, "%s", help ? help : "");
    p->choices = choices;
}

void prompt_close(struct prompt *p) { p->open = false; }

void prompt_error(struct prompt *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);
}

void prompt_line_edit(char *buf, size_t n, int key)
{
    size_t len = strlen(buf);
    if (key == KEY_BACKSPACE || key == 127 || key == 8) { if (len) buf[len - 1] = 0; }
    else if (key == UI_CTRL('U')) buf[0] = 0;
    else if (key >= 32 && key < 127 && len + 1 < n) { buf[len] = (char)key; buf[len + 1] = 0; }
}

bool prompt_typed_text(enum action a, int key)
{
    if (key < 32 || key >= 127) return false;
    return a == ACT_NONE || (key >= '0' && key <= '9');
}

/* The choice after (or before) the one typed; the first when none matches. */
static void cycle(struct prompt *p, int dir)
{
    int n = 0, cur = -1;
    while (p->choices[n]) {
        if (strcmp(p->choices[n], p->input) == 0) cur = n;
        n++;
    }
    if (n == 0) return;
    int next = cur < 0 ? 0 : (cur + dir + n) % n;
    snprintf(p->input, sizeof p->input, "%s", p->choices[next]);
}

enum prompt_result prompt_key(struct prompt *p, enum action a, int key)
{
    if (a == ACT_BACK) { p->open = false; return PROMPT_CANCELLED; }
    if (key == '\n' || key == KEY_ENTER) return PROMPT_ENTERED;
    p->error[0] = 0;
    if (p->choices && (key == '\t' || a == ACT_RIGHT || a == ACT_LEFT)) cycle(p, a == ACT_LEFT ? -1 : 1);
    else prompt_line_edit(p->input, sizeof p->input, key);
    return PROMPT_EDITING;
}

void prompt_draw(const struct prompt *p, struct rect r)
{
    int h = r.h < PROMPT_LINES ? r.h : PROMPT_LINES;
    struct rect b = { r.y + r.h - h, r.x, h, r.w };
    draw_box(b, ROLE_DIALOG, p->title);
    struct rect in = { b.y + 1, b.x + 2, b.h - 2, b.w - 4 };
    draw_text(in.y, in.x, in.w, ROLE_DIALOG, p->question);
    /* The end of a long input stays in view. */
    const char *shown = p->input;
    int room = in.w - 3;
    while (room > 0 && draw_cells(shown) > room) shown++;
    int x = draw_fmt(in.y + 1, in.x, in.w, ROLE_DIALOG, "> %s", shown);
    draw_text(in.y + 1, in.x + x, 1, ROLE_SELECTED, " ");
    if (p->error[0]) {
        char lines[2][256];
        int n = draw_wrap(p->error, in.w, lines, in.h - 2 < 2 ? in.h - 2 : 2);
        for (int i = 0; i < n; i++) draw_text(in.y + 2 + i, in.x, in.w, ROLE_ERROR, lines[i]);
    } else {
        draw_text(in.y + 2, in.x, in.w, ROLE_DIALOG, p->help);
        draw_fmt(in.y + 3, in.x, in.w, ROLE_DIM, "Enter accept  Esc cancel  ^U clear%s", p->choices ? "  Tab/Left/Right choose" : "");
    }
}
