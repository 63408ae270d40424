/* term — curses set-up and teardown, colours, glyphs, headless mode, dump. */
#include "ui/term.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

static SCREEN *scr;
static FILE *head_in, *head_out;   /* the virtual terminal's ends in headless mode */
static bool is_open, headless;
static int attrs[ROLE_COUNT];
static int saved_stderr = -1, err_read = -1;   /* the capture of fd 2 */
#define ERR_KEEP (64 * 1024)
static char err_text[ERR_KEEP + 1];
static size_t err_len, err_shown;

static const struct glyphs glyphs_utf8 = { true, "─", "│", "┌", "┐", "└", "┘", "→", "…", "•" };
static const struct glyphs glyphs_ascii = { false, "-", "|", "+", "+", "+", "+", "->", "~", "*" };
static const struct glyphs *glyphs = &glyphs_ascii;

static bool env_true(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Colour pair (fg, bg) plus attributes for colour terminals, and what the
 * same meaning looks like without colour. */
static const struct { short fg, bg; int attr, mono; } palette[ROLE_COUNT] = {
    [ROLE_NORMAL] = { -1, -1, 0, 0 },
    [ROLE_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE },
    [ROLE_HEADER] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
    [ROLE_SELECTED] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
    [ROLE_FKEY] = { -1, -1, A_BOLD, A_BOLD },
    [ROLE_FLABEL] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
    [ROLE_CHANGED] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
    [ROLE_PENDING] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD | A_UNDERLINE },
    [ROLE_WARN] = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE | A_BOLD },
    [ROLE_ERROR] = { COLOR_RED, -1, A_BOLD, A_BOLD | A_REVERSE },
    [ROLE_OK] = { COLOR_GREEN, -1, 0, 0 },
    [ROLE_DIM] = { COLOR_BLUE, -1, A_BOLD, A_DIM },
    [ROLE_GRAPH] = { COLOR_GREEN, -1, A_BOLD, 0 },
    [ROLE_DIALOG] = { COLOR_WHITE, COLOR_BLUE, 0, 0 },
};

static void setup_colours(void)
{
    bool mono = env_true("SLUICE_MONO") || (getenv("NO_COLOR") && *getenv("NO_COLOR")) || !has_colors();
    if (!mono && start_color() == ERR) mono = true;
    bool defaults = !mono && use_default_colors() == OK;
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (mono) { attrs[r] = palette[r].mono; continue; }
        short fg = palette[r].fg, bg = palette[r].bg;
        if (!defaults) {
            if (fg < 0) fg = COLOR_WHITE;
            if (bg < 0) bg = COLOR_BLACK;
        }
        init_pair((short)(r + 1), fg, bg);
        attrs[r] = (int)COLOR_PAIR(r + 1) | palette[r].attr;
    }
}

static int parse_size(const char *s, int *lines, int *cols)
{
    int c, l;
    char x;
    if (!s || sscanf(s, "%d%c%d", &c, &x, &l) != 3 || (x != 'x' && x != 'X') || c < 20 || l < 5 || c > 1000 || l > 1000)
        return -1;
    *cols = c;
    *lines = l;
    return 0;
}

static void capture_stderr(void)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return;
    saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved_stderr < 0 || dup2(p[1], STDERR_FILENO) < 0) {
        close(p[0]);
        close(p[1]);
        if (saved_stderr >= 0) close(saved_stderr);
        saved_stderr = -1;
        return;
    }
    close(p[1]);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    err_read = p[0];
}

/* Move what is in the pipe into err_text, keeping the newest ERR_KEEP bytes. */
static void drain_stderr(void)
{
    char buf[4096];
    ssize_t r;
    while (err_read >= 0 && (r = read(err_read, buf, sizeof buf)) > 0) {
        if (err_len + (size_t)r > ERR_KEEP) {
            size_t drop = err_len + (size_t)r - ERR_KEEP;
            if (drop > err_len) drop = err_len;
            memmove(err_text, err_text + drop, err_len - drop);
            err_len -= drop;
            err_shown = err_shown > drop ? err_shown - drop : 0;
        }
        size_t take = (size_t)r > ERR_KEEP ? ERR_KEEP : (size_t)r;
        memcpy(err_text + err_len, buf + (size_t)r - take, take);
        err_len += take;
    }
    err_text[err_len] = 0;
}

static void restore_stderr(bool print)
{
    if (saved_stderr < 0) return;
    fflush(stderr);
    drain_stderr();
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    close(err_read);
    saved_stderr = err_read = -1;
    if (print && err_len) {
        ssize_t w = write(STDERR_FILENO, err_text, err_len);
        (void)w;   /* nowhere left to report a failing stderr */
    }
    err_len = err_shown = 0;
}

int term_stderr_line(char *buf, size_t n)
{
    drain_stderr();
    char *end = memrchr(err_text + err_shown, '\n', err_len - err_shown);
    if (!end) return 0;
    char *start = end;
    while (start > err_text + err_shown && start[-1] != '\n') start--;
    snprintf(buf, n, "%.*s", (int)(end - start), start);
    err_shown = (size_t)(end - err_text) + 1;
    return 1;
}

