/* suggest — "did you mean ...?": of the names a mistyped word could have
 * meant (commands, options, knobs, profiles), the nearest by edit distance,
 * when it is near enough to be a typo. */
#ifndef SLUICE_SUGGEST_H
#define SLUICE_SUGGEST_H

#include <stddef.h>

struct suggest {
    const char *word;      /* what was typed (borrowed) */
    char best[128];        /* the nearest candidate so far, copied */
    int dist;              /* its distance; -1 before any */
};

void suggest_init(struct suggest *s, const char *word);
/* Consider one candidate (copied if it is the nearest so far). */
void suggest_offer(struct suggest *s, const char *candidate);
/* The nearest candidate if a typo could explain it (at most one edit in
 * four characters, a swap of neighbours counting one), else NULL. Points
 * into s. */
const char *suggest_best(const struct suggest *s);
/* Edits (insert, delete, replace, swap two neighbours) from a to b: the
 * optimal string alignment distance. Words longer than 127 bytes: a large
 * number. */
int suggest_distance(const char *a, const char *b);

#endif
