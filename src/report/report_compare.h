/* report_compare — two groups of stored runs compared as one report
 * document (report.h): what `sluice compare --html`, `sluice report A..B`
 * and the UI's Compare views show, so the three cannot disagree. */
#ifndef SLUICE_REPORT_COMPARE_H
#define SLUICE_REPORT_COMPARE_H

#include "report/report.h"
#include "search/compare.h"

/* B against A appended to rep: refused (a warning, nothing judged) when a
 * side has fewer than 2 runs or the sides ran different work; else the
 * verdict card first (the verdict with the change of objtext, its interval
 * and level, the side-effects table: what B costs beside A, with
 * intervals), the sides and the interval's basis, then with charts A's and
 * B's runs drawn over one another: the objective's MB/s of each run in
 * order, and a histogram of it. Decided at alpha with test, as `sluice
 * compare` decides. */
void report_compare_sides(struct report *rep, const struct objective *o, const char *objtext, const struct compare_side *a,
                          const struct compare_side *b, double alpha, enum search_test test, bool charts);

#endif
