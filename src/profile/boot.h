/* boot — `boot install|status|remove`: a profile persisted in /etc the way
 * the platform expects (sysctl.d, udev rules, a oneshot systemd unit), every
 * file written atomically under the root and recorded in a manifest. */
#ifndef SLUICE_BOOT_H
#define SLUICE_BOOT_H

#include <stdbool.h>
#include <stdint.h>
#include "profile/profile.h"

#define BOOT_ACTIVE "/etc/sluice/active.conf"
#define BOOT_MANIFEST "/etc/sluice/boot.manifest"
#define BOOT_UNIT "/etc/systemd/system/sluice-apply.service"
#define BOOT_UNIT_LINK "/etc/systemd/system/multi-user.target.wants/sluice-apply.service"
#define BOOT_SYSCTL "/etc/sysctl.d/60-sluice.conf"
#define BOOT_UDEV "/etc/udev/rules.d/61-sluice.rules"
#define BOOT_INITSCRIPT "sluice-apply"

/* How the root boots, so the profile is applied the way it expects: a
 * systemd unit; a System V init script linked into runlevels 2-5; or a
 * line in rc.local (2.4-era systems, and roots with neither). */
enum boot_init { BOOT_INIT_SYSTEMD, BOOT_INIT_SYSV, BOOT_INIT_RCLOCAL };
/* From what the root has: a booted systemd (/run/systemd/system) first,
 * then /etc/init.d (or /etc/rc.d/init.d), then systemd installed; a root
 * with none of them is judged by its kernel (sysfs: systemd; 2.4: rc.local). */
enum boot_init boot_init_detect(void);
/* "systemd", "sysv", "rc.local"; boot_init_parse: -1 for another word. */
const char *boot_init_name(enum boot_init i);
int boot_init_parse(const char *name);

struct boot_entry {
    char path[256];
    bool link;
    bool line;          /* one line sluice added to an existing file (rc.local); hash is the line's */
    char target[256];   /* link: where it points */
    uint64_t hash;      /* file: FNV-1a of the content written */
};
struct boot_manifest {
    char profile[64];
    struct boot_entry *e;
    int n;
};
enum boot_state { BOOT_INTACT, BOOT_MISSING, BOOT_CHANGED };

/* The unit text for a sluice binary at exe: packaged, what `make install`
 * ships (`boot unit`); else the one boot install writes when there is none.
 * NULL (SL_EUSAGE) when exe cannot be written into a unit (a control
 * character in the path). malloc'ed. */
char *boot_unit_text(const char *exe, bool packaged, sl_err *e);
/* The unit a package installed under the root (/usr/lib/systemd/system,
 * /lib/..., /usr/local/lib/...), which boot install enables instead of
 * writing its own; NULL when there is none. */
const char *boot_packaged_unit(void);
/* Write the active profile, sysctl.d file, udev rules, unit and its enabling
 * link, then the manifest, all or nothing even if killed (boot_journal.h;
 * the caller runs boot_settle first). Refuses (nothing written) a profile path or exe
 * holding a control character (see profile/quote.h), and when a target exists
 * that sluice did not write or that was edited since, unless force. What the
 * formats cannot express is added to nt. */
int boot_install(const struct profile *p, const struct plan *pl, const char *exe, bool force, struct notes *nt,
                 sl_err *e);
/* The same for the init system given (boot_install: boot_init_detect()).
 * sysctl.d is written only when the profile sets a vm knob it can express
 * (and the root uses sysctl.d), udev rules only when a disk gets a queue
 * knob on a root with sysfs; a note says what was left out and why. */
int boot_install_as(const struct profile *p, const struct plan *pl, const char *exe, bool force, enum boot_init init,
                    struct notes *nt, sl_err *e);
/* 1 when nothing is installed (no manifest), 0 when read, -1 on error. */
int boot_manifest_read(struct boot_manifest *m, sl_err *e);
void boot_manifest_free(struct boot_manifest *m);
enum boot_state boot_entry_state(const struct boot_entry *be);
const char *boot_state_name(enum boot_state s);
const char *boot_file_what(const char *path);
/* Delete what the manifest lists (states[] and removed[] sized by the
 * manifest, filled per entry; the caller runs boot_settle first), files
 * edited since install only with force;
 * the manifest goes last. 1 when nothing is installed. The caller frees *m. */
int boot_remove(bool force, struct boot_manifest *m, enum boot_state *states, bool *removed, sl_err *e);
/* Whether the root links init scripts with update-rc.d (/usr/sbin/update-rc.d
 * there and on this host). */
bool boot_update_rc_d_present(void);
/* Run `update-rc.d sluice-apply ACTION` (defaults, remove) for the root:
 * DPKG_ROOT names it unless it is the real one. 0, or -1 with e naming the
 * command and its exit status. */
int boot_update_rc_d(const char *action, sl_err *e);
/* sysctl.d files sorting after 60-sluice.conf (or /etc/sysctl.conf) that set
 * a vm knob of the plan: one note each. Returns how many. */
int boot_sysctl_overrides(const struct plan *pl, struct notes *nt);

#endif
