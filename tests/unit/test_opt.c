/* Option rows with values (opt.h): each type parses what it takes, refuses
 * the rest with one message naming the option, the value and what it
 * accepts, and a row's .def is the default the struct starts with. */
#include "harness.h"
#include "core/opt.h"
#include "probe/probe.h"
#include "search/run.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

struct demo {
    int n;
    double r;
    long long ms, bytes;
    char word[16];
    int pick;
    uint64_t big;
    bool given;
};

static const char *fruit_at(int i)
{
    static const char *const fruit[] = { "apple", "pear", "plum" };
    return i >= 0 && i < 3 ? fruit[i] : NULL;
}

static int fruit_parse(const char *t) { return strcmp(t, "prune") == 0 ? 2 : -1; }

#define D(f) OPT_AT(struct demo, f)
static const struct opt demo_rows[] = {
    { .name = "n", .type = OPT_INT, .arg = "N", .min = 1, .max = 5, .def = "3", D(n), OPT_SEEN(struct demo, given) },
    { .name = "r", .type = OPT_REAL, .arg = "R", .min = 0, .max = 0.5, .flags = OPT_MIN_OPEN | OPT_MAX_OPEN, .def = "0.05",
      D(r) },
    { .name = "t", .type = OPT_DURATION, .arg = "T", .min = 10, .max = 3600000, .def = "5s", D(ms) },
    { .name = "s", .type = OPT_SIZE, .arg = "S", .min = 512, .max = 64 << 20, .def = "4k", D(bytes) },
    { .name = "w", .type = OPT_CHOICE, .arg = "W", .def = "pear", D(word), .choice_at = fruit_at },
    { .name = "e", .type = OPT_ENUM, .arg = "E", .def = "plum", D(pick), .choice_at = fruit_at, .choice_parse = NULL },
    { .name = "a", .type = OPT_ENUM, .arg = "E", D(pick), .choice_at = fruit_at, .choice_parse = fruit_parse },
    { .name = "u", .type = OPT_U64, .arg = "N", .def = "18446744073709551615", D(big) },
    { .name = "later", .type = OPT_INT, .arg = "N", .min = 0, .max = 9, .def = "7", .flags = OPT_DEF_LATER, D(n) },
    { NULL },
};
#undef D
static const struct opt_table demo_table = { sizeof(struct demo), NULL, { { demo_rows, 0 } }, NULL, NULL };

static int set(struct demo *d, const char *opt, const char *text, sl_err *e) { return opt_set(&demo_table, d, opt, text, e); }

TEST(opt_defaults_parse_each_rows_def_into_the_struct)
{
    struct demo d;
    sl_err e;
    memset(&d, 0, sizeof d);
    CHECK_INT(opt_defaults(&demo_table, &d, &e), 0);
    CHECK_INT(d.n, 3);   /* "later" (7) is left to whoever resolves it */
    CHECK_NEAR(d.r, 0.05, 1e-12);
    CHECK_INT(d.ms, 5000);
    CHECK_INT(d.bytes, 4096);
    CHECK_STR(d.word, "pear");
    CHECK_INT(d.pick, 2);
    CHECK(d.big == UINT64_MAX);
    CHECK(!d.given);   /* a default is not a value given */
    int later = 0;
    CHECK_INT(opt_default_of(opt_row(demo_rows, "later"), &later, &e), 0);
    CHECK_INT(later, 7);
}

