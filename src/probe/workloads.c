/* workloads — the table of probe workloads (one file each, wl_*.c). Help,
 * validation, the CLI and the UI read it; nothing else lists them. */
#include "probe/workload.h"

extern const struct probe_workload_ops workload_null, workload_seqwrite, workload_seqread, workload_randread,
    workload_randwrite, workload_randrw, workload_fsync, workload_dbench, workload_tiobench, workload_multidisk;

const struct probe_workload_ops *const workload_table[] = {
    &workload_null, &workload_seqwrite, &workload_seqread, &workload_randread, &workload_randwrite,
    &workload_randrw, &workload_fsync, &workload_dbench, &workload_tiobench, &workload_multidisk,
};
const int workload_table_len = sizeof workload_table / sizeof workload_table[0];
