/*
 * gdb_target.h — the replay session as the GDB stub's time-travel target
 * (gdbstub/target.h): registers and memory at the current time, stepping
 * and continuing in both directions with breakpoints and watchpoints.
 */
#ifndef TTREC_GDB_TARGET_H
#define TTREC_GDB_TARGET_H

#include <stdint.h>

#include "replayer/replay_session.h"

/* Serves the session to one gdb: on stdin/stdout when port < 0, else on a
 * TCP port (bind_addr NULL: 127.0.0.1), starting at start_time
 * (UINT64_MAX: the start of history; a later time is reached first, with
 * the whole first pass), showing program image `image` of the process
 * (1-based; 0: the last; gdb_images.c). 0, or -1 on a link error or a
 * failed replay. */
int gdb_target_serve(struct replay_session *s, long port, const char *bind_addr,
		     uint64_t start_time, unsigned image);

#endif
