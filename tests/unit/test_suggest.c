/* Unit tests: suggest, the "did you mean" of unknown commands, options,
 * knobs and profiles (#32 item 5). */
#include "harness.h"
#include "core/suggest.h"

#include <string.h>

TEST(suggest_distance_counts_a_swap_as_one_edit)
{
    CHECK_INT(suggest_distance("histroy", "history"), 1);
    CHECK_INT(suggest_distance("ratoi", "ratio"), 1);
    CHECK_INT(suggest_distance("jsn", "json"), 1);
    CHECK_INT(suggest_distance("latncy", "latency"), 1);
    CHECK_INT(suggest_distance("", "abc"), 3);
    CHECK_INT(suggest_distance("kitten", "sitting"), 3);
    CHECK_INT(suggest_distance("same", "same"), 0);
}

TEST(suggest_offers_the_nearest_only_when_a_typo_explains_it)
{
    static const char *const cmds[] = { "history", "help", "set", "show", "sessions", "search", "restore" };
    struct suggest s;
    suggest_init(&s, "histroy");
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) suggest_offer(&s, cmds[i]);
    CHECK_STR(suggest_best(&s), "history");
    suggest_init(&s, "seqwrite");
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) suggest_offer(&s, cmds[i]);
    CHECK(suggest_best(&s) == NULL);
    suggest_init(&s, "vm.dirty_ratoi");
    suggest_offer(&s, "vm.dirty_ratio");
    suggest_offer(&s, "vm.dirty_bytes");
    CHECK_STR(suggest_best(&s), "vm.dirty_ratio");
    /* the word itself is no suggestion; nothing offered, none */
    suggest_init(&s, "show");
    suggest_offer(&s, "show");
    CHECK(suggest_best(&s) == NULL);
}
