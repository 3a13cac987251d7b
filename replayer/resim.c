/*
 * resim.c — the event loop of a re-simulation.
 *
 * The thread stream interleaves memory records (consumed by replay_memory.c
 * as the emulator reads) with events, consumed here:
 *   KEY_FRAME(icount)   run the emulator up to icount (an EXIT key frame:
 *                       and fetch the instruction there, as recording did);
 *   CHECKPOINT(icount)  run up to icount, then reset the prediction cache,
 *                       the logged code pages and the decoded code, and
 *                       take the registers;
 *   KERNEL, NATIVE      (always right after a key frame) the registers after
 *                       a syscall, a signal delivery or a natively executed
 *                       instruction; the syscall and the instruction retire;
 *   KERNEL CODE_CHANGED forget code pages in a range;
 *   NONDET              the results of the special instruction the emulator
 *                       stopped at (cpuid, rdtsc, rdtscp);
 *   SIGNAL              noted for the debugger.
 * History ends where the events end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "recorder/trace_regs.h"
#include "replayer/resim.h"

static enum resim_status fail(struct resim *s, const char *what)
{
	if (!s->error[0])
		snprintf(s->error, sizeof(s->error), "replay diverged from the trace at instruction %llu: %s",
			 (unsigned long long)emu_icount(s->cpu), what);
	return RESIM_ERROR;
}

int resim_open(struct resim *s, struct idna_reader *reader, uint32_t stream,
	       unsigned cache_log2, const struct idna_checkpoint *from,
	       struct memory_image *image)
{
	memset(s, 0, sizeof(*s));
	s->reader = reader;
	s->stream = stream;
	if (replay_memory_init(&s->mem, cache_log2, image) != 0) {
		memory_image_free(image);
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	s->cpu = emu_new(&replay_memory_ops, &s->mem);
	if (!s->cpu ||
	    cursor_open(&s->mem.cursor, reader, stream, from, CURSOR_MEMORY) != 0 ||
	    cursor_open(&s->events, reader, stream, from, CURSOR_EVENTS) != 0) {
		snprintf(s->error, sizeof(s->error), "cannot read the trace: %s",
			 s->events.failed ? s->events.error : s->mem.cursor.error);
		resim_close(s);
		return -1;
	}
	/* The checkpoint record comes first and applies at its own time. */
	if (from)
		emu_set_icount(s->cpu, from->icount);
	return 0;
}

void resim_close(struct resim *s)
{
	cursor_close(&s->events);
	replay_memory_fini(&s->mem);
	memory_image_free(s->mem.image);
	s->mem.image = NULL;
	emu_free(s->cpu);
	s->cpu = NULL;
}

static void take_regs(struct resim *s, const struct idna_regs *regs)
{
	trace_regs_to_emu(regs, emu_regs(s->cpu));
}

static void apply_checkpoint(struct resim *s, const struct idna_record *cp)
{
	take_regs(s, cp->u.checkpoint.regs);
	replay_memory_checkpoint(&s->mem);
	emu_invalidate_code(s->cpu, 0, UINT64_MAX);
	s->checkpoints++;
}

/* A new program image: what the memory image knew is gone. */
static void start_new_image(struct resim *s)
{
	memory_image_forget(s->mem.image, 0, UINT64_MAX);
}

/* Applies a KERNEL or NATIVE record at the current instruction. */
static void apply_transition(struct resim *s, const struct idna_record *ev)
{
	s->mem.transition_icount = emu_icount(s->cpu);
	if (ev->type == IDNA_REC_NATIVE) {
		take_regs(s, ev->u.native.regs);
		emu_set_icount(s->cpu, emu_icount(s->cpu) + 1);
		s->native_steps++;
		/* Its memory writes reach replay as prediction misses. */
		emu_invalidate_code(s->cpu, 0, UINT64_MAX);
		return;
	}
	take_regs(s, ev->u.kernel.regs);
	if (ev->u.kernel.kind == IDNA_KERNEL_SYSCALL) {
		emu_set_icount(s->cpu, emu_icount(s->cpu) + 1);
		s->syscalls++;
		if ((ev->u.kernel.nr == SYS_execve || ev->u.kernel.nr == SYS_execveat) &&
		    ev->u.kernel.result == 0)
			start_new_image(s);
	}
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
	default:
		return fail(s, "a non-deterministic result of an unknown kind");
	}
	emu_skip_insn(s->cpu);
	return RESIM_AT_TARGET;
}