TEST(opt_rows_take_their_type_and_refuse_with_the_accepted_range)
{
    struct demo d;
    sl_err e;
    memset(&d, 0, sizeof d);
    CHECK_INT(set(&d, "--n", "5", &e), 0);
    CHECK_INT(d.n, 5);
    CHECK(d.given);
    CHECK_INT(set(&d, "--n", "6", &e), -1);
    CHECK_STR(e.msg, "--n 6: give a whole number from 1 to 5");
    CHECK_INT(set(&d, "--n", "2x", &e), -1);
    CHECK_STR(e.msg, "--n 2x: give a whole number from 1 to 5");
    CHECK_INT(set(&d, "--n", "99999999999", &e), -1);   /* past an int, not wrapped */
    CHECK_INT(d.n, 5);

    CHECK_INT(set(&d, "--r", "0.25", &e), 0);
    CHECK_NEAR(d.r, 0.25, 1e-12);
    CHECK_INT(set(&d, "--r", "0.5", &e), -1);   /* open bounds */
    CHECK_STR(e.msg, "--r 0.5: give a number above 0 and below 0.5");
    CHECK_INT(set(&d, "--r", "0", &e), -1);
    CHECK_INT(set(&d, "--r", "nan", &e), -1);

    CHECK_INT(set(&d, "--t", "2m", &e), 0);
    CHECK_INT(d.ms, 120000);
    CHECK_INT(set(&d, "--t", "5ms", &e), -1);
    CHECK_STR(e.msg, "--t 5ms: give a duration from 10ms to 1h");
    CHECK_INT(set(&d, "--t", "5 parsecs", &e), -1);   /* a bad unit */
    CHECK_STR(e.msg, "--t 5 parsecs: give a duration from 10ms to 1h");

    CHECK_INT(set(&d, "--s", "1M", &e), 0);
    CHECK_INT(d.bytes, 1 << 20);
    CHECK_INT(set(&d, "--s", "1T", &e), -1);
    CHECK_STR(e.msg, "--s 1T: give a size from 512 to 64M");
    CHECK_INT(set(&d, "--s", "4q", &e), -1);

    CHECK_INT(set(&d, "--w", "plum", &e), 0);
    CHECK_STR(d.word, "plum");
    CHECK_INT(set(&d, "--w", "kiwi", &e), -1);   /* the choices come from the other table */
    CHECK_STR(e.msg, "--w kiwi: one of apple pear plum");

    CHECK_INT(set(&d, "--e", "pear", &e), 0);
    CHECK_INT(d.pick, 1);
    CHECK_INT(set(&d, "--e", "Pear", &e), -1);
    CHECK_STR(e.msg, "--e Pear: one of apple pear plum");
    CHECK_INT(set(&d, "--a", "prune", &e), 0);   /* an alias the table's parser takes */
    CHECK_INT(d.pick, 2);

    CHECK_INT(set(&d, "--u", "12345678901234567890", &e), 0);
    CHECK(d.big == 12345678901234567890ull);
    CHECK_INT(set(&d, "--u", "-1", &e), -1);
    CHECK_STR(e.msg, "--u -1: give a whole number");
}

TEST(opt_describes_choice_rows_from_their_table)
{
    char buf[128];
    CHECK_STR(opt_arg(opt_row(demo_rows, "w"), buf, sizeof buf), "apple|pear|plum");
    CHECK_STR(opt_complete(opt_row(demo_rows, "w"), buf, sizeof buf), "apple pear plum");
    CHECK_STR(opt_accepts(opt_row(demo_rows, "n"), buf, sizeof buf), "give a whole number from 1 to 5");
    sl_err e;
    CHECK_INT(opt_check(opt_row(demo_rows, "t"), 7200000, &e), -1);
    CHECK_STR(e.msg, "--t 2h: give a duration from 10ms to 1h");
}

/* Every default a search or a probe table states parses through its own
 * row: a broken one would abort search_flow_defaults. */
TEST(opt_every_search_and_probe_default_parses)
{
    const struct opt_table *tables[] = { &search_flow_table, &probe_spec_table };
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (int g = 0; g < OPT_GROUPS_MAX && tables[t]->groups[g].rows; g++)
            for (const struct opt *o = tables[t]->groups[g].rows; o->name; o++) {
                if (!o->def || (o->flags & OPT_DEF_WORDS)) continue;
                char scratch[PATH_MAX * 2];   /* as large as any row's field */
                memset(scratch, 0, sizeof scratch);
                sl_err e;
                if (o->type == OPT_CALL && o->set && strcmp(o->name, "budget") != 0) continue;   /* code: tried by its command */
                if (opt_default_of(o, strcmp(o->name, "budget") == 0 ? (void *)&(struct search_spec){ 0 } : scratch, &e) < 0)
                    CHECK_STR(e.msg, "");
            }
    struct search_flow_opts o;
    search_flow_defaults(&o);
    CHECK_STR(o.spec.strategy, "bo");
    CHECK_STR(o.spec.workload, "seqwrite");
    CHECK_INT(o.spec.budget_evals, 40);
    CHECK_INT((int)o.spec.seed, 1);
    CHECK_INT(o.spec.leaders, 3);
    CHECK_INT(o.spec.race_reps, 5);
    CHECK_INT(o.spec.confirm_reps, 0);   /* later: the budget may shrink the default */
    CHECK_INT(probe_spec_default("time"), 5000);
    CHECK_INT(probe_spec_default("repeat"), 1);
}
