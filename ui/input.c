/* input — keyboard or key script, one event at a time. */
#include "ui/input.h"
#include "ui/action.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SCRIPT_MAX_EVENTS 100000

static struct input_event *script;
static int script_n, script_pos;
static bool scripted;

static const struct { const char *name; int key; } key_names[] = {
    { "Up", KEY_UP }, { "Down", KEY_DOWN }, { "Left", KEY_LEFT }, { "Right", KEY_RIGHT },
    { "PgUp", KEY_PPAGE }, { "PgDn", KEY_NPAGE }, { "Home", KEY_HOME }, { "End", KEY_END },
    { "Enter", '\n' }, { "Esc", UI_KEY_ESC }, { "Tab", '\t' }, { "BTab", KEY_BTAB }, { "Space", ' ' },
    { "Backspace", KEY_BACKSPACE }, { "Del", KEY_DC }, { "lt", '<' },
};

static int parse_name(const char *name, struct input_event *ev, sl_err *e)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = IN_KEY;
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
        if (strcasecmp(name, key_names[i].name) == 0) { ev->key = key_names[i].key; return 0; }
    int n;
    char c, x;
    if ((name[0] == 'F' || name[0] == 'f') && sscanf(name + 1, "%d%c", &n, &c) == 1 && n >= 1 && n <= 24) {
        ev->key = KEY_F(n);
        return 0;
    }
    if ((strncasecmp(name, "C-", 2) == 0) && name[2] && !name[3]) {
        ev->key = UI_CTRL(name[2]);
        return 0;
    }
    if (strcasecmp(name, "Wait") == 0) { ev->kind = IN_WAIT; return 0; }
    if (strncasecmp(name, "Idle ", 5) == 0 && sscanf(name + 5, "%d%c", &ev->ms, &c) == 1 && ev->ms > 0 && ev->ms <= 3600000) {
        ev->kind = IN_IDLE;
        return 0;
    }
    static const struct { const char *name; int button; } mouse[] = { { "Click ", 1 }, { "WheelUp ", 4 }, { "WheelDown ", 5 } };
    for (size_t i = 0; i < sizeof mouse / sizeof mouse[0]; i++) {
        size_t len = strlen(mouse[i].name);
        if (strncasecmp(name, mouse[i].name, len) == 0 && sscanf(name + len, "%d %d%c", &ev->cols, &ev->lines, &c) == 2 &&
            ev->cols >= 0 && ev->lines >= 0) {
            ev->kind = IN_MOUSE;
            ev->key = mouse[i].button;
            return 0;
        }
    }
    if (strncasecmp(name, "Resize ", 7) == 0 && sscanf(name + 7, "%d%c%d", &ev->cols, &x, &ev->lines) == 3 && x == 'x') {
        ev->kind = IN_RESIZE;
        return 0;
    }
    return sl_fail(e, SL_EUSAGE, "unknown key <%s> (see the key names in ui/input.h)", name);
}

int input_parse_line(const char *line, struct input_event *evs, int max, sl_err *e)
{
    size_t len = strcspn(line, "\r\n");
    if (len == 0 || line[0] == '#') return 0;
    if (line[0] == ':') {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len - 1), line + 1);
        enum action a = action_by_name(name);
        if (a == ACT_NONE) return sl_fail(e, SL_EUSAGE, "unknown action :%s (see the help screen)", name);
        if (max < 1) return sl_fail(e, SL_EUSAGE, "key script too long");
        memset(&evs[0], 0, sizeof evs[0]);
        evs[0].kind = IN_ACTION;
        evs[0].action = a;
        return 1;
    }
    int n = 0;
    for (size_t i = 0; i < len; i++) {
        if (n == max) return sl_fail(e, SL_EUSAGE, "key script too long");
        const char *end = line[i] == '<' ? memchr(line + i, '>', len - i) : NULL;
        if (end && end > line + i + 1) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(end - line - i - 1), line + i + 1);
            if (parse_name(name, &evs[n], e) < 0) return -1;
            n++;
            i = (size_t)(end - line);
            continue;
        }
        memset(&evs[n], 0, sizeof evs[n]);
        evs[n].kind = IN_KEY;
        evs[n].key = (unsigned char)line[i];
        n++;
    }
    return n;
}

int input_open(const char *path, sl_err *e)
{
    scripted = path && *path;
    if (!scripted) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return sl_fail_errno(e, SL_EUSAGE, errno, "key script %s", path);
    char line[1024];
    int lineno = 0;
    script = xmalloc(sizeof *script * 1024);
    int cap = 1024;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        struct input_event evs[256];
        sl_err le;
        int n = input_parse_line(line, evs, 256, &le);
        if (n < 0) {
            fclose(f);
            input_close();
            return sl_fail(e, SL_EUSAGE, "key script %s:%d: %s", path, lineno, le.msg);
        }
        if (script_n + n > SCRIPT_MAX_EVENTS) {
            fclose(f);
            input_close();
            return sl_fail(e, SL_EUSAGE, "key script %s: more than %d keys", path, SCRIPT_MAX_EVENTS);
        }
        if (script_n + n > cap) {
            while (script_n + n > cap) cap *= 2;
            script = xrealloc(script, sizeof *script * (size_t)cap);
        }
        memcpy(script + script_n, evs, sizeof *evs * (size_t)n);
        script_n += n;
    }
    fclose(f);
    return 0;
}

void input_close(void)
{
    free(script);
    script = NULL;
    script_n = script_pos = 0;
}

bool input_scripted(void) { return scripted; }

void input_next(int timeout_ms, struct input_event *ev)
{
    memset(ev, 0, sizeof *ev);
    if (scripted) {
        if (script_pos < script_n) *ev = script[script_pos++];
        else ev->kind = IN_END;
        return;
    }
    timeout(timeout_ms);
    int k = getch();
    if (k == ERR) { ev->kind = IN_NONE; return; }
    if (k == KEY_MOUSE) {
        MEVENT me;
        ev->kind = IN_NONE;
        if (getmouse(&me) != OK) return;
        ev->key = me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED) ? 1 : me.bstate & BUTTON4_PRESSED ? 4
                  : me.bstate & BUTTON5_PRESSED ? 5 : 0;
        if (!ev->key) return;
        ev->kind = IN_MOUSE;
        ev->lines = me.y;
        ev->cols = me.x;
        return;
    }
    if (k == KEY_ENTER || k == '\r') k = '\n';
    if (k == 127 || k == 8) k = KEY_BACKSPACE;
    ev->kind = IN_KEY;
    ev->key = k;
}
