/* cli_man — `man-knobs`, `man-metrics` and `man-commands`: the KNOBS and
 * METRICS sections and the COMMANDS synopsis of sluice(8), generated from
 * the knob catalogue, the metric table and the commands' option tables so
 * the manual can never disagree with them. */
#include "cli/cli.h"
#include "core/knob.h"
#include "core/run_metric.h"

#include <stdio.h>
#include <string.h>

/* roff needs backslashes doubled and a leading dot or quote escaped. */
static void roff(const char *s)
{
    if (*s == '.' || *s == '\'') fputs("\\&", stdout);
    for (; *s; s++) {
        if (*s == '\\') fputs("\\\\", stdout);
        else if (*s == '-') fputs("\\-", stdout);
        else putchar(*s);
    }
}

static const struct { enum knob_scope scope; const char *title; const char *prefix; } scopes[] = {
    { SCOPE_VM, "VM writeback and page cache (/proc/sys/vm)", "vm." },
    { SCOPE_BDFLUSH, "2.4 bdflush vector (/proc/sys/vm/bdflush, times in jiffies)", "vm.bdflush." },
    { SCOPE_BLOCK, "Block queue (/sys/block/DEV/queue)", "block.DEV." },
    { SCOPE_IOSCHED, "I/O scheduler tunables (/sys/block/DEV/queue/iosched)", "block.DEV.iosched." },
    { SCOPE_BDI, "Per-device dirty limits (/sys/class/bdi/MAJ:MIN)", "bdi.DEV." },
};

static int run_man_knobs(struct cli_ctx *ctx, int argc, char **argv)
{
    printf(".SH KNOBS\nGenerated from the knob catalogue (src/core/knob_table.c). Ranges are sluice's safe ranges.\n");
    for (size_t s = 0; s < sizeof scopes / sizeof scopes[0]; s++) {
        printf(".SS ");
        roff(scopes[s].title);
        putchar('\n');
        for (size_t i = 0; i < knob_table_len; i++) {
            const struct knob_def *d = &knob_table[i];
            if (d->scope != scopes[s].scope) continue;
            char range[256];
            knob_range_text(d, range, sizeof range);
            printf(".TP\n.B ");
            roff(scopes[s].prefix);
            roff(d->name);
            printf("\n");
            roff(d->help);
            printf("\n.br\nRange ");
            roff(range);
            if (d->unit[0]) { putchar(' '); roff(d->unit); }
            printf("; default ");
            roff(d->def ? d->def : "set by the hardware");
            if (d->scheds) { printf("; scheduler "); roff(d->scheds); }
            char flags[64];
            knob_flags_text(d, flags, sizeof flags);
            printf("; apply order %d%s.\n", d->order, flags);
        }
    }
    return 0;
}

static int run_man_metrics(struct cli_ctx *ctx, int argc, char **argv)
{
    static const char *const better[] = { [BETTER_NONE] = "a fact, not a goal", [BETTER_HIGHER] = "higher is better",
                                          [BETTER_LOWER] = "lower is better" };
    printf(".SH METRICS\nGenerated from the metric table (src/core/run_metric_table.h): what every probe run "
           "measures, as \\fBhistory\\fP exports it (CSV column and JSON key), \\fBprobe \\-\\-json\\fP "
           "holds it (the path) and the summaries show it (the line and its words). "
           "A metric not measured is empty (CSV) or null (JSON).\n");
    for (int i = 0; i < RM_NR; i++) {
        const struct run_metric *m = &run_metric_table[i];
        printf(".TP\n.B ");
        roff(m->name);
        printf("\n");
        roff(run_metric_group_name(m->group));
        if (m->label[0]) { putchar(' '); roff(m->label); }
        printf(", %s%s; %s; at ", m->unit[0] ? "in " : "a count", m->unit[0] ? m->unit : "", better[m->better]);
        roff(m->json_path);
        printf("%s.\n", m->column ? ", and a column of the runs table" : " in the stored metrics");
    }
    return 0;
}

/* One line per command, its whole usage from the option table, then its
 * summary; the hand-written descriptions follow in the page. */
static int run_man_commands(struct cli_ctx *ctx, int argc, char **argv)
{
    printf(".SS Synopsis\nGenerated from the commands' option tables (src/cli); "
           "\\fBsluice\\fP \\fICOMMAND\\fP \\fB\\-\\-help\\fP prints the same with every option explained.\n");
    for (int i = 0; i < cli_command_count(); i++) {
        const struct cli_command *c = cli_command_at(i);
        if (c->flags & CLI_HIDDEN) continue;
        char syn[1200];
        cli_command_synopsis(c, syn, sizeof syn);
        printf(".TP\n.B sluice ");
        roff(syn);
        printf("\n");
        roff(c->summary);
        printf(".\n");
    }
    return 0;
}

static const struct opt_table man_table = { 0, NULL, { { NULL, 0 } }, NULL, NULL };
CLI_COMMAND_OPTS(cmd_man_knobs, "man-knobs", run_man_knobs, man_table,
            "print the KNOBS section of sluice(8) (used to build the manual)", CLI_HIDDEN | CLI_NO_CRASH_CHECK);
CLI_COMMAND_OPTS(cmd_man_metrics, "man-metrics", run_man_metrics, man_table,
                 "print the METRICS section of sluice(8) (used to build the manual)", CLI_HIDDEN | CLI_NO_CRASH_CHECK);
CLI_COMMAND_OPTS(cmd_man_commands, "man-commands", run_man_commands, man_table,
                 "print the COMMANDS synopsis of sluice(8) (used to build the manual)", CLI_HIDDEN | CLI_NO_CRASH_CHECK);
