/* save — profiles made here and written to /etc/sluice/profiles: the
 * running kernel's settings, a stored search's winner, or a TuneD profile
 * imported; and a profile exported in one of the platform's formats. The
 * one core under `sluice profile save|import-tuned|export` and the Profiles
 * screen. */
#ifndef SLUICE_PROFILE_SAVE_H
#define SLUICE_PROFILE_SAVE_H

#include <stdbool.h>
#include <stddef.h>
#include "profile/profile.h"
#include "db/store.h"

/* The settings in force as profile NAME: writable vm/bdflush knobs with a
 * fixed default (the half of a ratio/bytes pair in force), and the queue
 * and iosched knobs of the disks a plain [block] covers, or with devices
 * (a glob on the device name) those disks, each under a selector on its
 * stable id. Values a profile cannot hold become notes. comment: the
 * provenance line written first. p is zeroed first; free with profile_free. */
void profile_save_current(const char *name, const char *devices, struct profile *p, struct notes *nt, char *comment,
                          size_t cn);
/* The winner of stored search id (a prefix) as profile NAME. -1 when it is
 * unknown or has no winner. */
int profile_save_search(store *st, const char *name, const char *id, struct profile *p, struct notes *nt,
                        char *comment, size_t cn, sl_err *e);
/* TuneD profile name_or_path (see profile_import_tuned) as profile `as`
 * (NULL: tuned-NAME). -1 when it cannot be read or `as` is not a name. */
int profile_import_tuned_as(const char *name_or_path, const char *as, struct profile *p, struct notes *unmapped,
                            char *comment, size_t cn, sl_err *e);

/* The file text: the comment, a "; Not mapped:" block listing the notes,
 * then the profile rendered (with file:line provenance if asked). malloc'ed. */
char *profile_file_text(const struct profile *p, const char *comment, const struct notes *nt, bool provenance);
/* Check that text loads, then write it atomically as
 * /etc/sluice/profiles/NAME.conf under the root (where: the full path).
 * Refuses an existing file unless force; needs root on the real system. */
int profile_write(const char *name, const char *text, bool force, char *where, size_t wn, sl_err *e);
/* Whether profile NAME is saved already (where: the file's full path). */
bool profile_saved_exists(const char *name, char *where, size_t wn);
/* Writing under /etc needs root on the real system (not under --root). */
int profile_require_root_etc(const char *what, sl_err *e);

/* Export formats: "sysctl", "udev", "tuned". */
bool profile_export_format_valid(const char *format);
/* The resolved profile in that format (NULL for an unknown one). malloc'ed. */
char *profile_export(const char *format, const struct profile *p, const struct plan *pl, struct notes *nt);
/* Write exported text to a file the user named (an output path, not a
 * kernel or /etc path: it is not under the root), atomically; refuses an
 * existing file unless force. */
int profile_export_write(const char *path, const char *text, bool force, sl_err *e);

#endif
