/*
 * stderr_to_tty.h — ttreplay's messages off the socket gdb polls.
 */
#ifndef REPLAYER_STDERR_TO_TTY_H
#define REPLAYER_STDERR_TO_TTY_H

#include <stdbool.h>

/* When standard error is a socket (gdb's channel for the standard error
 * of `target remote | COMMAND`) and the parent's (gdb's) own standard
 * error is a terminal or a pipe, makes that standard error ours: gdb then
 * reads the end of its socket and stops polling it. True when it moved. */
bool stderr_to_tty(void);

#endif
