/* store_migrations — the schema migrations embedded at build (db/embed.sh). */
#ifndef SLUICE_STORE_MIGRATIONS_H
#define SLUICE_STORE_MIGRATIONS_H

struct store_migration {
    int version;        /* NNN of db/migrations/NNN_name.sql */
    const char *name;
    const char *sql;
};

extern const struct store_migration store_migrations[];
extern const int store_migration_count;

#endif
