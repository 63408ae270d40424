/* probe_store — a result plus host and device facts into the store. */
#include "probe_store.h"
#include "device.h"
#include "store_run.h"

int probe_store(store *st, const struct probe_result *r, sl_err *e)
{
    struct host_info h;
    if (host_read(&h, e) < 0) return -1;
    struct device d;
    bool have = r->disk.available && device_get(r->disk.name, &d, NULL) == 0;
    return store_run_save(st, r, &h, have ? &d : NULL, e);
}
