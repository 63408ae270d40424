/* store_share_hash — rows named by the SHA-256 of their content (configs,
 * workloads: share_table.hash_of) hold that content, or they do not come
 * in. The merge keeps the first text stored under a hash, and a host's
 * own texts are predictable (its knob values, its probe's options): a row
 * under the hash this host will compute, with other content, would become
 * what this host's own runs measured, and recommend would tell this host
 * to apply it. The hash is recomputed in SQL over the untrusted file, one
 * scan of each such table, before a single row is merged. */
#include "db/store_share.h"
#include "core/esc.h"

#include <openssl/evp.h>
#include <stdio.h>

/* sluice_sha256(x): as probe_sha256_hex hashes a config or workload text
 * (every byte of the text: a text cut short by a NUL does not hash to the
 * key of the text before it). */
static void sha256_sql(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(cx);
        return;
    }
    const unsigned char *text = sqlite3_value_text(argv[0]);
    int n = sqlite3_value_bytes(argv[0]);
    if (!text) {
        sqlite3_result_error_nomem(cx);
        return;
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    if (!EVP_Digest(text, (size_t)n, md, &len, EVP_sha256(), NULL) || len != 32) {
        sqlite3_result_error(cx, "SHA-256 is unavailable in libcrypto", -1);
        return;
    }
    char hex[65];
    for (unsigned i = 0; i < len; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
    sqlite3_result_text(cx, hex, 64, SQLITE_TRANSIENT);
}

int store_share_hash_register(sqlite3 *db)
{
    /* Innocuous: it reads its argument only, so even a hostile schema's
     * generated column or index (trusted_schema=OFF) gains nothing by it. */
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    return sqlite3_create_function_v2(db, "sluice_sha256", 1, flags, NULL, sha256_sql, NULL, NULL, NULL) == SQLITE_OK
               ? 0 : -1;
}

/* Whether main of db has the table: 1, 0, or -1 when that could not be read. */
static int has_table(sqlite3 *db, const char *table)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?1", -1, &st, NULL)
        != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc = store_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The first row of t whose key is not its content's hash, named in e. The
 * key is compared as it is stored (+: no affinity of the file's choosing,
 * BINARY: no collation of its choosing), as the merge copies it. */
static int check_table(sqlite3 *db, const struct share_table *t, const char *label, const char *outcome, sl_err *e)
{
    char *sql = sqlite3_mprintf("SELECT quote(k), c FROM (SELECT s.\"%w\" AS k, sluice_sha256(s.\"%w\") AS c " /* security: OK because names from share_tables, %w-quoted */
                                "FROM main.\"%w\" s) WHERE +k IS NOT c COLLATE BINARY LIMIT 1", t->key, t->hash_of,
                                t->name);
    sqlite3_stmt *st;
    int prc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    sqlite3_free(sql);
    if (prc != SQLITE_OK) return store_share_corrupt(db, label, e);
    int rc = store_step(st), res = 0;
    if (rc == SQLITE_ROW) {
        char key[160];
        const char *k = (const char *)sqlite3_column_text(st, 0), *c = (const char *)sqlite3_column_text(st, 1);
        esc_term(k ? k : "NULL", key, sizeof key, 0);
        res = sl_fail(e, SL_EFAIL, "%s: the %s row with %s %s holds a %s whose SHA-256 is %s: a row named by the hash of "
                      "its content must hold that content (a forged or damaged row); %s", label, t->name, t->key, key,
                      t->hash_of, c ? c : "(none: it is NULL)", outcome);
    } else if (rc != SQLITE_DONE) {
        res = store_share_corrupt(db, label, e);
    }
    sqlite3_finalize(st);
    return res;
}

int store_share_check_hashes(sqlite3 *db, const char *label, const char *outcome, sl_err *e)
{
    for (int i = 0; i < share_table_count; i++) {
        const struct share_table *t = &share_tables[i];
        if (!t->hash_of) continue;
        int has = has_table(db, t->name);
        if (has < 0) return store_share_corrupt(db, label, e);
        if (has && check_table(db, t, label, outcome, e) < 0) return -1;
    }
    return 0;
}

int store_share_check_content(store *s, const char *label, const char *outcome, sl_err *e)
{
    if (store_share_hash_register(store_db(s)) < 0) return store_fail(s, e, "checking rows named by a hash");
    return store_share_check_hashes(store_db(s), label, outcome, e);
}
