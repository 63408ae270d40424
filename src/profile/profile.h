/* profile — sluice profiles (man/sluice-profile.5): INI files naming catalogue
 * knobs per section ([vm], [bdflush], [block], [block "SELECTOR"]) with
 * includes, match rules and TuneD-style conditional values (>N, <N).
 * profile.c finds, parses, merges and checks them against the knob table;
 * profile_plan.c resolves one against this machine's devices. */
#ifndef SLUICE_PROFILE_H
#define SLUICE_PROFILE_H

#include <limits.h>
#include <stdbool.h>
#include "core/device.h"
#include "core/knob.h"
#include "session/knobset.h"

#define PROFILE_NAME_MAX 64
#define PROFILE_SELECTOR_MAX 192
#define PROFILE_MAX_MATCH 8
#define PROFILE_MAX_DIRS 4
#define PROFILE_KEY_MAX 64

enum prof_section { PS_VM, PS_BDFLUSH, PS_BLOCK };
enum prof_cond { PC_SET, PC_RAISE, PC_LOWER }; /* "N"; ">N" only raise; "<N" only lower */

struct prof_entry {
    enum prof_section sec;
    char selector[PROFILE_SELECTOR_MAX]; /* [block "SELECTOR"]; "" otherwise */
    char key[PROFILE_KEY_MAX];           /* catalogue name inside the section */
    char value[KNOB_VALUE_MAX];          /* canonical; a scheduler may list a|b */
    enum prof_cond cond;
    const char *file;                    /* owned by the profile (files[]) */
    int line;
};

struct profile {
    char name[PROFILE_NAME_MAX];
    char summary[512];
    char path[PATH_MAX];                 /* the file loaded ("" when parsed from text) */
    char include[256];                   /* as written, comma separated */
    char match[PROFILE_MAX_MATCH][PROFILE_SELECTOR_MAX];
    int nmatch;
    struct prof_entry *ent;              /* merged: includes first, overridden by the file */
    int n;
    char **files;                        /* every file read, for file:line provenance */
    int nfiles;
};

/* Where profiles are looked for, first match wins: --profiles DIR, else
 * $SLUICE_PROFILES; then ROOT/etc/sluice/profiles; then profiles/ beside
 * the binary (the build tree's); then the installed DATADIR/profiles.
 * Missing directories are skipped. */
struct profile_dirs {
    char dir[PROFILE_MAX_DIRS][PATH_MAX];
    int n;
};
void profile_dirs_init(struct profile_dirs *d, const char *option_dir);
/* Where `boot install`, `profile save` and `import-tuned` write: /etc/sluice/profiles. */
#define PROFILE_ETC_DIR "/etc/sluice/profiles"

/* Profile names: [A-Za-z0-9_.+-], not starting with '.', at most 63 chars. */
bool profile_name_valid(const char *name);
/* 0, or -1 (SL_EUSAGE) saying what a profile name may hold. */
int profile_name_check(const char *name, sl_err *e);
/* Path of profile NAME.conf in the search path. -1 (SL_EUSAGE) naming the
 * directories searched when it is nowhere. */
int profile_find(const struct profile_dirs *d, const char *name, char *path, size_t n, sl_err *e);
/* Every profile in the search path (a name shadowed by an earlier directory
 * is listed once): malloc'ed arrays of malloc'ed names and paths. */
int profile_list(const struct profile_dirs *d, char ***names, char ***paths, sl_err *e);

/* Load a profile by NAME (searched) or by path (contains '/'), following
 * includes, and check every entry against the table. -1 with
 * "FILE:LINE: message" in e (SL_EUSAGE) on the first error. Free with
 * profile_free, also after an error. */
int profile_load(const struct profile_dirs *d, const char *name_or_path, struct profile *out, sl_err *e);
/* The same from text in memory; origin names it in messages. */
int profile_load_text(const struct profile_dirs *d, const char *text, const char *origin, struct profile *out,
                      sl_err *e);
void profile_free(struct profile *p);

