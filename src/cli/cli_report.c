/* cli_report — `sluice report ID [--html FILE]`: what is stored about a
 * run, a search or a session, as text or as a self-contained HTML page
 * (src/report renders both; the UI's detail views show the same). */
#include "cli/cli.h"
#include "core/opt.h"
#include "report/report.h"
#include "core/sysfs.h"

#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The terminal's width, or 100 columns when stdout is not one. */
static int out_width(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    int n = c ? atoi(c) : 0;
    return n >= 20 && n <= 1000 ? n : 100;
}

/* Braille and box characters only where the locale says UTF-8. */
static bool out_utf8(void)
{
    setlocale(LC_CTYPE, "");
    return strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

/* The page into memory first: nothing is opened at PATH until it is whole.
 * NULL with e when it cannot be rendered; the caller frees the text. */
static char *render_html(const struct report *rep, size_t *len, sl_err *e)
{
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    if (!m) {
        sl_fail_errno(e, SL_EFAIL, errno, "rendering the HTML report");
        return NULL;
    }
    int rc = report_html(rep, m, e);
    if (fclose(m) != 0 && rc == 0) rc = sl_fail_errno(e, SL_EFAIL, errno, "rendering the HTML report");
    if (rc == 0) return buf;
    free(buf);
    return NULL;
}

/* Something that is not a regular file (a device, a FIFO) takes the page
 * as a shell redirection would give it, and is never removed. */
static int write_in_place(const char *path, const char *text, size_t len, sl_err *e)
{
    FILE *f = fopen(path, "w"); /* security: OK (the user's own target, not a file sluice replaces) */
    if (!f) return sl_fail_errno(e, SL_EFAIL, errno, "cannot open it");
    bool ok = fwrite(text, 1, len, f) == len;
    int err = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    return ok ? 0 : sl_fail_errno(e, SL_EFAIL, err, "writing the HTML report in place (not a regular file, so not "
                                  "replaced, nor removed)");
}

/* Whether a file can be created beside path: 0, or -1 with e saying why
 * in the user's terms (the temporary's name would mean nothing to them). */
static int dir_writable(const char *path, sl_err *e)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else *(slash == dir ? slash + 1 : slash) = 0;
    if (access(dir, W_OK) != 0) return sl_fail_errno(e, SL_EFAIL, errno, "cannot create the file");
    return 0;
}

/* The page goes where the user names it, but never at the cost of what is
 * there: a regular file (or none; through a symlink, its target) is
 * replaced whole by a temporary written beside it and renamed, so a write
 * that fails (disk full, an unwritable directory) leaves the earlier file;
 * anything else is written in place (write_in_place). */
static int write_html(const struct report *rep, const char *path)
{
    sl_err e;
    size_t len = 0;
    char *text = render_html(rep, &len, &e);
    int rc = text ? 0 : -1;
    if (rc == 0 && strcmp(path, "-") == 0) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
            rc = sl_fail_errno(&e, SL_EFAIL, errno, "writing the HTML report to standard output");
    } else if (rc == 0) {
        char real[PATH_MAX];
        const char *target = realpath(path, real) ? real : path;
        struct stat st;
        bool exists = stat(target, &st) == 0;
        if (exists && !S_ISREG(st.st_mode)) rc = write_in_place(target, text, len, &e);
        else if ((rc = dir_writable(target, &e)) == 0 &&
                 (rc = sysfs_write_local_atomic(target, text, len, exists ? st.st_mode & 07777 : 0644, &e)) < 0)
            sl_suffix(&e, exists ? "The file there is as it was" : "Nothing was written");
    }
    free(text);
    if (rc < 0) {
        sl_prefix(&e, SL_EFAIL, "report --html %s", path);
        return cli_error(&e);
    }
    if (strcmp(path, "-") != 0) printf("%s: written to %s\n", rep->title, path);
    return 0;
}

struct report_opts {
    const char *html;
};

static const struct opt report_rows[] = {
    { .name = "html", .type = OPT_TEXT, .arg = "FILE",
      .help = "write a self-contained HTML page with SVG charts to FILE (- for stdout)",
      OPT_PTR(struct report_opts, html), .complete = COMPLETE_FILE },
    { NULL },
};
static const struct opt_table report_table = { sizeof(struct report_opts), NULL, { { report_rows, 0 } },
                                               "RUN|RUN..RUN|SEARCH|SEARCH#N|SESSION", NULL };

static int run_report(struct cli_ctx *ctx, int argc, char **argv)
{
    const struct report_opts *o = ctx->opts;
    if (argc != 2) return cli_usage("report", "give one RUN, RUN..RUN (two compared), SEARCH, SEARCH#N (a trial) or SESSION (its UUID or the start of it)");
    sl_err e;
    if (cli_store_missing(ctx))
        return sl_fail(&e, SL_EUSAGE, "no run, search or session \"%s\": there is no database at %s (nothing is stored "
                       "yet)", argv[1], ctx->db_path), cli_error(&e);
    store *st = cli_store(ctx, &e);
    if (!st) return cli_error(&e);
    struct report rep;
    if (report_build(st, argv[1], &rep, &e) < 0) return cli_error(&e);
    int rc = 0;
    if (o->html) rc = write_html(&rep, o->html);
    else if (ctx->json) rc = cli_print_json(report_doc_json(&rep));
    else report_write_text(&rep, out_width(), out_utf8(), stdout);
    report_free(&rep);
    return rc;
}

CLI_COMMAND_OPTS(cmd_report, "report", run_report, report_table,
                 "what is stored about a run, search, trial or session: text, or a self-contained HTML page with charts", 0);
