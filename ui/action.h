/* action — every user action, declared once (tig's request.h model). The
 * enum, the key bindings, the F-key bar, the hint line and the `?` help
 * screen all come from UI_ACTIONS; nothing else lists actions. */
#ifndef SLUICE_UI_ACTION_H
#define SLUICE_UI_ACTION_H

#include <curses.h>
#include <stdbool.h>

#define UI_CTRL(c) ((c) & 0x1f)
#define UI_KEY_ESC 27

/* GROUP(title) starts a section of the table. "Screens", "Moving" and K/R
 * work everywhere; help lists every other action under the screens that
 * take it: a group named after the screen, or the screen's hints and keys
 * (screen.h).
 * ACT(ID, name, key, key2, label, help): `name` is what key scripts call it
 * (":dump-screen"); key and key2 are the bindings (0: none); `label` is the
 * word on the F-key bar or the hint line (NULL: help screen only). */
#define UI_ACTIONS(GROUP, ACT)                                                                              \
    GROUP("Screens")                                                                                        \
    ACT(HELP, "help", KEY_F(1), '?', "Help", "Show every key and what it does")                             \
    ACT(OVERVIEW, "overview", KEY_F(2), '1', "Overview", "Host and disks, key knobs, sessions left open")    \
    ACT(KNOBS, "knobs", KEY_F(3), '2', "Knobs", "Every knob here: edit, dry-run diff, apply, keep or revert") \
    ACT(PROBE, "probe", KEY_F(4), '3', "Probe", "Run a probe workload and watch it live")                   \
    ACT(SEARCH, "search", KEY_F(5), '4', "Search", "Search a parameter space for the best settings")        \
    ACT(RESULTS, "results", KEY_F(6), '5', "Results", "Stored runs: filter, compare two with intervals")    \
    ACT(PROFILES, "profiles", KEY_F(7), '6', "Profiles", "Profiles: diff against now, apply, save, boot")   \
    ACT(SHARE, "share", KEY_F(8), '7', "Share", "Push and pull result databases")                          \
    ACT(SESSIONS, "sessions", KEY_F(9), '8', "Sessions", "Every tuning session: what it changed, its report, put one back") \
    ACT(QUIT, "quit", KEY_F(10), 'q', "Quit", "Leave sluice; changes still on trial: keep or put back first") \
    GROUP("Moving")                                                                                         \
    ACT(UP, "move-up", KEY_UP, 'k', NULL, "Cursor up")                                                      \
    ACT(DOWN, "move-down", KEY_DOWN, 'j', NULL, "Cursor down")                                              \
    ACT(PAGE_UP, "page-up", KEY_PPAGE, 0, NULL, "One page up")                                              \
    ACT(PAGE_DOWN, "page-down", KEY_NPAGE, ' ', NULL, "One page down")                                      \
    ACT(FIRST, "first", KEY_HOME, 'g', NULL, "To the first line")                                           \
    ACT(LAST, "last", KEY_END, 'G', NULL, "To the last line")                                               \
    ACT(LEFT, "choice-prev", KEY_LEFT, 0, NULL, "Previous choice of a field (workload, yes/no); in a list or text: scroll left") \
    ACT(RIGHT, "choice-next", KEY_RIGHT, 0, NULL, "Next choice of a field; in a list or text: scroll right to what the edge cut") \
    ACT(BACK, "back", UI_KEY_ESC, 0, NULL, "Close a dialog, a view or the help")                            \
    ACT(FILTER, "filter", '/', 0, "Filter", "Knobs, Results: show only the rows containing a text; elsewhere find it as you type (n/N: next/previous)") \
    ACT(FIND_NEXT, "find-next", 'n', 0, NULL, "After / (find): the next line with the text")                \
    ACT(FIND_PREV, "find-prev", 'N', 0, NULL, "After / (find): the previous line with the text")            \
    ACT(REFRESH, "refresh", UI_CTRL('L'), 0, NULL, "Read every value again and redraw")                     \
    ACT(DUMP_SCREEN, "dump-screen", KEY_F(12), 0, NULL, "Append the screen as text to the file $SLUICE_DUMP") \
    GROUP("Tables")                                                                                         \
    ACT(SORT_PREV, "sort-prev", '<', 0, NULL, "Sort the table by the column left of the one it is sorted by") \
    ACT(SORT_NEXT, "sort-next", '>', 0, "Sort", "Sort the table by the column right of the one it is sorted by (Knobs: within each group)") \
    ACT(SORT_REVERSE, "sort-reverse", 'i', 0, NULL, "Reverse the order of the sort column (htop's I): ▲ and ▼ swap") \
    ACT(NEXT_PANE, "next-pane", '\t', 0, "Pane", "Move the keys to the next pane (Profiles: the list, the plan)") \
    GROUP("Knobs")                                                                                          \
    ACT(EDIT, "edit", '\n', 'e', "Open", "Edit the knob or field under the cursor (checked against its range); open a run or profile")  \
    ACT(SET_DEFAULT, "set-default", 'd', 0, "Default", "Make the kernel default the knob's pending value")   \
    ACT(UNDO, "undo", 'u', 0, "Undo", "Drop this knob's pending change (Probe: reset the field)")                               \
    ACT(UNDO_ALL, "undo-all", 'U', 0, NULL, "Drop every pending change")                                    \
    ACT(DIFF, "diff", 'D', 0, "Diff", "Dry run: what apply would write, and what it snapshots first")       \
    ACT(APPLY, "apply", 'a', 0, "Apply", "Write the pending changes, all or nothing, in a session on trial (Profiles: shows what it would write, then y applies)") \
    ACT(KEEP, "keep", 'K', 0, "Keep", "Keep the values on trial: the session closes as kept")               \
    ACT(REVERT, "revert", 'R', 0, "Revert", "Put back every value the trial session changed")               \
    GROUP("Probe")                                                                                          \
    ACT(START, "start", 's', 0, "Start", "Run the probe with these settings; every repetition is stored")   \
    ACT(CANCEL, "cancel", 'x', 0, "Cancel", "Stop the running work; the repetition is stored as aborted")   \
    ACT(FIO_JOB, "fio-job", 'J', 0, "fio job", "Show the equivalent fio job file, to check a number with fio") \
    GROUP("Search")                                                                                         \
    ACT(RESUME, "resume", 'r', 0, "Resume", "List the interrupted searches and continue one where it stopped") \
    GROUP("Profiles")                                                                                       \
    ACT(BOOT_INSTALL, "boot-install", 'I', 0, "Boot", "Install the profile for boot: sysctl.d, udev rules, sluice-apply.service") \
    ACT(BOOT_STATUS, "boot-status", 'B', 0, "Status", "What is installed for boot, file by file, and its drift")  \
    ACT(SAVE, "save", 'S', 0, "Save", "Save the settings in force now as a new profile in /etc/sluice/profiles") \
    ACT(IMPORT_TUNED, "import-tuned", 'T', 0, "Import", "Import a TuneD profile (a name or a directory) as a sluice profile") \
    ACT(EXPORT, "export", 'E', 0, "Export", "Write the selected profile as sysctl.d lines, udev rules or a TuneD profile to a file") \
    ACT(VERIFY_LIVE, "verify-live", 'V', 0, "Verify", "Verify the profile (Search: the winner) on this machine's own workload, as 'sluice verify --live': A and B blocks alternate, drawn as they arrive; a guard reverts B; x cancels") \
    GROUP("Results")                                                                                        \
    ACT(MARK, "mark", 'm', 0, "Mark", "Mark a run as A (the baseline) for a comparison; again to unmark")   \
    ACT(COMPARE, "compare", 'c', 0, "Compare", "Compare the batch of the run under the cursor with the marked one") \
    ACT(COMPARE_BY, "compare-by", 'C', 0, "Groups", "Compare groups of runs: two configurations, two searches, or each kernel release") \
    GROUP("Share")                                                                                          \
    ACT(PUSH, "push", 'P', 0, "Push", "Upload a snapshot of the results to the URL")                        \
    ACT(PULL, "pull", 'L', 0, "Pull", "Fetch the databases of this host's hardware classes and merge them") \
    GROUP("Sessions")                                                                                       \
    ACT(PUT_BACK, "put-back", 'p', 0, "Put back", "Show what putting the session back would change, then y puts it back as 'sluice restore' does: a knob changed since is named and left") \
    GROUP("Overview")                                                                                       \
    ACT(RESTORE_CRASHED, "restore-crashed", 'X', 0, "Restore", "Put back the knobs of sessions a dead sluice left open")

#define UI_ACTION_ENUM(id, name, key, key2, label, help) ACT_##id,
#define UI_ACTION_NOGROUP(title)
enum action { ACT_NONE = 0, UI_ACTIONS(UI_ACTION_NOGROUP, UI_ACTION_ENUM) ACT_COUNT };

struct action_info {
    enum action id;
    const char *name;
    int key, key2;
    const char *label;
    const char *help;
    const char *group;
};

/* The table row of an action (NULL for ACT_NONE or out of range). */
const struct action_info *action_info(enum action a);
/* The action bound to a key, ACT_NONE when unbound. */
enum action action_for_key(int key);
/* By name ("dump-screen"), ACT_NONE when unknown. */
enum action action_by_name(const char *name);
/* Human text of a key: "F2", "Enter", "Esc", "^L", "PgUp", "q". */
const char *action_key_label(int key, char *buf, size_t n);
/* The keys of an action as help shows them: "F1 ?" */
void action_keys_text(enum action a, char *buf, size_t n);

#endif