/* Add or override one entry (includes are merged with this): an entry with
 * the same section, selector and key is replaced, and setting one half of a
 * ratio/bytes pair drops the other half. */
void profile_set_entry(struct profile *p, const struct prof_entry *en);

/* Keep a copy of a file name in the profile (entries point at it). */
const char *profile_add_file(struct profile *p, const char *path);
/* Check en's section and key against the table and parse `raw` (a value,
 * ">N", "<N", scheduler alternatives "a|b") into en->value and en->cond.
 * -1 with a message naming the knob and the allowed range. */
int profile_check_entry(struct prof_entry *en, const char *raw, sl_err *e);

/* The profile as INI text, merged (includes resolved). With provenance, each
 * entry carries a "; FILE:LINE" comment. malloc'ed; caller frees. */
char *profile_render(const struct profile *p, bool provenance);

/* Selectors: comma-separated KEY=GLOB terms, all of which must match; a GLOB
 * starting with '!' negates. Device keys: name model vendor serial wwid
 * transport rotational; host keys: virt kernel. */
int selector_check(const char *sel, sl_err *e);
bool selector_matches(const char *sel, const struct device *d, const struct host_info *h);
/* Whether a [block "SEL"] section applies to d: d has a queue and matches;
 * stacked and virtual devices (loop, dm, md, zram, ram, nbd) only when the
 * selector names them with name= or transport=. */
bool selector_selects(const char *sel, const struct device *d, const struct host_info *h);
/* The disks a plain [block] section covers: whole disks with a queue that are
 * not stacked or virtual (loop, dm, md, zram, ram, nbd), and match a rule of
 * the profile if it has any. */
bool profile_covers(const struct profile *p, const struct device *d, const struct host_info *h);

/* Whether this host is what the profile is for: some match rule selects the
 * host (virt=, kernel=) or one of its disks; true without rules. */
bool profile_host_matches(const struct profile *p, const struct device *devs, int ndevs, const struct host_info *h);

/* One profile of the catalogue as a listing shows it. */
struct profile_row {
    char name[PROFILE_NAME_MAX];
    char path[PATH_MAX];
    bool ok;                           /* it loaded; else summary is why not */
    char fits[16];                     /* FOR THIS HOST: any, yes, no, invalid */
    char summary[1100];
};
/* Every profile on the search path, loaded and judged against this host
 * (its match rules, host_read and the disks): what `sluice profile list`
 * and the Profiles screen list. Returns how many, *rows malloc'ed (free()
 * it; never NULL on success), or -1 with e when the directories cannot be
 * listed. A profile that does not load is a row with ok false. */
int profile_catalogue(const struct profile_dirs *d, struct profile_row **rows, sl_err *e);

/* A profile that suits this host, for recommend without data. */
struct profile_fit {
    char name[PROFILE_NAME_MAX];
    char summary[1100];
    double score;                      /* higher first */
    char reasons[600];                 /* "virt=!none: this host (...); rotational=1: sda, vda (...)" */
    bool guest_flag_only;              /* chosen only by a virtual disk's rotational flag */
};
/* Every profile whose match rules select this host or its disks, best
 * first: a rule on the host (virt=, kernel=) before rules on disks, and a
 * lone rotational= rule on a virtual machine's disks last (the guest's
 * flag says nothing of the host's storage); then the profile named general
 * (no rules: chosen by objective), if there is one. Returns how many, *out
 * freed by the caller (never NULL on success); -1 with e. */
int profile_rank(const struct profile_dirs *d, const struct host_info *h, const struct device *devs, int nd,
                 const char *general, struct profile_fit **out, sl_err *e);

const char *prof_section_name(enum prof_section s);
/* The entry's full catalogue name for device dev: vm.dirty_ratio,
 * vm.bdflush.nfract, block.sda.scheduler, block.sda.iosched.fifo_batch,
 * bdi.sda.max_ratio. */
void prof_entry_knob(const struct prof_entry *en, const char *dev, char *buf, size_t n);
/* The table row an entry names (any scheduler's row for iosched), or NULL. */
const struct knob_def *prof_entry_def(const struct prof_entry *en);
/* ">4096", "<10" or "10": the value as written. */
void prof_entry_value_text(const struct prof_entry *en, char *buf, size_t n);

