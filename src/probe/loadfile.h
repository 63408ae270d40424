/* loadfile — dbench's NetBench loadfile format (client.txt), parsed once
 * into a list of operations a dbench client replays (wl_dbench.c).
 *
 * A line is "[SECONDS] Operation ARG... STATUS": an optional time from the
 * start of the pass (the replay waits for it, as dbench does), the
 * operation, its arguments (quoted paths with backslashes, numbers in
 * decimal or 0x hex) and the status the operation is expected to end with
 * (NT_STATUS_OK: it must succeed; any other NT_STATUS_... or 0x...: it is
 * expected to fail, and may). Blank lines and lines starting with # are
 * skipped. Every path lies under \clients\client1, which each client
 * replays as its own \clients\clientN. */
#ifndef SLUICE_PROBE_LOADFILE_H
#define SLUICE_PROBE_LOADFILE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/err.h"

enum nb_kind {
    NB_NTCREATEX, NB_CLOSE, NB_READX, NB_WRITEX, NB_FLUSH, NB_UNLINK, NB_RENAME, NB_MKDIR, NB_RMDIR, NB_DELTREE,
    NB_QPATHINFO, NB_QFILEINFO, NB_QFSINFO, NB_SFILEINFO, NB_FINDFIRST, NB_LOCKX, NB_UNLOCKX, NB_SLEEP, NB_KIND_NR
};
/* dbench's names for its latency table ("NTCreateX", "ReadX", "Qpathinfo", ...). */
const char *loadfile_kind_name(enum nb_kind k);

#define NB_MAX_IO (16u << 20)   /* largest ReadX/WriteX accepted */

struct nb_op {
    enum nb_kind kind;
    bool expect_ok;
    int line;
    double at_s;            /* < 0: untimed */
    int64_t p[4];           /* numeric arguments in file order */
    char *path, *path2;     /* below \clients\client1, '/'-separated, "" for the client root */
};

struct nb_load {
    struct nb_op *ops;
    int n;
    uint64_t max_io;        /* largest ReadX/WriteX size */
    char name[256];         /* the file, or "(built-in)" */
    char sha256[65];        /* of the text parsed: the workload's identity */
};

/* Parse the file at path (NULL: the built-in loadfile). -1 with a message
 * naming the file, the line and what is wrong (SL_EUSAGE). */
int loadfile_parse(const char *path, struct nb_load *out, sl_err *e);
void loadfile_free(struct nb_load *l);

#endif
