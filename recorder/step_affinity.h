/*
 * step_affinity.h — the real process's threads run their native steps on
 * the recorder's CPU.
 *
 * In a VM, a ptrace round trip between two CPUs costs some 80 µs (most of
 * it system time: waking the other virtual CPU, the tracee's on resume and
 * ours at its stop, is our best explanation); on one CPU it costs about
 * 14 µs. So the recorder's thread binds itself to the CPU it runs on at
 * the first step (its "home"), and a step it waits for (not one left to go
 * on in the background) runs bound there too. The thread stays bound
 * from one step to the next (it runs only in steps: native_step.c) and
 * gets its own affinity back before a step that is not bound and before a
 * detach, so the program can see the binding only in /proc/PID/status. Not for
 * syscalls that read or set affinities, or that make a process or a
 * thread (which would inherit it) or exec. The trace writer's thread,
 * started before the first step, is not bound; child recorders unbind
 * themselves before they exec.
 */
#ifndef TTREC_STEP_AFFINITY_H
#define TTREC_STEP_AFFINITY_H

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

/* A thread's binding. Zero-initialised: not bound. */
struct step_affinity {
	bool bound;
	int cpu;       /* bound to this CPU */
	cpu_set_t own; /* its own affinity, given back at release */
};

/* The recorder's home CPU, chosen at the first call: the CPU its thread
 * runs on then, to which it binds itself (h->own keeps its affinity).
 * Returns the CPU, or -1 when the affinity cannot be read or set. */
int step_affinity_home(struct step_affinity *h);

/* Whether a step running syscall nr (-1: not a syscall) may run bound. */
bool step_affinity_allowed(long nr);

/* Binds thread tid to cpu, unless it is bound there already. Nothing
 * changes when its affinity cannot be read or set, or excludes cpu. */
void step_affinity_bind(struct step_affinity *a, pid_t tid, int cpu);

/* Gives thread tid (0: the caller) its own affinity back, if bound. */
void step_affinity_release(struct step_affinity *a, pid_t tid);

#endif