int term_open(sl_err *e)
{
    if (is_open) return 0;
    setlocale(LC_CTYPE, "");
    glyphs = (strcmp(nl_langinfo(CODESET), "UTF-8") == 0 && !env_true("SLUICE_ASCII")) ? &glyphs_utf8 : &glyphs_ascii;
    headless = env_true("SLUICE_HEADLESS");
    if (headless) {
        int lines = 24, cols = 80;
        const char *size = getenv("SLUICE_SIZE");
        if (size && parse_size(size, &lines, &cols) < 0)
            return sl_fail(e, SL_EUSAGE, "SLUICE_SIZE=%s: expected COLSxLINES such as 80x24 (at least 20x5)", size);
        const char *type = getenv("SLUICE_TERM");
        int out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC), in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        head_out = out_fd >= 0 ? fdopen(out_fd, "w") : NULL;
        head_in = in_fd >= 0 ? fdopen(in_fd, "r") : NULL;
        if (!head_out && out_fd >= 0) close(out_fd);
        if (!head_in && in_fd >= 0) close(in_fd);
        if (!head_out || !head_in) {
            int err = errno;
            term_close();
            return sl_fail_errno(e, SL_EFAIL, err, "headless terminal: /dev/null");
        }
        scr = newterm(type && *type ? type : "xterm-256color", head_out, head_in);
        if (!scr) {
            term_close();
            return sl_fail(e, SL_EFAIL, "headless terminal: no terminfo entry for \"%s\" (set SLUICE_TERM)",
                           type && *type ? type : "xterm-256color");
        }
        is_open = true;
        resizeterm(lines, cols);
    } else {
        if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
            return sl_fail(e, SL_EUSAGE, "the interactive UI needs a terminal on stdin and stdout: run a command "
                                         "instead (see 'sluice --help'), or set SLUICE_HEADLESS=1");
        const char *type = getenv("TERM");
        scr = newterm(NULL, stdout, stdin);
        if (!scr)
            return sl_fail(e, SL_EFAIL, "cannot drive terminal type \"%s\": set TERM to one your terminfo knows (e.g. xterm)",
                           type ? type : "(unset)");
        is_open = true;
        capture_stderr();
    }
    set_term(scr);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    /* clicks on tabs, rows and buttons (htop's); the wheel scrolls. Shift
     * and drag still selects text in most terminals. */
    if (!headless) {
        mouseinterval(0);
        mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    }
    setup_colours();
    return 0;
}

void term_close(void)
{
    if (is_open) {
        endwin();
        restore_stderr(true);
        delscreen(scr);
        scr = NULL;
        is_open = false;
    }
    if (head_out) fclose(head_out);
    if (head_in) fclose(head_in);
    head_out = head_in = NULL;
}

void term_emergency(void)
{
    if (!is_open) return;
    is_open = false;
    endwin();
    fflush(stdout);
    if (saved_stderr >= 0) dup2(saved_stderr, STDERR_FILENO);   /* sl_die prints next */
}

bool term_headless(void) { return headless; }
const struct glyphs *term_glyphs(void) { return glyphs; }
int term_attr(enum role r) { return r >= 0 && r < ROLE_COUNT ? attrs[r] : 0; }

void term_size(int *lines, int *cols)
{
    *lines = LINES;
    *cols = COLS;
}

int term_resize(int lines, int cols, sl_err *e)
{
    if (!headless) return sl_fail(e, SL_EUSAGE, "<Resize> works only in headless mode (SLUICE_HEADLESS=1)");
    if (lines < 5 || cols < 20) return sl_fail(e, SL_EUSAGE, "<Resize %dx%d>: too small", cols, lines);
    resizeterm(lines, cols);
    return 0;
}

int term_dump(const char *path, sl_err *e)
{
    if (!path || !*path) return sl_fail(e, SL_EUSAGE, "dump-screen: set SLUICE_DUMP=FILE to say where the screen goes");
    /* Appends: a test dumps several screens into one file. */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!f) {
        int err = errno;
        if (fd >= 0) close(fd);
        return sl_fail_errno(e, SL_EFAIL, err, "dump-screen: %s", path);
    }
    fprintf(f, "--- screen %dx%d ---\n", COLS, LINES);
    char *line = xmalloc((size_t)COLS * MB_LEN_MAX + 1);
    for (int y = 0; y < LINES; y++) {
        size_t len = 0, keep = 0;
        mbstate_t ps;
        memset(&ps, 0, sizeof ps);
        for (int x = 0; x < COLS; x++) {
            cchar_t cc;
            wchar_t wch[CCHARW_MAX + 1] = { 0 };
            attr_t a;
            short pair;
            if (mvwin_wch(stdscr, y, x, &cc) == ERR || getcchar(&cc, wch, &a, &pair, NULL) == ERR || !wch[0])
                wch[0] = L' ';
            size_t n = wcrtomb(line + len, wch[0], &ps);
            if (n == (size_t)-1) { line[len] = '?'; n = 1; }
            len += n;
            if (wch[0] != L' ') keep = len;
        }
        line[keep] = 0;
        fprintf(f, "%s\n", line);
    }
    free(line);
    if (ferror(f) | (fclose(f) != 0)) return sl_fail_errno(e, SL_EFAIL, errno, "dump-screen: writing %s", path);
    return 0;
}
