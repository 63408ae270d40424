/* first_rep — what a recorded grid (bench/record-real-grid) says about
 * two noise sources a search could remove, each decided with decide.h's
 * paired comparison (Hodges-Lehmann pseudo-median, Wilcoxon signed-rank):
 *
 *  - the first run after a configuration change against the run right
 *    after it, same knobs, same visit: is a first run systematically
 *    different (and so to be dropped)?
 *  - drift between passes over the grid (minutes apart): each point's
 *    visit in one pass against its visit in another. Drift that a
 *    blocked design (baseline and candidate interleaved in short blocks)
 *    would cancel shows here.
 *
 * Usage: first_rep GRID.csv (columns config,MB/s,first,stall_ms,order,pass) */
#include "stat/decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 4096
#define MAX_PASSES 8

struct row {
    char cfg[2048];
    double mb_s;
    int first, order, pass;
    double stall_ms;
};

static struct row rows[MAX_ROWS];

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    int n = 0;
    while (n < MAX_ROWS && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char *comma = strchr(line, ',');
        if (!comma) continue;
        *comma = 0;
        struct row *r = &rows[n];
        snprintf(r->cfg, sizeof r->cfg, "%s", line);
        if (sscanf(comma + 1, "%lf,%d,%lf,%d,%d", &r->mb_s, &r->first, &r->stall_ms, &r->order, &r->pass) == 5) n++;
    }
    fclose(f);
    return n;
}

static void say(const char *what, const double *base, const double *cand, int n)
{
    struct decide_opts o;
    decide_opts_default(&o);
    struct decision d;
    decide_paired(base, cand, n, &o, &d, NULL);
    char text[512];
    decide_text(&d, text, sizeof text);
    printf("%s: %s; %d pairs\n", what, text, n);
}

/* Geometric mean of a point's runs in one pass (0 when none). */
static double visit_level(int n, const char *cfg, int pass)
{
    double s = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].pass == pass && strcmp(rows[i].cfg, cfg) == 0) { s += log(rows[i].mb_s); k++; }
    return k ? exp(s / k) : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: first_rep GRID.csv\n"); return 2; }
    int n = load(argv[1]);
    if (n <= 0) { fprintf(stderr, "%s: no rows with first,stall_ms,order,pass (record it with bench/record-real-grid)\n", argv[1]); return 2; }
    double *first = malloc(sizeof *first * (size_t)n), *next = malloc(sizeof *next * (size_t)n);
    int np = 0, stalled = 0, passes = 0;
    for (int i = 0; i < n; i++) {
        stalled += rows[i].stall_ms >= 100;
        passes = rows[i].pass > passes ? rows[i].pass : passes;
        /* a visit: a first run and the run of the same configuration right after it */
        if (!rows[i].first) continue;
        for (int j = 0; j < n; j++)
            if (rows[j].order == rows[i].order + 1 && !rows[j].first && strcmp(rows[j].cfg, rows[i].cfg) == 0) {
                first[np] = rows[i].mb_s;
                next[np++] = rows[j].mb_s;
            }
    }
    printf("%s: %d runs, %d passes, %d flagged by the stall canary (overslept >= 100 ms)\n", argv[1], n, passes, stalled);
    say("first run after a change vs the next run", next, first, np);
    /* one level per point and pass */
    int npts = 0;
    static char pts[MAX_ROWS][2048];
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int k = 0; k < npts && !seen; k++) seen = strcmp(pts[k], rows[i].cfg) == 0;
        if (!seen) snprintf(pts[npts++], sizeof pts[0], "%s", rows[i].cfg);
    }
    double *a = malloc(sizeof *a * (size_t)npts), *b = malloc(sizeof *b * (size_t)npts);
    for (int p = 1; p <= passes && p <= MAX_PASSES; p++)
        for (int q = p + 1; q <= passes && q <= MAX_PASSES; q++) {
            int m = 0;
            for (int k = 0; k < npts; k++) {
                double x = visit_level(n, pts[k], p), y = visit_level(n, pts[k], q);
                if (x > 0 && y > 0) { a[m] = x; b[m++] = y; }
            }
            char what[64];
            snprintf(what, sizeof what, "pass %d vs pass %d (drift)", q, p);
            say(what, a, b, m);
        }
    /* run-to-run noise within a visit against drift between passes: a
     * paired analysis takes differences, whose variance is twice the
     * within-visit one; it pays only when drift is larger than that */
    double sw = 0, sd = 0, mean_pass[MAX_PASSES + 1] = { 0 }, grand = 0;
    for (int i = 0; i < np; i++) sw += pow(log(first[i] / next[i]), 2);
    sw = np > 0 ? sqrt(sw / np / 2) : NAN;
    int npass = passes < MAX_PASSES ? passes : MAX_PASSES;
    for (int p = 1; p <= npass; p++) {
        int m = 0;
        for (int k = 0; k < npts; k++) {
            double x = visit_level(n, pts[k], p), all = 0;
            int c = 0;
            for (int q = 1; q <= npass; q++)
                if (visit_level(n, pts[k], q) > 0) { all += log(visit_level(n, pts[k], q)); c++; }
            if (x > 0 && c) { mean_pass[p] += log(x) - all / c; m++; }
        }
        mean_pass[p] = m ? mean_pass[p] / m : 0;
        grand += mean_pass[p];
    }
    for (int p = 1; p <= npass; p++) sd += pow(mean_pass[p] - grand / npass, 2);
    sd = npass > 1 ? sqrt(sd / (npass - 1)) : NAN;
    printf("noise within a visit (log sd of a run): %.3f; drift between passes (log sd of the pass effects): %.3f\n", sw, sd);
    printf("paired differences would carry variance %.4f against %.4f for an unpaired run plus drift: %s\n", 2 * sw * sw,
           sw * sw + sd * sd, 2 * sw * sw < sw * sw + sd * sd ? "pairing pays" : "pairing does not pay; interleave instead");
    free(first);
    free(next);
    free(a);
    free(b);
    return 0;
}