/* --- resolution against this machine (profile_plan.c) ------------------- */

enum plan_action {
    PA_WRITE, /* differs: apply writes it */
    PA_SAME,  /* already has the value */
    PA_KEEP,  /* conditional value already satisfied (>N and current is higher) */
    PA_SKIP,  /* does not apply here: absent on this kernel or device */
};

struct plan_item {
    char knob[KNOB_NAME_MAX];
    char dev[KNOB_DEV_MAX];
    char want[KNOB_VALUE_MAX];    /* what apply writes (scheduler alternative chosen) */
    char current[KNOB_VALUE_MAX]; /* "" when absent */
    enum plan_action action;
    int order;
    const struct prof_entry *src;
    char note[256];
};

struct plan {
    struct plan_item *it;
    int n;
    char (*warn)[512];
    int nwarn;
    struct device *devs;
    int ndevs;
    struct host_info host;
};

/* Resolve selectors against the devices, choose scheduler alternatives,
 * validate every value with the kernel's view (offered schedulers, present
 * files), read current values and decide each item's action. Knobs this
 * kernel or device lacks become PA_SKIP with a warning; a selector matching
 * no device is a warning. -1 with "FILE:LINE: ..." on an invalid value. */
int profile_plan(const struct profile *p, struct plan *pl, sl_err *e);
void plan_free(struct plan *pl);
/* The plan's PA_WRITE and PA_SAME items as a prepared knobset (ordered,
 * cross-checked, touched set computed). -1 when there is nothing to set. */
int plan_knobset(const struct plan *pl, struct knobset *ks, sl_err *e);
const char *plan_action_name(enum plan_action a);
/* Verify verdict for an item after apply: true when current satisfies it. */
bool plan_item_ok(const struct plan_item *it);

/* --- the platform's formats (profile/export.c) ---------------------------- */

/* What an export could not express, one sentence each. */
struct notes {
    char (*v)[512];
    int n;
};
void notes_add(struct notes *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void notes_free(struct notes *nt);

/* sysctl.d(5) lines for the plan's vm knobs. Conditional values and 2.4
 * bdflush fields cannot be expressed there: notes. malloc'ed text. */
char *profile_export_sysctl(const struct profile *p, const struct plan *pl, struct notes *nt);
/* udev rules, one per disk of the plan keyed on its most stable id
 * (ID_WWN, ID_SERIAL from /run/udev/data, else wwid, serial, vendor+model),
 * attributes in apply order. malloc'ed text. */
char *profile_export_udev(const struct profile *p, const struct plan *pl, struct notes *nt);
/* A TuneD profile: [sysctl], [disk] (elevator, readahead) and [sysfs];
 * selectors TuneD cannot express are resolved to this machine's disks. */
char *profile_export_tuned(const struct profile *p, const struct plan *pl, struct notes *nt);

/* --- TuneD profiles in (profile/tuned.c) ----------------------------------- */

/* Read TuneD profile NAME (ROOT/etc/tuned/profiles, ROOT/etc/tuned,
 * ROOT/usr/lib/tuned/profiles, ROOT/usr/lib/tuned), a directory holding
 * tuned.conf, or a file; follow [main] include (flattened: the includes
 * first, as TuneD merges them; a name is looked for beside the including
 * profile, then in those directories) and map [sysctl] vm.*, [vm] dirty_*, [disk] elevator,
 * readahead and devices, and [sysfs] /sys/block/... paths. Everything else
 * becomes a note "FILE:LINE: what: why". The result is named tuned-NAME. */
int profile_import_tuned(const char *name_or_path, struct profile *out, struct notes *unmapped, sl_err *e);
/* The TuneD profiles import-tuned finds by name: the directories holding a
 * tuned.conf in TuneD's directories under the root, sorted, each once.
 * Returns how many (names malloc'ed, each and the array; free both). */
int profile_tuned_names(char ***names);

#endif
