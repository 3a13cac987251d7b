/*
 * supervisor_signals.h — what ttrec does with the signals sent to itself
 * while it records a program it started (man/ttrec.1, SIGNALS SENT TO
 * TTREC). ttrec and the program share a process group, as the program
 * natively shares its caller's: a signal to the group reaches the program
 * anyway, so ttrec must neither die of its own copy nor pass it on twice.
 *
 * - From the terminal or the kernel (Ctrl-C, Ctrl-\, a hangup), from
 *   ttrec itself, or from the program or a process it started: ignored
 *   by ttrec. Aimed at the group, the program has its own copy; aimed at
 *   ttrec alone (kill(getppid(), ...)), it would natively have reached
 *   the program's parent, which ttrec stands in for as an interactive
 *   shell does.
 * - SIGINT, SIGTERM or SIGHUP from any other process (a user's kill,
 *   ttrec's parent such as timeout(1)): the recording ends. The program is killed (SIGKILL) at once, even
 *   if it waits in a system call; its death ends the trace, which is
 *   closed complete.
 * - Other signals from other processes: ignored.
 *
 * Only signals whose default action ends a process and that ttrec does
 * not ignore already are caught (an ignored one stays ignored, and the
 * program inherits that as it would natively); the program gets the
 * default actions back at its exec. Faults (SIGSEGV & co.) are ttrec's
 * own and keep their default.
 */
#ifndef TTREC_SUPERVISOR_SIGNALS_H
#define TTREC_SUPERVISOR_SIGNALS_H

#include <stdbool.h>
#include <sys/types.h>

/* Installs the handlers. 0, or -1 with errno. */
int supervisor_signals_install(void);
/* The program's process id, once it runs (the one killed on a request). */
void supervisor_signals_set_program(pid_t pid);
/* The signal that asked to end the recording (0 if none), its sender in
 * *sender. */
int supervisor_signals_stop_request(pid_t *sender);

#endif
