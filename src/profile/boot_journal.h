/* boot_journal — what makes `boot install` all or nothing even when it is
 * killed: an intent journal in /etc/sluice. Before it creates anything, an
 * install names there the directories it is about to create; once every new
 * file is staged (fsynced temporaries beside their paths, the manifest among
 * them) it replaces the journal by one naming each rename and removal left
 * to do. From that moment the install is decided. Whoever finds a journal
 * whose writer is dead (the next boot command: boot_settle) finishes a
 * decided install, or undoes one that was not: either way /etc ends as it
 * was before or as the install leaves it, and the manifest names what is
 * in place. */
#ifndef SLUICE_BOOT_JOURNAL_H
#define SLUICE_BOOT_JOURNAL_H

#include <limits.h>
#include <stdbool.h>
#include "profile/profile.h"

#define BOOT_JOURNAL "/etc/sluice/boot.journal"

/* One change of a decided install: rename the staged temporary tmp (its
 * real path, root included) over path, or with tmp "" remove path. */
struct boot_step {
    char path[256];
    char tmp[PATH_MAX + 32];
};

struct boot_journal {
    long pid;               /* the writer, and when it wrote its intent: */
    long long started_s;    /* a later process with that pid is another */
    char profile[64];
    char made[16][256];     /* directories the install creates, parents first */
    int nmade;
    struct boot_step v[40]; /* the manifest last */
    int n;
    bool decided;
};

/* Plan the directories the paths need, create /etc/sluice, and write the
 * intent journal (j->profile set by the caller; pid and time are this
 * process's). Refuses, with nothing left, when a journal is already there
 * (another install began since boot_settle). 0, or -1 with e. */
int boot_journal_begin(struct boot_journal *j, const char *const *paths, int npaths, sl_err *e);
/* Replace the intent by the decided journal naming j->v: the install is
 * then finished by whoever comes next, whatever happens to this process.
 * -1 with e: still only the intent is on disk. */
int boot_journal_decide(struct boot_journal *j, sl_err *e);
/* Do j->v in order (a temporary already gone was renamed before), then
 * remove the journal. -1 with e: the journal stays for the next command. */
int boot_journal_finish(const struct boot_journal *j, sl_err *e);
/* Take back an undecided install: its temporaries, the directories it
 * made (those still empty) and the journal. -1 with e when the journal
 * cannot be removed. */
int boot_journal_undo(const struct boot_journal *j, sl_err *e);
/* What every boot command does first: finish or undo the install a
 * journal left (a killed `boot install`), then remove the temporaries of
 * dead processes (.NAME.PID.N.tmp) beside the boot files. One note for
 * each thing done. 0, or -1 with e: status SL_EBUSY when the journal's
 * writer still runs (nothing done), else the journal is not sluice's or
 * what it names cannot be done (it stays). */
int boot_settle(struct notes *nt, sl_err *e);

#endif
