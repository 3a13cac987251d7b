/*
 * undo_log.h — what the last instructions of a forward replay changed, so
 * that a backward single step inside that stretch is an undo instead of a
 * restore and a replay.
 *
 * While a replay runs forward under the log (undo_log_start ..
 * undo_log_stop), each instruction the emulator starts leaves the running
 * thread's whole register state (vector and x87 included) and, for every
 * memory access it makes, the bytes the debugger was shown there just
 * before (replay_session_read_memory: a read can teach the image bytes it
 * did not know, a write changes them). The stretch the log covers is cut
 * wherever anything else happened between two instructions: another
 * thread ran, a record of the thread's streams was taken (kernel
 * transitions, key frames, checkpoints, signals, logged misses), the
 * counts or a signal's delivery state changed, an access's old bytes were
 * not all known. So from the replay's state at the stretch's end, the
 * state at any time inside it is the same with the thread's registers as
 * logged and the memory accesses made since undone; nothing else of what
 * the debugger is shown differs.
 */
#ifndef TTREC_UNDO_LOG_H
#define TTREC_UNDO_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "replayer/replay_session.h"

/* The most instructions a log keeps (the last ones of a run). */
#define UNDO_LOG_INSNS 512

/* What must stay the same between two instructions of one stretch. */
struct undo_mark {
	size_t thread;
	uint64_t events_taken, memory_taken;
	struct resim_counts counts;
	bool delivery_pending, ended, transition_begun, in_kernel_write;
	uint64_t last_delivery_at;
};

struct undo_access {
	uint64_t addr;
	uint32_t len, at; /* its old bytes: bytes[at, at + len) */
	bool write;       /* (for watchpoints: gdb_undo.c) */
};

struct undo_log {
	struct replay_session *s;
	bool running;   /* between undo_log_start and undo_log_stop */
	bool valid;     /* stopped at the end of a stretch: it can be used */
	/* Instruction i (0 <= i < n) ran at time first + i; its accesses are
	 * acc[acc_from[i], acc_from[i + 1]) (acc_from[n] == n_acc). */
	uint64_t first;
	size_t n;
	struct emu_regs *regs;  /* UNDO_LOG_INSNS of them */
	size_t *acc_from;       /* UNDO_LOG_INSNS + 1 */
	struct undo_access *acc;
	size_t n_acc, cap_acc;
	uint8_t *bytes;
	size_t n_bytes, cap_bytes;
	struct undo_mark mark;  /* at the last instruction's start */
	bool broken;            /* the last instruction cannot be undone */
};

/* Starts logging the session's replay: its runs until undo_log_stop go
 * through the log (an emulator observer and the memory's before_access
 * hook, which must be free). */
void undo_log_start(struct undo_log *log, struct replay_session *s);
/* Stops it: the log is valid when the replay stands at the end of a
 * stretch of at least one instruction. */
void undo_log_stop(struct undo_log *log);
void undo_log_forget(struct undo_log *log);
void undo_log_free(struct undo_log *log);

/* Whether the state at time `at` (the replay standing at the log's end)
 * can be shown from the log: [first, first + n) when valid. */
bool undo_log_covers(const struct undo_log *log, uint64_t at);
/* The time the replay stands at (the stretch's end), when valid. */
uint64_t undo_log_end(const struct undo_log *log);
/* The thread the stretch ran. */
size_t undo_log_thread(const struct undo_log *log);
/* Its registers at time `at` (covered). */
const struct emu_regs *undo_log_regs(const struct undo_log *log, uint64_t at);
/* The memory accesses the instruction at time `at` (covered) made, in
 * their order: *n of them (their old bytes are the log's). */
const struct undo_access *undo_log_accesses(const struct undo_log *log, uint64_t at, size_t *n);
/* Memory at time `at` (covered): the session's, with every access made
 * from `at` on undone. The bytes read (from the start). */
size_t undo_log_read_memory(const struct undo_log *log, uint64_t at, uint64_t addr, void *buf,
			    size_t len);

#endif
