/*
 * resim.h — re-simulation of one thread's stream: the emulator runs the
 * recorded instructions again, its reads answered by the prediction cache
 * and the log, its kernel transitions and non-deterministic instructions
 * replaced by their logged results (DESIGN.md, Replaying). Nothing from the
 * trace is ever executed natively.
 */
#ifndef TTREC_RESIM_H
#define TTREC_RESIM_H

#include <stdbool.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "replayer/record_cursor.h"
#include "replayer/replay_memory.h"
#include "trace-format/idna.h"

enum resim_status {
	RESIM_AT_TARGET,  /* the requested instruction count was reached */
	RESIM_STOPPED,    /* the observer stopped it (breakpoint, watchpoint) */
	RESIM_SIGNAL,     /* stop_at_signals: a signal is delivered here next */
	RESIM_SYSCALL_ENTRY,  /* stop_at_syscalls: syscall_nr is made here next */
	RESIM_SYSCALL_RETURN, /* stop_at_syscalls: syscall_nr has just returned */
	RESIM_END,        /* the recorded history ends here */
	RESIM_ERROR,      /* the trace and the replay disagree, or it is unreadable */
};

struct resim {
	struct idna_reader *reader;
	uint32_t stream;
	struct emu_cpu *cpu;
	struct replay_memory mem;
	struct record_cursor events;
	bool ended;
	char error[320];
	uint64_t syscalls, signals, checkpoints, native_steps;
	bool stop_at_signals;     /* return RESIM_SIGNAL before each delivery */
	bool stop_at_syscalls;    /* return at each syscall's entry and return */
	bool syscall_entry_reported;
	uint64_t syscall_nr;      /* of the last RESIM_SYSCALL_* */
	int last_signal;          /* the last SIGNAL record passed, 0 if none */
	uint64_t last_signal_icount;
};

/*
 * Starts at a checkpoint (NULL: the stream's beginning) with `image` as the
 * memory known so far (the resim owns it from then on). 0, or -1 with
 * s->error set.
 */
int resim_open(struct resim *s, struct idna_reader *reader, uint32_t stream,
	       unsigned cache_log2, const struct idna_checkpoint *from,
	       struct memory_image *image);
void resim_close(struct resim *s);

/*
 * Everything a re-simulation needs to resume at one instruction: taken by
 * the first pass every few million instructions, so that going back in
 * time replays at most that far (trace checkpoints can be much rarer).
 */
struct resim_state {
	uint64_t icount;
	struct emu_regs regs;
	uint8_t *cache_bytes;
	uint64_t cache_hits, cache_misses, cache_hits_since_miss;
	struct code_page_set *code_pages;
	struct cursor_position memory_pos, events_pos;
	uint64_t transition_icount;
	uint64_t syscalls, signals, checkpoints, native_steps;
	int last_signal;
	uint64_t last_signal_icount;
	struct memory_image *image;
};

/* Saves the current state (its image shares pages with the live one).
 * 0, or -1 when memory is short or the trace could not be read. */
int resim_save(struct resim *s, struct resim_state *out);
void resim_state_free(struct resim_state *st);

/* Starts a re-simulation at a saved state (with a copy of its image). */
int resim_open_state(struct resim *s, struct idna_reader *reader, uint32_t stream,
		     unsigned cache_log2, const struct resim_state *st);

/* Runs until emu_icount() == target, the observer stops it, or history
 * ends. */
enum resim_status resim_run(struct resim *s, uint64_t target);

static inline uint64_t resim_now(const struct resim *s)
{
	return emu_icount(s->cpu);
}

#endif
