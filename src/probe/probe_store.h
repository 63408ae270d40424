/* probe_store — saving a probe result with this host's and the disk's
 * fingerprint: what the CLI, search and UI call after each repetition. */
#ifndef SLUICE_PROBE_STORE_H
#define SLUICE_PROBE_STORE_H

#include "probe/probe.h"
#include "db/store.h"

/* Save r (any status) as one run row. -1 with a message naming the
 * database; nothing is saved then. */
int probe_store(store *st, const struct probe_result *r, sl_err *e);

/* Histogram blob of a result, as the store keeps it: per op with samples,
 * one byte op then hist_encode. Caller frees the blob. Decoding fills
 * r->op[].hist; -1 when the blob is malformed. */
unsigned char *probe_hist_blob(const struct probe_result *r, size_t *len);
int probe_hist_decode(const unsigned char *blob, size_t len, struct probe_result *r);

#endif
