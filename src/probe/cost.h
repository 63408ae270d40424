/* cost — what a probe will write, take and occupy, said before it starts
 * (the Probe form shows it before s), from its resolved spec. */
#ifndef SLUICE_PROBE_COST_H
#define SLUICE_PROBE_COST_H

#include <stdbool.h>
#include <stdint.h>
#include "probe/probe.h"

struct probe_cost {
    uint64_t space_bytes;     /* free space it needs in a directory: probe_space_need (0: none) */
    uint64_t write_bytes;     /* over every repetition, at most (0 with write_timed: unknown) */
    bool write_timed;         /* a timed writer writes what the disk takes in its time */
    bool reads_only;          /* writes only the layout, then reads */
    double time_s;            /* every repetition: idle, ramp, measured time */
    bool time_is_limit;       /* fixed work: time_s is the most it may take, it ends when durable */
    uint64_t free_bytes;      /* under the first directory (0: unknown) */
};
/* The cost of a resolved probe spec (probe_spec_resolve). */
void probe_cost_estimate(const struct probe_spec *resolved, struct probe_cost *c);

#endif
