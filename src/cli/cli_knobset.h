/* cli_knobset — how every command that writes knobs (set, apply) reports a
 * knobset: one table or one JSON shape (implemented in cli_knobs.c). */
#ifndef SLUICE_CLI_KNOBSET_H
#define SLUICE_CLI_KNOBSET_H

#include <stdbool.h>
#include <jansson.h>
#include "session/knobset.h"

/* KNOB BEFORE AFTER STATE (NEW and "would write" when dry_run), then notes on
 * adjusted values and side effects, and for a dry run what would be snapshotted. */
void cli_knobset_print(const struct knobset *ks, bool dry_run);
/* The same as a JSON object (new reference); s may be NULL. */
json_t *cli_knobset_json(const struct knobset *ks, const struct session *s, bool dry_run);

#endif
