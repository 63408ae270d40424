/* interrupt — the signal handler and its flag. */
#include "core/interrupt.h"

#include <string.h>

volatile sig_atomic_t interrupt_signal;

static void on_signal(int sig)
{
    interrupt_signal = sig;
}

void interrupt_trap(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

void interrupt_untrap(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}
