/* probe_internal — what the probe module's files share and nobody else uses. */
#ifndef SLUICE_PROBE_INTERNAL_H
#define SLUICE_PROBE_INTERNAL_H

#include "workload.h"

/* config.c */
void probe_sha256_hex(const char *text, char out[65]);
/* The knob values in force for the vm and the disk (may be ""), as sorted
 * "name=value\n" text (malloc'ed) and its hash. */
int probe_config_capture(const char *disk, char **text, char hash[65], sl_err *e);
void probe_workload_text(const struct probe_spec *s, char *buf, size_t n, char hash[65]);

/* canary.c: a thread beside the workload; start returns NULL when it could
 * not start (the run goes on without it, noted). */
struct canary;
struct canary *canary_start(struct probe_ctx *c, sl_err *e);
void canary_stop(struct canary *k, struct probe_canary *out);

/* probe.c */
void probe_uuid(char out[37]);
struct probe;
const char *probe_batch(const struct probe *p);
const char *probe_size_note(const struct probe *p);
struct probe_ctx *probe_ctx_of(struct probe *p);

/* scratch.c: remove a scratch directory tree we created (no symlinks followed). */
void probe_scratch_remove(const char *dir);

#endif
