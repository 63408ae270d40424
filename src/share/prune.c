/* share/prune — retention on an object store (file://, WebDAV, S3, SFTP),
 * with the meaning it has on a central store: --older-than DAYS removes the
 * runs measured more than DAYS ago, --keep-runs N all but each host's
 * newest N. A host's runs are its object, so they are taken out of the
 * object, which is rewritten; an object left without runs goes with its
 * entry. The entry keeps a mark of what went (the newest run taken out),
 * so the host's next push leaves those runs out (share_push), as the
 * central store's list of pruned UUIDs does. */
#include "share/sync.h"
#include "share/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct prune {
    struct share_remote *r;
    const struct share_prune_opts *po;
    char before[32];          /* --older-than as a time, "" none */
    const char *dir;          /* private scratch */
    share_event_fn fn;
    void *arg;
    long long runs;           /* runs taken out (or that would be) */
    int rewritten, removed;   /* objects */
};

static void say(struct prune *p, const char *key, const char *msg) { share_note(p->fn, p->arg, key, msg); }

/* The whole object and its entry (dry_run: counted only). */
static int remove_object(struct prune *p, const char *cls, const char *key, const struct share_manifest_entry *x,
                         sl_err *e)
{
    struct share_remote *r = p->r;
    char entry[700], msg[400];
    snprintf(entry, sizeof entry, "%s" SHARE_ENTRY_SUFFIX, key);
    if (!p->po->dry_run && (r->ops->remove(r, key, e) < 0 || r->ops->remove(r, entry, e) < 0 ||
                            share_manifest_forget(r, cls, x->object, p->dir, e) < 0))
        return -1;
    if (x->runs > 0)
        snprintf(msg, sizeof msg, "%s: host %s, its %lld run%s measured before %s", p->po->dry_run ? "would be removed"
                 : "removed", x->host, x->runs, x->runs == 1 ? "" : "s", p->before);
    else
        snprintf(msg, sizeof msg, "%s: host %s, no runs, pushed %s", p->po->dry_run ? "would be removed" : "removed",
                 x->host, x->pushed);
    say(p, key, msg);
    p->runs += x->runs;
    p->removed++;
    return 0;
}

/* Store the trimmed object packed under key only if the server still has
 * the object x describes: put_if where the transport has one; elsewhere its
 * entry is read again just before (a push landing in between can still be
 * overwritten: its runs then come back with the host's next push). 0
 * stored, 1 changed meanwhile (left), -1 error. */
static int replace(struct prune *p, const char *cls, const char *key, const char *packed,
                   const struct share_manifest_entry *x, sl_err *e)
{
    struct share_remote *r = p->r;
    if (r->ops->put_if) return r->ops->put_if(r, key, packed, x->sha256, e);
    struct share_manifest_entry now;
    sl_err ignore;
    if (share_entry_fetch(r, cls, x->object, p->dir, &now, &ignore) != 1 || strcmp(now.sha256, x->sha256) != 0) return 1;
    return r->ops->put(r, key, packed, e) < 0 ? -1 : 0;
}

/* The object fetched, what goes taken out of a private copy, and the
 * copy put back with its new entry (dry_run: counted only). */
static int trim_object(struct prune *p, const char *cls, const char *key, const struct share_manifest_entry *x,
                       sl_err *e)
{
    struct share_remote *r = p->r;
    char obj[4300], staged[4300], packed[4300], label[2700], sha[65], msg[400];
    snprintf(obj, sizeof obj, "%s/object" SHARE_ZST_SUFFIX, p->dir);
    snprintf(staged, sizeof staged, "%s/object" SHARE_SUFFIX, p->dir);
    snprintf(packed, sizeof packed, "%s/trimmed" SHARE_ZST_SUFFIX, p->dir);
    snprintf(label, sizeof label, "%s/%s", r->shown, key);
    unlink(obj);
    unlink(staged);
    unlink(packed);
    struct share_trim t = { .keep_runs = p->po->keep_runs, .before = p->before, .mark = x->pruned };
    struct share_trimmed got = { 0 };
    int rc = r->ops->get(r, key, obj, NULL, e);
    if (rc == 0) rc = share_sha256_file(obj, sha, e);
    /* Pushed again since its entry was read: the next prune sees it. */
    if (rc == 0 && strcmp(sha, x->sha256) != 0) {
        say(p, key, "left: it changed since its entry was written (pushed meanwhile?)");
        rc = 1;
    }
    if (rc == 0) rc = share_stage(obj, label, r->opts.max_bytes, staged, e);
    if (rc == 0) rc = store_share_trim(staged, label, x->host, &t, p->po->dry_run, &got, e);
    if (rc == 0 && got.removed > 0 && got.kept == 0) rc = remove_object(p, cls, key, x, e) < 0 ? -1 : 1;
    struct share_manifest_entry nx;
    if (rc == 0 && got.removed > 0 && !p->po->dry_run) {
        rc = share_zstd_compress(staged, packed, e);
        if (rc == 0) rc = share_manifest_entry_for(staged, packed, x->host, &nx, e);
        if (rc == 0) {
            snprintf(nx.object, sizeof nx.object, "%s", x->object);
            snprintf(nx.pushed, sizeof nx.pushed, "%s", x->pushed);
            snprintf(nx.pruned, sizeof nx.pruned, "%s", got.mark);
            rc = replace(p, cls, key, packed, x, e);
            if (rc == 1) say(p, key, "left: it changed while being pruned (pushed meanwhile?)");
        }
        if (rc == 0) rc = share_manifest_publish(r, cls, &nx, p->dir, e);
    }
    if (rc == 0 && got.removed > 0) {
        snprintf(msg, sizeof msg, "%s: host %s, %lld of its runs taken out, %lld kept", p->po->dry_run ?
                 "would be pruned" : "pruned", x->host, got.removed, got.kept);
        say(p, key, msg);
        p->runs += got.removed;
        p->rewritten++;
    }
    unlink(obj);
    unlink(staged);
    unlink(packed);
    return rc < 0 ? -1 : 0;
}

