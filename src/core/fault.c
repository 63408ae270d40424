/* fault — SLUICE_FAULT parsed once, one counter per point. */
#include "core/fault.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const point_names[FAULT_POINTS] = {
    [FAULT_SYSFS_WRITE] = "sysfs_write", [FAULT_SQLITE_STEP] = "sqlite_step", [FAULT_WRITE] = "write",
    [FAULT_PG_BATCH] = "pg_batch", [FAULT_KILL] = "kill",
};

static long fail_at[FAULT_POINTS];          /* 0: never */
static _Atomic long calls[FAULT_POINTS];
static atomic_bool armed;
static pthread_once_t parsed = PTHREAD_ONCE_INIT;

static void parse(void)
{
    const char *env = getenv("SLUICE_FAULT");
    if (!env || !*env) return;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", env);
    char *save;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        if (!colon) continue;
        *colon = 0;
        for (int p = 0; p < FAULT_POINTS; p++)
            if (strcmp(item, point_names[p]) == 0) fail_at[p] = strtol(colon + 1, NULL, 10);
    }
    for (int p = 0; p < FAULT_POINTS; p++)
        if (fail_at[p] > 0) atomic_store(&armed, true);
}

bool fault_hit(enum fault_point p)
{
    pthread_once(&parsed, parse);
    if (!atomic_load_explicit(&armed, memory_order_relaxed) || fail_at[p] <= 0) return false;
    long n = atomic_fetch_add(&calls[p], 1) + 1;
    if (n != fail_at[p]) return false;
    fprintf(stderr, "sluice: fault injected at %s:%ld\n", point_names[p], n);
    return true;
}

void fault_kill_point(void)
{
    if (fault_hit(FAULT_KILL)) raise(SIGKILL);
}
