/* cli_report — `sluice report ID [--html FILE]`: what is stored about a
 * run, a search or a session, as text or as a self-contained HTML page
 * (src/report renders both; the UI's detail views show the same). */
#include "cli.h"
#include "opt.h"
#include "report/report.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

static int write_html(const struct report *rep, const char *path)
{
    sl_err e;
    /* The user names the page to write, as with a shell redirection; replacing
     * an earlier report there is expected. security: OK */
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w"); /* security: OK */
    if (!f) {
        sl_fail_errno(&e, SL_EFAIL, errno, "report --html %s: cannot create the file", path);
        return cli_error(&e);
    }
    int rc = report_html(rep, f, &e);
    if (f != stdout && fclose(f) != 0 && rc == 0) rc = sl_fail_errno(&e, SL_EFAIL, errno, "closing %s", path);
    if (rc < 0) {
        if (f != stdout) unlink(path);
        sl_prefix(&e, SL_EFAIL, "report --html %s", path);
        return cli_error(&e);
    }
    if (f != stdout) printf("%s: written to %s\n", rep->title, path);
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