/* One object, by its entry: nothing to do, all of it, or some runs. */
static int prune_object(struct prune *p, const char *cls, const char *name, const struct share_manifest_entry *x,
                        sl_err *e)
{
    char key[600];
    snprintf(key, sizeof key, "%s/%s", cls, name);
    const char *when = x->newest[0] ? x->newest : x->pushed;
    if (p->before[0] && when[0] && strcmp(when, p->before) < 0) return remove_object(p, cls, key, x, e);
    bool by_count = p->po->keep_runs > 0 && x->runs > p->po->keep_runs;
    /* An older sluice's entry does not say its oldest run: fetched to see. */
    bool by_age = p->before[0] && x->runs > 0 && (!x->oldest[0] || strcmp(x->oldest, p->before) < 0);
    return by_count || by_age ? trim_object(p, cls, key, x, e) : 0;
}

static int prune_class(struct prune *p, const char *cls, sl_err *e)
{
    struct share_list l = { 0 };
    if (p->r->ops->list(p->r, cls, &l, e) < 0) return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < l.n; i++) {
        const char *name = l.v[i].name;
        char stem[256];
        if (l.v[i].is_dir || !share_name_valid(name) || !share_object_stem(name, stem, sizeof stem)) continue;
        struct share_manifest_entry x;
        sl_err ignore;
        /* Without its entry an object's runs are unknown: left. */
        if (share_entry_fetch(p->r, cls, name, p->dir, &x, &ignore) != 1) continue;
        rc = share_cancelled(p->r) ? share_fail_cancelled(e, "prune") : prune_object(p, cls, name, &x, e);
    }
    share_list_free(&l);
    return rc;
}

long long share_prune_objects(struct share_remote *r, const struct share_prune_opts *po, share_event_fn fn, void *arg,
                              sl_err *e)
{
    if (!r->ops->remove)
        return sl_fail(e, SL_EUSAGE, "prune %s: this transport cannot delete objects here (remove them with the "
                       "server's tools)", r->shown);
    char dir[4096];
    struct prune p = { .r = r, .po = po, .dir = dir, .fn = fn, .arg = arg };
    if (po->older_than_days > 0) {
        time_t t = time(NULL) - (time_t)po->older_than_days * 86400;
        strftime(p.before, sizeof p.before, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    }
    if (share_tmpdir(dir, sizeof dir, e) < 0) return -1;
    char **classes = NULL;
    int nc = share_pull_classes(r, true, &classes, e), rc = nc < 0 ? -1 : 0;
    for (int i = 0; rc == 0 && i < nc; i++) rc = prune_class(&p, classes[i], e);
    share_classes_free(classes, nc > 0 ? nc : 0);
    share_tmpdir_remove(dir);
    if (rc < 0) return -1;
    char msg[300];
    snprintf(msg, sizeof msg, "%s %lld run%s: %d object%s rewritten, %d removed%s", po->dry_run ? "would prune" :
             "pruned", p.runs, p.runs == 1 ? "" : "s", p.rewritten, p.rewritten == 1 ? "" : "s", p.removed,
             po->dry_run ? " (--dry-run: nothing changed)" : p.rewritten ? " (their entries keep a mark: pushes leave "
             "those runs out)" : "");
    share_note(fn, arg, r->shown, msg);
    return p.runs;
}
