/* manifest — the per-class index of shared objects (src/share/manifest.c). */
#ifndef SLUICE_SHARE_MANIFEST_H
#define SLUICE_SHARE_MANIFEST_H

#include <jansson.h>
#include "share/share.h"

#define SHARE_MANIFEST "manifest.json"
/* OBJECT.json: the object's own entry, beside it. */
#define SHARE_ENTRY_SUFFIX ".json"

/* One object as its manifest describes it. */
struct share_manifest_entry {
    char object[256];         /* HOST-UUID.sluicedb.zst */
    char host[64];            /* the host that pushed it */
    long long size;           /* bytes of the object as stored */
    char sha256[65];          /* of the object as stored */
    long long runs;           /* runs it holds */
    char runs_sha256[65];     /* their digest (struct share_digest) */
    char newest[32];          /* newest run's start */
    char oldest[32];          /* oldest run's start ("": an older sluice's entry) */
    /* "STARTED UUID": the newest of the host's runs a prune took out of the
     * object, "" none; the host's push leaves out every run up to it. */
    char pruned[128];
    bool own_only;            /* every run is the host's own (push's default) */
    char pushed[32];          /* when (UTC), for people */
};

/* Read a downloaded manifest (NULL with e naming label when it is not one). */
json_t *share_manifest_read(const char *path, const char *label, sl_err *e);
/* object's entry in m: true when it is complete enough to act on. */
bool share_manifest_entry(const json_t *m, const char *object, struct share_manifest_entry *x);
/* Put x into CLASS/manifest.json, keeping every other entry (see the file
 * comment for how concurrent pushes are handled). tmpdir: private scratch. */
int share_manifest_publish(struct share_remote *r, const char *cls, const struct share_manifest_entry *x,
                           const char *tmpdir, sl_err *e);
/* Take object's entry out of CLASS/manifest.json (its object removed
 * first), as share_manifest_publish puts one in. */
int share_manifest_forget(struct share_remote *r, const char *cls, const char *object, const char *tmpdir, sl_err *e);
/* OBJECT.json of cls: 1 read and valid (into x), 0 not a valid entry for
 * object, -1 error (missing included). */
int share_entry_fetch(struct share_remote *r, const char *cls, const char *object, const char *tmpdir,
                      struct share_manifest_entry *x, sl_err *e);
/* Whether x describes an object the listing shows with listed_size bytes
 * (-1: the listing does not say). */
bool share_entry_fits(const struct share_manifest_entry *x, long long listed_size);
/* The entry of the object packed, compressed from the snapshot snap, for
 * host uuid: size and SHA-256 of packed, the host's run count, digest,
 * newest and oldest run from snap, pushed now. 0, or -1 with e. */
int share_manifest_entry_for(const char *snap, const char *packed, const char *uuid, struct share_manifest_entry *x,
                             sl_err *e);
/* SHA-256 of a file, as 64 hex digits. */
int share_sha256_file(const char *path, char out[65], sl_err *e);

#endif
