/* store_verify — live verifications and their blocks (migration 016): a
 * row when the test starts, a block row as each block is measured, the end
 * (state, verdict, what was put back) when it ends. Neutral records: the
 * verify engine (src/verify/record.c) maps its run onto them. */
#ifndef SLUICE_STORE_VERIFY_H
#define SLUICE_STORE_VERIFY_H

#include "db/store.h"

#include <jansson.h>

struct verify_row {
    int64_t id;
    char uuid[37];
    int64_t session_id;
    char candidate[512], baseline[512], source[256];
    int64_t duration_ms, block_ms, seed;
    char metric_cmd[1024];
    int metric_higher;
    char dir[1024], disks[1100];
    char plan_json[4096];
    char state[16];
    char end_why[512];
    char verdict[32];
    int held, kept;
    char put_back[512];
    char started[32], ended[32];
    char session_uuid[37];         /* read only: the session's UUID ("" when none) */
    int nblocks;                   /* read only: blocks stored */
};

struct verify_block_row {
    int seq;
    char arm[2];                   /* "A" or "B" */
    char setting[512];
    int64_t start_ms, settle_ms, end_ms;
    char started[32], ended[32];
    int complete;
    double util_pct, io_bytes_s;
    char metrics_json[1024];
    char note[256];
};

/* Insert a running test (row->id, uuid, state and started are filled). */
int store_verify_create(store *s, struct verify_row *row, sl_err *e);
/* Record its end: state, end_why, verdict, held, kept, put_back; ended now. */
int store_verify_finish(store *s, const struct verify_row *row, sl_err *e);
int store_verify_block_add(store *s, int64_t verify_id, const struct verify_block_row *b, sl_err *e);
/* One test by UUID or a unique prefix of it; -1 with SL_EUSAGE when none
 * or ambiguous. */
int store_verify_get(store *s, const char *uuid_prefix, struct verify_row *out, sl_err *e);
/* Every test, newest first; caller frees *out. Returns the count or -1. */
int store_verify_list(store *s, struct verify_row **out, sl_err *e);
/* The session session_id was put back by a restore other than its own
 * tuner's (restore --crashed, the boot, 'restore SESSION'): a test of that
 * session still 'running' was killed (SIGKILL, a crash, a power cut) and
 * could not record its end. Marks each such test 'killed', ended at its
 * last sign of life (its last stored block's end, else its start), end_why
 * saying in which block it died, since when and when the restore found it.
 * Returns how many were marked, or -1 with e (nothing marked). */
int store_verify_mark_killed(store *s, int64_t session_id, sl_err *e);
/* The test as history and sessions list it: {"kind": "verification",
 * uuid, session, started, ended, candidate, baseline, source, state,
 * verdict, held, kept, blocks (stored), blocks_planned, block_s, why,
 * put_back}; absent values are null. A new reference. */
json_t *store_verify_json(const struct verify_row *v);
/* How many blocks the test planned (from its plan), 0 when unknown. */
int store_verify_planned(const struct verify_row *v);
/* Its blocks in order; caller frees *out. Returns the count or -1. */
int store_verify_blocks(store *s, int64_t verify_id, struct verify_block_row **out, sl_err *e);

#endif
