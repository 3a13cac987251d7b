/*
 * step_affinity.c — see step_affinity.h.
 */
#include "recorder/step_affinity.h"

#include <sys/syscall.h>

bool step_affinity_allowed(long nr)
{
	switch (nr) {
	case SYS_sched_getaffinity:
	case SYS_sched_setaffinity:
	case SYS_clone:
	case SYS_clone3:
	case SYS_fork:
	case SYS_vfork:
	case SYS_execve:
	case SYS_execveat:
		return false;
	default:
		return true;
	}
}

void step_affinity_bind(struct step_affinity *a, pid_t tid, int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE || (a->bound && a->cpu == cpu))
		return;
	if (!a->bound && sched_getaffinity(tid, sizeof(a->own), &a->own) != 0)
		return;
	if (!CPU_ISSET(cpu, &a->own))
		return;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(tid, sizeof(one), &one) == 0) {
		a->bound = true;
		a->cpu = cpu;
	}
}

int step_affinity_home(struct step_affinity *h)
{
	if (!h->bound)
		step_affinity_bind(h, 0, sched_getcpu());
	return h->bound ? h->cpu : -1;
}

void step_affinity_release(struct step_affinity *a, pid_t tid)
{
	/* A thread that has exited meanwhile has nothing to give back. */
	if (a->bound)
		sched_setaffinity(tid, sizeof(a->own), &a->own);
	a->bound = false;
}
