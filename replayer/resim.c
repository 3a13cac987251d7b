/*
 * resim.c — the event loop of a re-simulation: the running thread's
 * events, applied as the emulator reaches them.
 *
 * A thread stream interleaves memory records (consumed by replay_memory.c
 * as the emulator reads) with events, consumed here:
 *   KEY_FRAME(icount)   run the emulator up to icount (an EXIT key frame:
 *                       and fetch the instruction there, as recording did);
 *   CHECKPOINT(icount)  run up to icount, then reset the prediction cache,
 *                       the logged code pages and the decoded code, and
 *                       take the registers;
 *   KERNEL, NATIVE      (always right after a key frame) the registers after
 *                       a syscall, a signal delivery or a natively executed
 *                       instruction; the syscall and the instruction retire
 *                       (so they apply only when the run is to go past
 *                       their time: the state at that time is the one
 *                       before them, rip at the instruction, as a debugger
 *                       single-stepping the live process sees it);
 *   KERNEL CODE_CHANGED forget code pages in a range;
 *   KERNEL_WRITE        (before the KERNEL record of its transition) bytes
 *                       the kernel wrote, into the memory image only; a
 *                       syscall's retire with it;
 *   NONDET              the results of the special instruction the emulator
 *                       stopped at (cpuid, rdtsc, rdtscp, rdrand, rdseed);
 *   SIGNAL              noted for the debugger;
 *   KEY_FRAME(SWITCH)   the thread's slice ends there: resim_threads.c
 *                       picks the thread that runs next.
 * A thread's history ends where its events end; the process's, where every
 * thread's has.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "trace-format/trace_regs.h"
#include "replayer/resim.h"

static enum resim_status fail(struct resim *s, const char *what)
{
	if (!s->error[0])
		snprintf(s->error, sizeof(s->error), "replay diverged from the trace at time %llu: %s",
			 (unsigned long long)resim_now(s), what);
	return RESIM_ERROR;
}

/* The process's parts: the emulator, the memory image, the threads. */
static int open_process(struct resim *s, struct idna_reader *reader, unsigned cache_log2,
			bool jit, struct memory_image *image, struct predict_spares *spares)
{
	memset(s, 0, sizeof(*s));
	s->last_delivery_at = UINT64_MAX;
	s->reader = reader;
	if (process_memory_init(&s->proc, image) != 0) {
		if (spares)
			predict_spares_free(spares);
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	if (spares) {
		s->proc.spares = *spares;
		spares->n = 0;
	}
	/* (A replay carrying spares starts at a saved state: resim_state.c.) */
	if (resim_threads_open(s, cache_log2, spares == NULL) != 0)
		return -1;
	s->cpu = emu_new(&replay_memory_ops, &s->threads[0].mem);
	if (!s->cpu) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	/* Without its code area the interpreter runs on: the same replay. */
	if (jit)
		emu_set_jit(s->cpu, true);
	/* Threads not started yet take their registers from their first
	 * checkpoint; until then they hold the reset state. */
	for (size_t i = 0; i < s->n_threads; i++)
		s->threads[i].regs = *emu_regs(s->cpu);
	return 0;
}

/* A ring trace's history begins (time 0) with the thread whose first
 * checkpoint comes first; the others join at theirs. */
static int start_at_first_checkpoint(struct resim *s)
{
	emu_set_icount(s->cpu, s->threads[0].icount);
	s->clock_offset = 0 - s->threads[0].icount; /* time is counted modulo 2^64 */
	bool switched;
	int r = resim_schedule(s, &switched);
	if (r == 0)
		snprintf(s->error, sizeof(s->error), "the trace keeps no checkpoint to start from");
	return r == 1 ? 0 : -1;
}

int resim_open(struct resim *s, struct idna_reader *reader, unsigned cache_log2, bool jit,
	       struct memory_image *image)
{
	return resim_open_carrying(s, reader, cache_log2, jit, image, NULL);
}

int resim_open_carrying(struct resim *s, struct idna_reader *reader, unsigned cache_log2,
			bool jit, struct memory_image *image, struct predict_spares *spares)
{
	if (open_process(s, reader, cache_log2, jit, image, spares) != 0) {
		resim_close(s);
		return -1;
	}
	for (size_t i = 0; i < s->n_threads; i++) {
		struct resim_thread *t = &s->threads[i];
		if (cursor_open(&t->mem.cursor, reader, t->stream, t->first, CURSOR_MEMORY) != 0 ||
		    cursor_open(&t->events, reader, t->stream, t->first, CURSOR_EVENTS) != 0) {
			snprintf(s->error, sizeof(s->error), "cannot read the trace: %s",
				 t->events.failed ? t->events.error : t->mem.cursor.error);
			resim_close(s);
			return -1;
		}
		cursor_pair(&t->mem.cursor, &t->events);
	}
	if (s->ring_start && start_at_first_checkpoint(s) != 0) {
		resim_close(s);
		return -1;
	}
	return 0;
}

/*
 * A one-thread trace's replay from a checkpoint in the middle of its
 * history: the checkpoint resets everything the replay carries (registers,
 * prediction cache, logged code pages, decoded code: man/idna.5), so the
 * replay from there is the one the whole replay makes. Time keeps the
 * whole replay's origin (a ring trace's first kept checkpoint).
 */
int resim_open_at_checkpoint(struct resim *s, struct idna_reader *reader, unsigned cache_log2,
			     bool jit, struct memory_image *image, const struct idna_checkpoint *cp)
{
	if (open_process(s, reader, cache_log2, jit, image, NULL) != 0)
		goto fail;
	if (s->n_threads > 1) {
		if (resim_start_at_cut(s, cp) != 0)
			goto fail;
		return 0;
	}
	struct resim_thread *t = &s->threads[0];
	if (t->stream != cp->stream) {
		snprintf(s->error, sizeof(s->error),
			 "a replay starts at a checkpoint of a one-thread trace only");
		goto fail;
	}
	uint64_t origin = t->first ? t->first->icount : 0;
	t->first = cp;
	t->icount = cp->icount;
	if (cursor_open(&t->mem.cursor, reader, t->stream, cp, CURSOR_MEMORY) != 0 ||
	    cursor_open(&t->events, reader, t->stream, cp, CURSOR_EVENTS) != 0) {
		snprintf(s->error, sizeof(s->error), "cannot read the trace: %s",
			 t->events.failed ? t->events.error : t->mem.cursor.error);
		goto fail;
	}
	cursor_pair(&t->mem.cursor, &t->events);
	emu_set_icount(s->cpu, cp->icount);
	s->clock_offset = 0 - origin;
	bool switched;
	/* A ring's thread starts at its checkpoint through the scheduler. */
	if (!t->started && resim_schedule(s, &switched) != 1)
		goto fail;
	return 0;
fail:
	resim_close(s);
	return -1;
}

void resim_close(struct resim *s)
{
	resim_threads_close(s);
	process_memory_fini(&s->proc);
	emu_free(s->cpu);
	s->cpu = NULL;
	resim_cut_memo_free(s->cut_memo);
	s->cut_memo = NULL;
}

static void take_regs(struct resim *s, const struct idna_regs *regs)
{
	trace_regs_to_emu(regs, emu_regs(s->cpu));
}

static void apply_checkpoint(struct resim *s, const struct idna_record *cp)
{
	take_regs(s, cp->u.checkpoint.regs);
	replay_memory_checkpoint(&resim_current(s)->mem);
	/* The recorder's blocks fetched their bytes again here (logging
	 * their pages anew) and kept their decoding and translation: so do
	 * the replay's, which then take the same CODE_PAGE records. */
	emu_refetch_code(s->cpu);
	s->counts.checkpoints++;
}

/* A new program image: what the memory image knew is gone. */
static void start_new_image(struct resim *s)
{
	memory_image_forget(s->proc.image, 0, UINT64_MAX);
	if (s->proc.log)
		pass_log_range(s->proc.log, PASS_LOG_FORGET, 0, UINT64_MAX);
	s->counts.execs++;
	s->counts.last_exec_time = resim_now(s);
}

/* Applies a KERNEL or NATIVE record at the current instruction. */
static void apply_transition(struct resim *s, const struct idna_record *ev)
{
	s->proc.transition_time = resim_now(s);
	if (ev->type == IDNA_REC_NATIVE) {
		take_regs(s, ev->u.native.regs);
		emu_set_icount(s->cpu, emu_icount(s->cpu) + 1);
		s->counts.native_steps++;
		/* Its memory writes reach replay as prediction misses. */
		emu_invalidate_code(s->cpu, 0, UINT64_MAX);
		return;
	}
	take_regs(s, ev->u.kernel.regs);
	if (ev->u.kernel.kind == IDNA_KERNEL_SIGNAL_DELIVERY) {
		s->delivery_pending = false;
		s->last_delivery_at = resim_now(s);
	}
	if (ev->u.kernel.kind == IDNA_KERNEL_SYSCALL) {
		emu_set_icount(s->cpu, emu_icount(s->cpu) + 1);
		s->counts.syscalls++;
		if ((ev->u.kernel.nr == SYS_execve || ev->u.kernel.nr == SYS_execveat) &&
		    ev->u.kernel.result == 0)
			start_new_image(s);
		if (ev->u.kernel.nr == SYS_clone || ev->u.kernel.nr == SYS_clone3)
			resim_note_clone(s, (int64_t)ev->u.kernel.result);
	}
}

/*
 * Bytes the kernel wrote at the transition that follows: into the image
 * the debugger is shown, and a write of this time for watchpoints and the
 * first pass's written-pages summaries. Not into the prediction cache:
 * the recorder's did not see them either (the program's reads of them
 * are misses in the log, as before these records existed).
 */
/*
 * A range the kernel made zero or unknown (man/idna.5): the image stops
 * showing what it knew there. Zeros go only into pages the image holds;
 * the rest of the range, like an unknown one, is unknown until the
 * program reads it. The first pass also blocks the range in the future
 * image: a first read before this time showed bytes that no longer hold,
 * and a read after it is then a first read again, valid from its own
 * transition on.
 */
static void apply_kernel_range(struct resim *s, const struct idna_record *ev)
{
	struct process_memory *p = &s->proc;
	uint64_t addr = ev->u.kernel_write.addr, span = ev->u.kernel_write.span;
	if (!span)
		return;
	if (ev->u.kernel_write.flags & IDNA_KWRITE_ZERO)
		memory_image_zero_held(p->image, addr, span);
	else
		memory_image_forget(p->image, addr, span);
	/* An mmap of a file: its bytes are the file's from now on. */
	const struct emu_regs *r = emu_regs(s->cpu);
	bool file = !(ev->u.kernel_write.flags & IDNA_KWRITE_ZERO) && r->gpr[EMU_RAX] == SYS_mmap &&
		    !(r->gpr[EMU_R10] & MAP_ANONYMOUS);
	uint64_t now = resim_now(s);
	if (p->future)
		memory_image_block_future(p->future, addr, span, now, file);
	if (p->log) {
		bool zero = ev->u.kernel_write.flags & IDNA_KWRITE_ZERO;
		pass_log_range(p->log, zero ? PASS_LOG_ZERO : PASS_LOG_FORGET, addr, span);
		pass_log_block(p->log, addr, span, now, file);
	}
}

static void apply_kernel_write(struct resim *s, const struct idna_record *ev)
{
	struct process_memory *p = &s->proc;
	uint64_t addr = ev->u.kernel_write.addr;
	uint32_t len = ev->u.kernel_write.len;
	if (ev->u.kernel_write.flags & IDNA_KWRITE_RANGE) {
		apply_kernel_range(s, ev);
		return;
	}
	if (!len || addr + len < addr)
		return;
	memory_image_store(p->image, addr, ev->u.kernel_write.bytes, len);
	process_memory_note_written(p, addr, len);
	if (p->on_access) {
		s->in_kernel_write = true;
		p->on_access(p->access_ctx, addr, len, true);
		s->in_kernel_write = false;
	}
}

/* A syscall's KERNEL_WRITE records come before its KERNEL record: with
 * stop_at_syscalls, its entry is reported at the first of them, before
 * they apply (the emulator stands at the syscall: rax is its number). */
static bool syscall_entry_before_write(struct resim *s, const struct idna_record *ev)
{
	if (!s->stop_at_syscalls || s->syscall_entry_reported ||
	    (ev->u.kernel_write.flags & (IDNA_KWRITE_SIGNAL_FRAME | IDNA_KWRITE_IMAGE)))
		return false;
	s->syscall_nr = emu_regs(s->cpu)->gpr[EMU_RAX];
	s->syscall_entry_reported = true;
	return true;
}

/* The results of the special instruction the emulator stopped at. */
static enum resim_status apply_nondet(struct resim *s, const struct idna_record *ev)
{
	const struct emu_exit_info *x = emu_exit_info(s->cpu);
	struct emu_regs *r = emu_regs(s->cpu);
	const uint64_t *out = ev->u.nondet.out;
	if (x->reason != EMU_EXIT_SPECIAL)
		return fail(s, "a non-deterministic result where the emulator did not stop");
	switch (ev->u.nondet.kind) {
	case IDNA_NONDET_CPUID:
		if (x->special != EMU_SPECIAL_CPUID || ev->u.nondet.n_out < 4)
			return fail(s, "a cpuid result for another instruction");
		r->gpr[EMU_RAX] = (uint32_t)out[0];
		r->gpr[EMU_RBX] = (uint32_t)out[1];
		r->gpr[EMU_RCX] = (uint32_t)out[2];
		r->gpr[EMU_RDX] = (uint32_t)out[3];
		break;
	case IDNA_NONDET_RDTSC:
	case IDNA_NONDET_RDTSCP:
		if ((x->special != EMU_SPECIAL_RDTSC && x->special != EMU_SPECIAL_RDTSCP) ||
		    ev->u.nondet.n_out < 1)
			return fail(s, "a time-stamp result for another instruction");
		r->gpr[EMU_RAX] = (uint32_t)out[0];
		r->gpr[EMU_RDX] = out[0] >> 32;
		if (ev->u.nondet.kind == IDNA_NONDET_RDTSCP && ev->u.nondet.n_out >= 2)
			r->gpr[EMU_RCX] = (uint32_t)out[1];
		break;
	case IDNA_NONDET_RDRAND:
	case IDNA_NONDET_RDSEED:
		if ((x->special != EMU_SPECIAL_RDRAND && x->special != EMU_SPECIAL_RDSEED) ||
		    ev->u.nondet.n_out < 2)
			return fail(s, "a random number for another instruction");
		emu_complete_random(s->cpu, out[0], out[1] != 0);
		return RESIM_AT_TARGET;
	default:
		return fail(s, "a non-deterministic result of an unknown kind");
	}
	emu_skip_insn(s->cpu);
	return RESIM_AT_TARGET;
}

/*
 * The running thread's stream has ended, or its slice has: hands the
 * emulator to the thread the recording ran next. Returns false when the
 * loop must return *status (the end of history, an error, or a switch the
 * caller wants to see).
 */
static bool next_slice(struct resim *s, enum resim_status *status)
{
	bool switched;
	int r = resim_schedule(s, &switched);
	if (r < 0) {
		*status = RESIM_ERROR;
		return false;
	}
	if (r == 0) {
		s->ended = true;
		*status = RESIM_END;
		return false;
	}
	if (switched && s->stop_at_switch) {
		*status = RESIM_SWITCHED;
		return false;
	}
	return true;
}

/* A record that retires the instruction at rip (a syscall's return and
 * the outputs it wrote, a natively executed instruction): the time it
 * applies at shows that instruction not yet executed, so a syscall's
 * buffers still hold what they held before it, as on a live process
 * stopped at the syscall instruction. Signal frames and a new image's
 * bytes are part of the state at their time. */
static bool retires_instruction(const struct idna_record *ev)
{
	return ev->type == IDNA_REC_NATIVE ||
	       (ev->type == IDNA_REC_KERNEL && ev->u.kernel.kind == IDNA_KERNEL_SYSCALL) ||
	       (ev->type == IDNA_REC_KERNEL_WRITE &&
		!(ev->u.kernel_write.flags & (IDNA_KWRITE_SIGNAL_FRAME | IDNA_KWRITE_IMAGE)));
}

/*
 * Consumes the events that apply at the running thread's current
 * instruction count, up to one that retires an instruction when the run
 * has reached target. Returns the thread's instruction count to run to next
 * (UINT64_MAX: to the next emulator stop), or sets *status when the loop
 * must return.
 */
static uint64_t settle_events(struct resim *s, uint64_t target, bool *done,
			      enum resim_status *status)
{
	for (;;) {
		struct record_cursor *events = &resim_current(s)->events;
		const struct idna_record *ev = cursor_peek(events);
		uint64_t now = emu_icount(s->cpu);
		if (!ev) {
			if (events->failed) {
				snprintf(s->error, sizeof(s->error), "cannot read the trace: %s",
					 events->error);
				*done = true;
				*status = RESIM_ERROR;
				return now;
			}
			if (!next_slice(s, status)) {
				*done = true;
				return emu_icount(s->cpu);
			}
			continue;
		}
		if (retires_instruction(ev) && resim_now(s) >= target) {
			*done = true;
			*status = RESIM_AT_TARGET;
			return now;
		}
		if (retires_instruction(ev) && !s->transition_begun && s->at_retired_insn &&
		    s->at_retired_insn(s->retired_insn_ctx, emu_regs(s->cpu)->rip)) {
			*done = true;
			*status = RESIM_STOPPED;
			return now;
		}
		switch (ev->type) {
		case IDNA_REC_KEY_FRAME:
			if (ev->u.key.icount > now)
				return ev->u.key.icount;
			if (ev->u.key.icount < now) {
				*done = true;
				*status = fail(s, "the replay is past a key frame");
				return now;
			}
			if (ev->u.key.reason == IDNA_KEY_SWITCH) {
				/* The slice is over; the frame stays pending until
				 * this thread's turn comes again. */
				if (!next_slice(s, status)) {
					*done = true;
					return emu_icount(s->cpu);
				}
				continue;
			}
			if (ev->u.key.reason == IDNA_KEY_EXIT)
				emu_fetch_current(s->cpu);
			break;
		case IDNA_REC_CHECKPOINT:
			if (ev->u.checkpoint.icount > now)
				return ev->u.checkpoint.icount;
			if (ev->u.checkpoint.icount < now) {
				*done = true;
				*status = fail(s, "the replay is past a checkpoint");
				return now;
			}
			apply_checkpoint(s, ev);
			break;
		case IDNA_REC_KERNEL:
			if (ev->u.kernel.kind == IDNA_KERNEL_CODE_CHANGED) {
				process_memory_code_changed(&s->proc, ev->u.kernel.nr, ev->u.kernel.result);
				emu_invalidate_code(s->cpu, ev->u.kernel.nr, ev->u.kernel.result);
			} else if (ev->u.kernel.kind == IDNA_KERNEL_SYSCALL && s->stop_at_syscalls) {
				/* Two stops: before the syscall, then after it. */
				s->syscall_nr = ev->u.kernel.nr;
				*done = true;
				if (!s->syscall_entry_reported) {
					s->syscall_entry_reported = true;
					*status = RESIM_SYSCALL_ENTRY;
					return now;
				}
				s->syscall_entry_reported = false;
				s->transition_begun = false;
				apply_transition(s, ev);
				cursor_next(events);
				*status = RESIM_SYSCALL_RETURN;
				return emu_icount(s->cpu);
			} else {
				s->syscall_entry_reported = false;
				s->transition_begun = false;
				apply_transition(s, ev);
			}
			break;
		case IDNA_REC_NATIVE:
			s->transition_begun = false;
			apply_transition(s, ev);
			break;
		case IDNA_REC_KERNEL_WRITE:
			if (s->stop_before_kernel_write) {
				*done = true;
				*status = RESIM_STOPPED;
				return now;
			}
			if (syscall_entry_before_write(s, ev)) {
				*done = true;
				*status = RESIM_SYSCALL_ENTRY;
				return now;
			}
			if (retires_instruction(ev))
				s->transition_begun = true;
			apply_kernel_write(s, ev);
			break;
		case IDNA_REC_SIGNAL:
			s->counts.signals++;
			s->counts.last_signal = ev->u.signal.signo;
			s->counts.last_signal_time = resim_now(s);
			if (s->stop_at_signals) {
				/* The delivery (a KERNEL record) comes next. */
				cursor_next(events);
				s->delivery_pending = true;
				*done = true;
				*status = RESIM_SIGNAL;
				return now;
			}
			break;
		case IDNA_REC_NONDET:
			return UINT64_MAX; /* applies where the emulator stops */
		default:
			break; /* records of other kinds do not affect the thread */
		}
		cursor_next(events);
	}
}

/* The emulator stopped where the running thread's events end: that thread
 * is done (the recording stopped it there), and so may be history. */
static bool stream_ends_here(struct resim *s, enum resim_status *status)
{
	struct record_cursor *events = &resim_current(s)->events;
	if (cursor_peek(events) || events->failed)
		return false;
	if (next_slice(s, status))
		*status = RESIM_AT_TARGET; /* another thread runs on */
	return true;
}

/* Why the emulator stopped at an instruction the trace does not explain. */
static enum resim_status unexplained_exit(struct resim *s, enum emu_exit e)
{
	const struct emu_exit_info *x = emu_exit_info(s->cpu);
	char what[160];
	if (e == EMU_EXIT_FAULT)
		snprintf(what, sizeof(what),
			 "the emulator raised %s (address %#llx) at %#llx where the recording did not",
			 emu_fault_name(x->fault), (unsigned long long)x->fault_addr,
			 (unsigned long long)emu_regs(s->cpu)->rip);
	else
		snprintf(what, sizeof(what), "%s at %#llx is not emulated here", x->mnemonic,
			 (unsigned long long)emu_regs(s->cpu)->rip);
	return fail(s, what);
}

enum resim_status resim_run(struct resim *s, uint64_t target)
{
	if (s->ended)
		return RESIM_END;
	for (;;) {
		bool done = false;
		enum resim_status status = RESIM_AT_TARGET;
		uint64_t next = settle_events(s, target, &done, &status);
		if (done)
			return status;
		uint64_t now = resim_now(s);
		if (now >= target)
			return RESIM_AT_TARGET;
		uint64_t own = emu_icount(s->cpu);
		uint64_t budget = target - now;
		if (next != UINT64_MAX && next - own < budget)
			budget = next - own;
		if (next == UINT64_MAX) {
			/* A nondet record waits for a special instruction: run no
			 * further than the stream's counts go (resim_bounds.c). */
			int at_end = resim_wait_budget(s, own, &budget);
			if (at_end < 0)
				return RESIM_ERROR;
			if (at_end)
				return fail(s, "the replay reached the last instruction count the trace "
					       "declares for this thread without the special instruction "
					       "its next record completes");
		}
		s->delivery_pending = false; /* (a signal the program ignored) */
		enum emu_exit e = emu_run(s->cpu, budget);
		struct replay_memory *mem = &resim_current(s)->mem;
		if (mem->diverged)
			return fail(s, mem->why);
		if (mem->cursor.failed)
			return fail(s, mem->cursor.error);
		switch (e) {
		case EMU_EXIT_LIMIT:
			break;
		case EMU_EXIT_STOPPED:
			return RESIM_STOPPED;
		case EMU_EXIT_SPECIAL: {
			struct record_cursor *events = &resim_current(s)->events;
			const struct idna_record *ev = cursor_peek(events);
			if (!ev || ev->type != IDNA_REC_NONDET) {
				if (stream_ends_here(s, &status)) {
					if (status != RESIM_AT_TARGET)
						return status;
					break;
				}
				return fail(s, "the emulator stopped at a special instruction the trace does not explain");
			}
			if (apply_nondet(s, ev) == RESIM_ERROR)
				return RESIM_ERROR;
			cursor_next(events);
			break;
		}
		case EMU_EXIT_UNIMPLEMENTED:
		case EMU_EXIT_FAULT:
			if (stream_ends_here(s, &status)) {
				if (status != RESIM_AT_TARGET)
					return status;
				break;
			}
			return unexplained_exit(s, e);
		}
	}
}
