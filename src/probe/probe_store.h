/* probe_store — saving a probe result with this host's and the disk's
 * fingerprint: what the CLI, search and UI call after each repetition. */
#ifndef SLUICE_PROBE_STORE_H
#define SLUICE_PROBE_STORE_H

#include "probe.h"
#include "store.h"

/* Save r (any status) as one run row. -1 with a message naming the
 * database; nothing is saved then. */
int probe_store(store *st, const struct probe_result *r, sl_err *e);

#endif
