/* store_form — the values last typed in the UI's forms (migration 012),
 * per form ("probe", "search") and field (its option, "--dir"). */
#ifndef SLUICE_STORE_FORM_H
#define SLUICE_STORE_FORM_H

#include "db/store.h"

/* The value remembered for a field into buf (n bytes); 1 found, 0 none,
 * -1 with e when the database fails. */
int store_form_get(store *s, const char *form, const char *field, char *buf, size_t n, sl_err *e);
/* Remember value for a field ("" too: the field was cleared). -1 with e. */
int store_form_set(store *s, const char *form, const char *field, const char *value, sl_err *e);

#endif
