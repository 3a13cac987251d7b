/*
 * history.h — the test target's complete record of one run: the general
 * registers before every instruction and a log of every memory access with
 * old and new bytes for writes, so any time can be reached by undoing or
 * redoing writes. Made for small programs only (a few hundred bytes per
 * instruction).
 */
#ifndef GDBSTUB_TARGET_HISTORY_H
#define GDBSTUB_TARGET_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "image.h"

/* What changes per instruction in the programs the target runs. */
struct history_state {
	uint64_t gpr[EMU_GPR_COUNT];
	uint64_t rip, rflags;
};

struct history_access {
	uint64_t addr;
	uint32_t len;
	bool is_write;
	size_t data; /* writes: old bytes at pool[data], new at pool[data+len] */
};

enum history_end { HISTORY_EXITED, HISTORY_SIGNALLED, HISTORY_TRUNCATED };

struct history {
	struct image *image;        /* always in the state at time `now` */
	struct emu_regs fixed;      /* all state but history_state: constant */
	struct history_state *states; /* [0, insns]: before each instruction */
	uint64_t insns;             /* instructions in the history */
	struct history_access *accesses;
	size_t access_count, access_cap;
	size_t *first_access;       /* [0, insns]: instruction i's are
				     * [first_access[i], first_access[i+1]) */
	uint8_t *pool;
	size_t pool_len, pool_cap;
	uint64_t now;
	enum history_end end;
	int exit_status;            /* HISTORY_EXITED */
	int signo;                  /* HISTORY_SIGNALLED: at the last state */
};

/*
 * Runs the program in image from its entry point for at most max_insns
 * instructions, performing write and exit itself (write's bytes go to
 * stderr). Leaves the history at time 0. False on a setup failure
 * (message on stderr); an instruction the emulator cannot run ends the
 * history there instead.
 */
bool history_record(struct history *h, struct image *image, uint64_t max_insns);
void history_free(struct history *h);

/* Moves memory to time t (t <= insns). */
void history_goto(struct history *h, uint64_t t);

/* The full register state at the current time. */
void history_regs(const struct history *h, struct emu_regs *out);

#endif
