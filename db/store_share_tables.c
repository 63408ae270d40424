/* store_share_tables — which tables travel between machines, and how each
 * row is named everywhere. A new table in a migration is added here (shared)
 * or to share_local_tables (this machine's state); a unit test insists. */
#include "db/store_share.h"

#include <string.h>

const struct share_table share_tables[] = {
    /* The machine-id behind machine_key identifies a machine to the world:
     * it never leaves, and a merged host can never claim this host's key. */
    { .name = "hosts", .key = "uuid",
      .private_col = "machine_key", .private_expr = "'host:' || s.uuid" },
    /* A device row re-created on its host gets a new UUID but keeps its
     * (host, name, serial, wwid): that finds the twin. */
    { .name = "devices", .key = "uuid", .alt_key = "host_id,name,serial,wwid" },
    /* Probe runs (002): configs and workloads are named by the SHA-256 of
     * their canonical text, runs by their UUID. */
    { .name = "configs", .key = "hash", .hash_of = "text" },
    { .name = "workloads", .key = "hash", .hash_of = "spec" },
    { .name = "runs", .key = "uuid" },
};
const int share_table_count = sizeof share_tables / sizeof share_tables[0];

/* searches, trials and live verifications (verifies, verify_blocks) point
 * at local sessions; what probes measured travels as
 * runs. probe_scratch names directories on this machine's disks.
 * share_cursors says how far this store's pulls got, share_validators what
 * the files they took looked like; form_values are what
 * this machine's user typed in the UI. */
const char *const share_local_tables[] = { "sessions", "snapshots", "session_changes", "searches", "trials",
                                           "verifies", "verify_blocks",
                                           "probe_scratch", "share_cursors", "share_validators",
                                           "form_values" };
const int share_local_table_count = sizeof share_local_tables / sizeof share_local_tables[0];

const struct share_table *share_table_find(const char *name)
{
    for (int i = 0; i < share_table_count; i++)
        if (strcmp(share_tables[i].name, name) == 0) return &share_tables[i];
    return NULL;
}

long long share_report_added(const struct share_report *r)
{
    long long n = 0;
    for (int i = 0; i < r->ntables; i++) n += r->t[i].added;
    return n;
}
