-- 013: what each file of an object store (WebDAV, S3, file://) looked like
-- when a pull last took it: the server's ETag and Last-Modified, sent back
-- as If-None-Match / If-Modified-Since so that an unchanged class manifest
-- or object is answered 304 and not downloaded again (#16). A class
-- manifest's bytes are kept too: a 304 for it is then the whole pull of an
-- unchanged class. Keys 'pushed:CLASS/OBJECT' hold, as the etag, the
-- SHA-256 of the object this database last pushed there: a push finding
-- other bytes there looks for a clone's runs, and one that no longer
-- pushes to CLASS removes its object there. Local state, never shared.
CREATE TABLE share_validators (
    url           TEXT NOT NULL,              -- the share, as shown: no password
    key           TEXT NOT NULL,              -- CLASS/manifest.json, CLASS/OBJECT
    etag          TEXT NOT NULL DEFAULT '',
    last_modified TEXT NOT NULL DEFAULT '',
    body          BLOB,                       -- a manifest's bytes; NULL for an object
    fetched       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (url, key)
);
