/* interrupt — SIGINT, SIGTERM and SIGHUP turned into a flag instead of an
 * exit, so a long operation (a probe, a search, a tuning session) stops at
 * its next check and puts back what it changed before it exits. A core
 * module of its own, so the probe engine can check it without the session
 * layer and the store above it. */
#ifndef SLUICE_INTERRUPT_H
#define SLUICE_INTERRUPT_H

#include <signal.h>

/* The signal that asked to stop (0: none). Only the handler sets it. */
extern volatile sig_atomic_t interrupt_signal;
/* From now on the three signals set interrupt_signal; interrupt_untrap
 * gives them their default action back. */
void interrupt_trap(void);
void interrupt_untrap(void);

#endif
