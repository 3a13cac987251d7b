/*
 * slice_switch.c — the emulator handed from one thread to another, and the
 * records that open a thread's slice (a SWITCH key frame; its first
 * checkpoint; in a ring, the code pages forgotten; at each interval, a
 * checkpoint for every waiting thread that ran since its last one, or
 * for every waiting thread in a ring). The main loop (recording.c)
 * calls these with the thread the table (thread_table.c) chose: the table
 * itself writes no slice records.
 */
#include <stdint.h>

#include "recorder/recording_internal.h"
#include "recorder/slice_switch.h"
#include "recorder/trace_events.h"

int slice_switch_to(struct recording *rec, struct rec_thread *t)
{
	if (rec->cur != t) {
		if (rec->cur) {
			rec->cur->regs = *emu_regs(rec->cpu);
			rec->cur->icount = emu_icount(rec->cpu);
		}
		*emu_regs(rec->cpu) = t->regs;
		emu_set_icount(rec->cpu, t->icount);
		emu_set_memory_context(rec->cpu, &t->tm);
		rec->cur = t;
		/* The process's memory and /proc files through a live thread:
		 * a leader that left with pthread_exit has none. */
		rec->rm.pid = t->tracee.pid;
		rec->tm = &t->tm;
		rec->xstate = t->xstate;
	}
	if (rec->last_run == t)
		return 0;
	/* The first thread's first slice opens the trace: nothing to order. */
	if (rec->last_run) {
		if (log_key_frame(rec, IDNA_KEY_SWITCH) != 0)
			return -1;
		/* In a ring a slice logs every code page it runs, as after a
		 * checkpoint (man/idna.5, RING MODE): a page another thread
		 * logged may be in a part of its stream the ring evicted or
		 * that replay skips (before its first kept checkpoint), and
		 * this thread's records since its last switch or checkpoint
		 * are all replayed whenever the slice is. */
		if (rec->opt->ring_bytes) {
			traced_memory_forget_code(rec->tm, 0, UINT64_MAX);
			emu_refetch_code(rec->cpu);
		}
	}
	rec->last_run = t;
	if (!t->started) {
		t->started = true;
		return log_checkpoint(rec);
	}
	return 0;
}

int slice_refresh_checkpoints(struct recording *rec, uint64_t since)
{
	struct rec_thread *running = rec->cur;
	for (size_t i = 0; i < rec->n_threads; i++) {
		struct rec_thread *t = rec->threads[i];
		/* A thread that has not run yet gets its first checkpoint
		 * when it does. */
		if (t == running || t->state == THREAD_GONE || !t->started || t->checkpoint_seq >= since)
			continue;
		/* Idle since its last checkpoint (no instruction run): replay
		 * starts a cut there from that checkpoint (replayer/
		 * resim_cut.c), so a new one would only cost trace. Not in a
		 * ring, which may evict that checkpoint: the kept part needs
		 * one of every thread. */
		if (!rec->opt->ring_bytes && t->icount == t->checkpoint_icount)
			continue;
		/* A slice of t (it stays where it is: waiting for its turn or
		 * in the kernel) holding only the checkpoint: replay applies
		 * it at the same point of the global order, where it resets
		 * the code pages all threads share. */
		if (slice_switch_to(rec, t) != 0 || log_checkpoint(rec) != 0)
			return -1;
	}
	return slice_switch_to(rec, running);
}
