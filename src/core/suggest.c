/* suggest — the nearest name to a mistyped word. */
#include "core/suggest.h"

#include <stdio.h>
#include <string.h>

#define SUGGEST_MAX 128

int suggest_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n >= SUGGEST_MAX || m >= SUGGEST_MAX) return 1 << 20;
    /* three rows of the dynamic programme: i-2, i-1, i */
    int rows[3][SUGGEST_MAX + 1];
    for (size_t j = 0; j <= m; j++) rows[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
        cur[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int d = prev[j] + 1;
            if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d) d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
        }
    }
    return rows[n % 3][m];
}

void suggest_init(struct suggest *s, const char *word)
{
    s->word = word;
    s->best[0] = 0;
    s->dist = -1;
}

void suggest_offer(struct suggest *s, const char *candidate)
{
    if (!candidate || strlen(candidate) >= sizeof s->best || strcmp(candidate, s->word) == 0) return;
    int d = suggest_distance(s->word, candidate);
    if (s->dist >= 0 && d >= s->dist) return;
    s->dist = d;
    snprintf(s->best, sizeof s->best, "%s", candidate);
}

const char *suggest_best(const struct suggest *s)
{
    int len = (int)strlen(s->word);
    int limit = len / 4 + 1;
    if (limit > 3) limit = 3;
    return s->dist > 0 && s->dist <= limit ? s->best : NULL;
}
