/*
 * diversion.h — a throwaway continuation of the replay, for what gdb does
 * that the recording never did: an expression that calls a function in
 * the program, `set var`. A diversion starts from one thread's state at
 * the current time and runs that thread alone in an emulator of its own,
 * over a copy-on-write copy of the memory known then; nothing from the
 * trace is read after that time, and the replay itself does not move.
 * Freeing it is going back to the recording exactly as it was.
 *
 * Inside, there is no trace to follow: a system call is not made (it
 * returns -ENOSYS) but for writes to standard output and error, which go
 * to the run's output callback, an instruction whose result the kernel or the CPU
 * would decide (cpuid, rdtsc, rdrand...) gets zeros, and a read of memory
 * whose value the recording never revealed faults (SIGSEGV) as a read of
 * unmapped memory would. Each of these is told through `say`.
 */
#ifndef TTREC_DIVERSION_H
#define TTREC_DIVERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "replayer/replay_session.h"

struct diversion;

/* Starts from thread k of s at its current time. NULL when memory is
 * short. The session must not move while the diversion lives. */
struct diversion *diversion_new(struct replay_session *s, size_t k);
void diversion_free(struct diversion *d);

/* The thread that runs in the diversion (an index of s->sim.threads);
 * another one takes its place with its registers as recorded now. */
size_t diversion_thread(const struct diversion *d);
void diversion_set_thread(struct diversion *d, size_t k);
/* Its registers, readable and writable. */
struct emu_regs *diversion_regs(struct diversion *d);

/* Memory as the diversion sees it: what it wrote, else what the replay
 * shows at its time. Returns how many leading bytes are known. */
size_t diversion_read_memory(struct diversion *d, uint64_t addr, void *buf, size_t len);
/* Writes into the diversion's copy; false when a byte lies in a page of
 * which the recording revealed nothing (not known to be mapped). */
bool diversion_write_memory(struct diversion *d, uint64_t addr, const void *buf, size_t len);

enum diversion_stop_reason {
	DIVERSION_STEPPED,
	DIVERSION_BREAKPOINT,  /* before the instruction at a breakpoint */
	DIVERSION_SIGNAL,      /* signo: the instruction at rip faulted */
	DIVERSION_INTERRUPTED,
};

struct diversion_run {
	bool step;  /* one instruction, breakpoints ignored */
	/* Whether to stop before the instruction at rip (never before the
	 * first one of the run). */
	bool (*breakpoint)(void *ctx, uint64_t rip);
	/* Asked now and then (NULL: never): true stops the run. */
	bool (*interrupted)(void *ctx);
	/* Tells the user what the diversion could not do (may be NULL). */
	void (*say)(void *ctx, const char *text);
	/* What the function writes to its standard output and error
	 * (diversion_write.h; NULL: those writes are refused too). */
	void (*output)(void *ctx, const char *bytes, size_t len);
	void *ctx, *interrupt_ctx, *say_ctx, *output_ctx;
};

/* Runs the diversion's thread. The reason it stopped, and for a signal
 * its Linux number in *signo. */
enum diversion_stop_reason diversion_run(struct diversion *d, const struct diversion_run *r,
					 int *signo);

#endif
