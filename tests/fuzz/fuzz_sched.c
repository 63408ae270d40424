/* knob_sched_parse: a queue/scheduler file ("none [mq-deadline] kyber bfq"),
 * a bare name (bio-based dm, fixtures) or garbage. */
#include "fuzz.h"
#include "core/knob.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    char active[64], offered[256];
    int rc = knob_sched_parse(text, active, sizeof active, offered, sizeof offered);
    FUZZ_ASSERT(strlen(active) < sizeof active && strlen(offered) < sizeof offered);
    FUZZ_ASSERT(rc == 0 ? active[0] != 0 : active[0] == 0);
    /* The active name is one word: it is written back as is on restore. */
    FUZZ_ASSERT(strcspn(active, " \t\n") == strlen(active));
    /* Tiny buffers and NULL outputs are allowed by the contract too. */
    char a1[1], o1[1];
    knob_sched_parse(text, a1, sizeof a1, o1, sizeof o1);
    FUZZ_ASSERT(a1[0] == 0 && o1[0] == 0);
    knob_sched_parse(text, active, sizeof active, NULL, 0);
    knob_sched_parse(text, NULL, 0, offered, sizeof offered);
    free(text);
    return 0;
}
