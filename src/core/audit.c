/* audit — knob writes to syslog(3); see audit.h. */
#include "core/audit.h"
#include "core/sysfs.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

static bool enabled(void)
{
    if (sysfs_is_real_root()) return true;
    const char *a = getenv("SLUICE_AUDIT");
    return a && strcmp(a, "all") == 0;
}

/* A value as key="value": quotes and control characters become '?', so
 * one change stays one parsable line. */
static void field(char *buf, size_t n, const char *key, const char *value)
{
    size_t len = strlen(buf);
    int w = snprintf(buf + len, n - len, " %s=\"", key);
    if (w < 0 || (size_t)w >= n - len) return;
    len += (size_t)w;
    for (const char *p = value; *p && len + 2 < n; p++)
        buf[len++] = (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p;
    buf[len++] = '"';
    buf[len] = 0;
}

static void user_fields(char *buf, size_t n)
{
    uid_t uid = getuid();
    struct passwd *pw = getpwuid(uid);
    char id[32];
    snprintf(id, sizeof id, "%u", (unsigned)uid);
    field(buf, n, "user", pw ? pw->pw_name : id);
    field(buf, n, "uid", id);
    const char *sudo = getenv("SUDO_USER");
    if (sudo && *sudo && uid == 0) field(buf, n, "sudo_user", sudo);
}

void audit_user(char *buf, size_t n)
{
    uid_t uid = getuid();
    struct passwd *pw = getpwuid(uid);
    const char *sudo = getenv("SUDO_USER");
    char id[32];
    snprintf(id, sizeof id, "%u", (unsigned)uid);
    if (sudo && *sudo && uid == 0) snprintf(buf, n, "%s (sudo %s)", pw ? pw->pw_name : id, sudo);
    else snprintf(buf, n, "%s", pw ? pw->pw_name : id);
}

void audit_knob(const char *session_uuid, const char *purpose, const char *action, const char *knob, const char *old_value,
                const char *new_value, const char *got, const char *why)
{
    if (!enabled()) return;
    static bool opened;
    if (!opened) {
        openlog("sluice", LOG_PID, LOG_AUTHPRIV);
        opened = true;
    }
    char line[2048] = "";
    snprintf(line, sizeof line, "%s", action);
    field(line, sizeof line, "session", session_uuid ? session_uuid : "");
    field(line, sizeof line, "purpose", purpose ? purpose : "");
    user_fields(line, sizeof line);
    if (!sysfs_is_real_root()) field(line, sizeof line, "root", sysfs_root());
    field(line, sizeof line, "knob", knob);
    field(line, sizeof line, "old", old_value ? old_value : "");
    field(line, sizeof line, "new", new_value ? new_value : "");
    if (got) field(line, sizeof line, "got", got);
    else field(line, sizeof line, "failed", why ? why : "");
    syslog(got ? LOG_NOTICE : LOG_WARNING, "%s", line);
}