/*
 * Consumes the events that apply at the current instruction count. Returns
 * the instruction count to run to next (UINT64_MAX: to the next emulator
 * stop), or sets *status when the loop must return.
 */
static uint64_t settle_events(struct resim *s, bool *done, enum resim_status *status)
{
	for (;;) {
		const struct idna_record *ev = cursor_peek(&s->events);
		uint64_t now = emu_icount(s->cpu);
		if (!ev) {
			*done = true;
			if (s->events.failed) {
				snprintf(s->error, sizeof(s->error), "cannot read the trace: %s",
					 s->events.error);
				*status = RESIM_ERROR;
			} else {
				s->ended = true;
				*status = RESIM_END;
			}
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
				replay_memory_code_changed(&s->mem, ev->u.kernel.nr, ev->u.kernel.result);
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
				apply_transition(s, ev);
				cursor_next(&s->events);
				*status = RESIM_SYSCALL_RETURN;
				return emu_icount(s->cpu);
			} else {
				s->syscall_entry_reported = false;
				apply_transition(s, ev);
			}
			break;
		case IDNA_REC_NATIVE:
			apply_transition(s, ev);
			break;
		case IDNA_REC_SIGNAL:
			s->signals++;
			s->last_signal = ev->u.signal.signo;
			s->last_signal_icount = now;
			if (s->stop_at_signals) {
				/* The delivery (a KERNEL record) comes next. */
				cursor_next(&s->events);
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
		cursor_next(&s->events);
	}
}

enum resim_status resim_run(struct resim *s, uint64_t target)
{
	if (s->ended)
		return RESIM_END;
	for (;;) {
		bool done = false;
		enum resim_status status = RESIM_AT_TARGET;
		uint64_t next = settle_events(s, &done, &status);
		if (done)
			return status;
		uint64_t now = emu_icount(s->cpu);
		if (now >= target)
			return RESIM_AT_TARGET;
		uint64_t until = next < target ? next : target;
		enum emu_exit e = emu_run(s->cpu, until - now);
		if (s->mem.diverged)
			return fail(s, s->mem.why);
		if (s->mem.cursor.failed)
			return fail(s, s->mem.cursor.error);
		switch (e) {
		case EMU_EXIT_LIMIT:
			break;
		case EMU_EXIT_STOPPED:
			return RESIM_STOPPED;
		case EMU_EXIT_SPECIAL: {
			const struct idna_record *ev = cursor_peek(&s->events);
			if (!ev || ev->type != IDNA_REC_NONDET) {
				if (!ev && !s->events.failed) {
					s->ended = true;
					return RESIM_END;
				}
				return fail(s, "the emulator stopped at a special instruction the trace does not explain");
			}
			if (apply_nondet(s, ev) == RESIM_ERROR)
				return RESIM_ERROR;
			cursor_next(&s->events);
			break;
		}
		case EMU_EXIT_UNIMPLEMENTED:
		case EMU_EXIT_FAULT:
			if (!cursor_peek(&s->events) && !s->events.failed) {
				s->ended = true;
				return RESIM_END;
			}
			{
				const struct emu_exit_info *x = emu_exit_info(s->cpu);
				char what[160];
				if (e == EMU_EXIT_FAULT)
					snprintf(what, sizeof(what),
						 "the emulator raised %s (address %#llx) at %#llx where the recording did not",
						 emu_fault_name(x->fault), (unsigned long long)x->fault_addr,
						 (unsigned long long)emu_regs(s->cpu)->rip);
				else
					snprintf(what, sizeof(what), "%s at %#llx is not emulated here",
						 x->mnemonic, (unsigned long long)emu_regs(s->cpu)->rip);
				return fail(s, what);
			}
		}
	}
}

int resim_save(struct resim *s, struct resim_state *out)
{
	memset(out, 0, sizeof(*out));
	size_t cache_size = (size_t)PREDICT_CACHE_LINE << s->mem.cache.log2_entries;
	if (cursor_tell(&s->mem.cursor, &out->memory_pos) != 0 ||
	    cursor_tell(&s->events, &out->events_pos) != 0)
		return -1;
	out->cache_bytes = malloc(cache_size);
	out->code_pages = code_page_set_clone(s->mem.code_pages);
	out->image = memory_image_snapshot(s->mem.image);
	if (!out->cache_bytes || !out->code_pages || !out->image) {
		resim_state_free(out);
		return -1;
	}
	memcpy(out->cache_bytes, s->mem.cache.bytes, cache_size);
	out->cache_hits = s->mem.cache.hits;
	out->cache_misses = s->mem.cache.misses;
	out->cache_hits_since_miss = s->mem.cache.hits_since_miss;
	out->icount = emu_icount(s->cpu);
	out->regs = *emu_regs(s->cpu);
	out->transition_icount = s->mem.transition_icount;
	out->syscalls = s->syscalls;
	out->signals = s->signals;
	out->checkpoints = s->checkpoints;
	out->native_steps = s->native_steps;
	out->last_signal = s->last_signal;
	out->last_signal_icount = s->last_signal_icount;
	return 0;
}

void resim_state_free(struct resim_state *st)
{
	free(st->cache_bytes);
	code_page_set_free(st->code_pages);
	memory_image_free(st->image);
	memset(st, 0, sizeof(*st));
}

int resim_open_state(struct resim *s, struct idna_reader *reader, uint32_t stream,
		     unsigned cache_log2, const struct resim_state *st)
{
	memset(s, 0, sizeof(*s));
	s->reader = reader;
	s->stream = stream;
	struct memory_image *image = memory_image_snapshot(st->image);
	if (!image || replay_memory_init(&s->mem, cache_log2, image) != 0) {
		memory_image_free(image);
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	struct code_page_set *pages = code_page_set_clone(st->code_pages);
	s->cpu = emu_new(&replay_memory_ops, &s->mem);
	if (!pages || !s->cpu ||
	    cursor_open_at(&s->mem.cursor, reader, stream, &st->memory_pos, CURSOR_MEMORY) != 0 ||
	    cursor_open_at(&s->events, reader, stream, &st->events_pos, CURSOR_EVENTS) != 0) {
		snprintf(s->error, sizeof(s->error), "cannot resume the replay: %s",
			 s->events.failed ? s->events.error
			 : s->mem.cursor.failed ? s->mem.cursor.error : "out of memory");
		code_page_set_free(pages);
		resim_close(s);
		return -1;
	}
	code_page_set_free(s->mem.code_pages);
	s->mem.code_pages = pages;
	memcpy(s->mem.cache.bytes, st->cache_bytes, (size_t)PREDICT_CACHE_LINE << cache_log2);
	s->mem.cache.hits = st->cache_hits;
	s->mem.cache.misses = st->cache_misses;
	s->mem.cache.hits_since_miss = st->cache_hits_since_miss;
	s->mem.transition_icount = st->transition_icount;
	*emu_regs(s->cpu) = st->regs;
	emu_set_icount(s->cpu, st->icount);
	s->syscalls = st->syscalls;
	s->signals = st->signals;
	s->checkpoints = st->checkpoints;
	s->native_steps = st->native_steps;
	s->last_signal = st->last_signal;
	s->last_signal_icount = st->last_signal_icount;
	return 0;
}
