/*
 * target.h — the test target's history served through the gdbstub target
 * interface, with its breakpoints and watchpoints.
 */
#ifndef GDBSTUB_TARGET_TARGET_H
#define GDBSTUB_TARGET_TARGET_H

#include "gdbstub/target.h"
#include "history.h"

struct breakpoint {
	enum gdbstub_break_kind kind;
	uint64_t addr, len;
	unsigned refs;
};

struct history_target {
	struct history *history;
	struct breakpoint *breaks;
	size_t break_count;
};

/* The one thread's id. */
#define HISTORY_TID 1

extern const struct gdbstub_target_ops history_target_ops;

#endif
