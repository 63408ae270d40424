/* report_run — a probe run as a report, loaded, then rendered: report_run
 * (report.h) reads the run in one query and renders it; the renderers here
 * read only what they are given, never the store. */
#ifndef SLUICE_REPORT_RUN_H
#define SLUICE_REPORT_RUN_H

#include "report/report.h"
#include "core/run_metric.h"

/* The metrics section: one line per metric group of the table ("cpu: usr
 * 0.0%  sys 0.0%  ..."), the measured values only. The Probe screen shows
 * a finished repetition with it, so the screen and the stored run's report
 * say the same. */
void report_run_metrics(struct report *rep, const struct run_metrics *m);

#endif
