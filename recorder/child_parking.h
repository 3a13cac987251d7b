/*
 * child_parking.h — how a --follow-fork child waits, detached, between its
 * parent's recorder and its own (follow_fork.c hands it over, attach.c
 * takes it): parked in pause() with every signal blocked, so that it runs
 * none of its own code and nothing of the wait shows to the program.
 */
#ifndef TTREC_CHILD_PARKING_H
#define TTREC_CHILD_PARKING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct child_parking {
	uint64_t sigmask;      /* the child's own signal mask, to put back */
	uint64_t syscall_addr; /* the syscall instruction it runs pause() on */
	int taken_fd;          /* the taker writes a byte here once the child is
				* released, then closes it; -1: none */
};

/*
 * Parks a child in a ptrace stop at its first instruction after fork (it
 * returns 0 from the syscall instruction before rip): its signal mask and
 * registers are changed so that once detached it sleeps in pause(). 0,
 * or -1 with the child unchanged when it cannot be parked (its fork was
 * not a syscall instruction, or ptrace failed). With clear_tf, the
 * trap flag is taken out of r11 (the rflags the syscall saved): the
 * parent's fork was single-stepped, its program had no TF.
 */
int child_parking_park(pid_t child, bool clear_tf, struct child_parking *p);

/*
 * Puts back the mask and registers of a parked child that is in a ptrace
 * stop again, whether it was stopped before or inside pause(). 0, or -1
 * with errno (EINVAL: it is not where the parking left it).
 */
int child_parking_release(pid_t child, const struct child_parking *p);

/* The taker's side of the hand-over: says on taken_fd that the child is
 * released, and closes it. */
void child_parking_say_taken(const struct child_parking *p);

/* The --resume-parked argument: "SIGMASK,SYSCALL_ADDR[,TAKEN_FD]", the
 * first two in hex. */
int child_parking_format(const struct child_parking *p, char *buf, size_t size);
bool child_parking_parse(const char *arg, struct child_parking *p);

#endif
