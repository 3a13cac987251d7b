/*
 * follow_fork.c — --follow-fork: each child process of a recorded process
 * (fork, vfork, clone without CLONE_THREAD) is recorded too, by a recorder
 * of its own, into its own trace: <trace minus .idna>.<child pid>.idna.
 *
 * With PTRACE_O_TRACEFORK & co. the kernel stops the child before its
 * first instruction, traced by us. The child's recorder is this same
 * binary, re-executed as `ttrec attach`: a forked copy of ttrec could not
 * use the parent's trace writer (its compressor thread does not survive
 * fork), and a fresh process shares nothing by accident. Between our
 * detach and its seize the child must not run its own code. It is parked:
 * every signal blocked (PTRACE_SETSIGMASK) and its registers set to run
 * pause() on the system call instruction it just returned from, which it
 * then sleeps in until its recorder interrupts it and puts back its mask
 * and registers (attach.c). Nothing of this is visible to the child or
 * its parent; a signal sent meanwhile stays pending until the mask is
 * back. Parking changes no memory, so it is as safe for a child that
 * shares its parent's memory (vfork, clone) as for a fork. The recorder
 * says on a pipe when it has taken the child; until then the parent's
 * recording waits, and if the recorder ends without saying so, the child
 * is released here and runs untraced. A child that cannot be parked (its
 * fork was not a `syscall` instruction, or a seccomp filter might answer
 * pause() otherwise) is detached with a SIGSTOP queued instead, which its
 * recorder ends with SIGCONT (resume_stopped): its parent can see that
 * stop and continue.
 * The child's recorder follows forks too, so grandchildren get
 * <trace minus .idna>.<child>.<grandchild>.idna.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder/child_parking.h"
#include "recorder/follow_fork.h"
#include "recorder/recording_internal.h"
#include "recorder/thread_table.h"
#include "trace-format/trace_names.h"

long child_stop_options(void)
{
	return PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE;
}

int follow_fork_let_go(struct recording *rec)
{
	bool gone;
	struct rec_thread *t = threads_add_newborn(rec, &gone);
	if (!t)
		return gone ? 0 : -1;
	/* The syscall instruction saved rflags in r11 with the trap flag of
	 * the parent's single step; the kernel cleared the child's own. */
	struct user_regs_struct k;
	if (!rec->cur->native.tf_before && tracee_get_regs(&t->tracee, &k) == 0 &&
	    (k.r11 & EMU_TF)) {
		k.r11 &= ~(uint64_t)EMU_TF;
		tracee_set_regs(&t->tracee, &k);
	}
	ptrace(PTRACE_DETACH, t->tracee.pid, NULL, NULL);
	threads_forget_child(rec, t);
	return 0;
}

/* How the child waits for its recorder: parked (child_parking.h), or
 * stopped by a SIGSTOP. */
struct handover {
	bool parked;
	struct child_parking parking;
};

/* A recorder started for a child, until it is reaped. */
struct child_recorder {
	pid_t recorder, child;
	struct handover handover;
	bool reaped;
};

/* Parking relies on pause() sleeping. A seccomp filter, inherited by the
 * child, may answer it with an error or a kill instead: such children
 * are handed over stopped. */
static bool under_seccomp(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return true; /* cannot tell: the safe way */
	bool filtered = true;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Seccomp:", 8) == 0) {
			filtered = atoi(line + 8) != 0;
			break;
		}
	fclose(f);
	return filtered;
}

/* Waits for the child's first stop (a wait for any thread's stop may
 * have taken it already), parks it or queues a SIGSTOP, and detaches it;
 * -1 if it is already gone. */
static int park_child(struct recording *rec, pid_t child, bool clear_tf, struct handover *h)
{
	int status;
	pid_t r = child;
	if (!threads_early_stop(rec, child, &status)) {
		do
			r = waitpid(child, &status, __WALL);
		while (r < 0 && errno == EINTR);
	}
	if (r != child || WIFEXITED(status) || WIFSIGNALED(status))
		return -1;
	h->parked = !under_seccomp(child) && child_parking_park(child, clear_tf, &h->parking) == 0;
	if (!h->parked && kill(child, SIGSTOP) != 0)
		return -1;
	return ptrace(PTRACE_DETACH, child, NULL, NULL) == 0 ? 0 : -1;
}

/* Releases a child still parked (its recorder never took it): true if
 * it was. A child that is not (gone, or taken and let go) is left as it
 * is; seizing it interrupts it for a moment, which it does not see. */
static bool release_if_parked(pid_t child, const struct handover *h)
{
	struct tracee t;
	if (tracee_seize(&t, child, 0) != 0)
		return false;
	bool released = child_parking_release(child, &h->parking) == 0;
	tracee_detach(&t);
	return released;
}

/* A child no recorder takes runs on untraced, as it was. */
static void let_go(pid_t child, const struct handover *h)
{
	if (!h->parked)
		kill(child, SIGCONT);
	else if (!release_if_parked(child, h))
		fprintf(stderr, "ttrec: cannot release child process %d: %s\n", (int)child,
			strerror(errno));
}

/* Waits until the child's recorder says it took the child (a byte on
 * the hand-over pipe), or ends without saying so (end of file: it could
 * not start, could not seize the child, was killed), which would leave
 * the child parked for good: then it is released here. */
static void await_taken(int taken_read_fd, pid_t child, const struct handover *h)
{
	char byte;
	ssize_t n;
	do
		n = read(taken_read_fd, &byte, 1);
	while (n < 0 && errno == EINTR);
	close(taken_read_fd);
	if (n != 1 && release_if_parked(child, h))
		fprintf(stderr, "ttrec: the recorder of child process %d ended before taking it; "
				"it runs untraced\n", (int)child);
}

bool follow_fork_recorder_ended(struct recording *rec, pid_t pid, int status)
{
	(void)status; /* the recorded child's status: its recorder reported it */
	for (size_t i = 0; i < rec->n_child_recorders; i++) {
		struct child_recorder *c = &rec->child_recorders[i];
		if (c->recorder == pid && !c->reaped) {
			c->reaped = true;
			return true;
		}
	}
	return false;
}

/* Starts `ttrec attach --resume-parked=... PID` (or --resume-stopped) for
 * the child; its pid, or -1. A parked child's recorder gets the write end
 * of a pipe to say it took the child on; *taken_read_fd receives the read
 * end (-1 without one). */
static pid_t spawn_recorder(struct recording *rec, pid_t child, struct handover *h,
			    int *taken_read_fd)
{
	char trace[4096], pid_arg[24], cpuid[64], interval[48], ring[48], cache[48], resume[64];
	idna_child_trace_name(rec->opt->trace_name ? rec->opt->trace_name : rec->opt->trace_path,
			      child, trace, sizeof(trace));
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)child);
	snprintf(cpuid, sizeof(cpuid), "--cpuid=%s",
		 rec->opt->cpuid_policy ? rec->opt->cpuid_policy : "default");
	/* Everything is built before fork: ttrec has a writer thread, and
	 * the forked copy may only exec. */
	const char *argv[16];
	size_t n = 0;
	argv[n++] = "ttrec";
	argv[n++] = "attach";
	int taken[2] = { -1, -1 };
	*taken_read_fd = -1;
	strcpy(resume, "--resume-stopped");
	if (h->parked) {
		if (pipe2(taken, O_CLOEXEC) != 0)
			return -1;
		h->parking.taken_fd = taken[1];
		strcpy(resume, "--resume-parked=");
		if (child_parking_format(&h->parking, resume + strlen(resume),
					 sizeof(resume) - strlen(resume)) != 0) {
			close(taken[0]);
			close(taken[1]);
			return -1;
		}
	}
	argv[n++] = resume;
	argv[n++] = "--follow-fork";
	argv[n++] = cpuid;
	if (rec->opt->quiet)
		argv[n++] = "-q";
	if (rec->opt->checkpoint_interval) {
		snprintf(interval, sizeof(interval), "--checkpoint-interval=%" PRIu64,
			 rec->opt->checkpoint_interval);
		argv[n++] = interval;
	}
	if (rec->opt->ring_bytes) {
		snprintf(ring, sizeof(ring), "--ring=%" PRIu64, rec->opt->ring_bytes);
		argv[n++] = ring;
	}
	if (rec->opt->cache_log2_entries) {
		/* 8-byte entries (ttrec run --prediction-cache). */
		snprintf(cache, sizeof(cache), "--prediction-cache=%" PRIu64,
			 UINT64_C(8) << rec->opt->cache_log2_entries);
		argv[n++] = cache;
	}
	if (rec->opt->no_jit)
		argv[n++] = "--no-jit";
	if (rec->opt->cache_log2_line == 3)
		argv[n++] = "--trace-format=1.4";
	else if (rec->opt->cache_log2_line == 3 + PREDICT_CACHE_GROUP_LOG2)
		argv[n++] = "--trace-format=1.5";
	argv[n++] = "-o";
	argv[n++] = trace;
	argv[n++] = pid_arg;
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		/* Only this copy's write end survives the exec, and the
		 * recorder goes where it likes (step_affinity.h). */
		if (taken[1] >= 0 && fcntl(taken[1], F_SETFD, 0) != 0)
			_exit(127);
		step_affinity_release(&rec->home_cpu, 0);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	if (taken[1] >= 0)
		close(taken[1]);
	if (pid < 0 && taken[0] >= 0)
		close(taken[0]);
	else
		*taken_read_fd = taken[0];
	return pid;
}

void follow_fork_child(struct recording *rec)
{
	unsigned long msg;
	if (ptrace(PTRACE_GETEVENTMSG, rec->cur->tracee.pid, NULL, &msg) != 0)
		return;
	pid_t child = (pid_t)msg;
	struct handover handover;
	if (park_child(rec, child, !rec->cur->native.tf_before, &handover) != 0) {
		fprintf(stderr, "ttrec: cannot hand child process %d to a recorder: %s\n", (int)child,
			strerror(errno));
		return;
	}
	int taken_read_fd;
	pid_t recorder = spawn_recorder(rec, child, &handover, &taken_read_fd);
	if (taken_read_fd >= 0)
		await_taken(taken_read_fd, child, &handover);
	struct child_recorder *grown =
		recorder > 0 ? realloc(rec->child_recorders,
				       (rec->n_child_recorders + 1) * sizeof(*grown))
			     : NULL;
	if (recorder < 0) {
		/* The child must not wait forever. */
		fprintf(stderr, "ttrec: cannot start a recorder for child process %d: %s; it runs untraced\n",
			(int)child, strerror(errno));
		let_go(child, &handover);
		return;
	}
	if (!grown) {
		/* Out of memory to remember it: its recorder runs to its end
		 * now, before the parent goes on. */
		waitpid(recorder, NULL, 0);
		return;
	}
	rec->child_recorders = grown;
	rec->child_recorders[rec->n_child_recorders++] =
		(struct child_recorder){ .recorder = recorder, .child = child, .handover = handover };
	struct record_result *res = rec->res;
	if (res->n_children < sizeof(res->children) / sizeof(res->children[0]))
		res->children[res->n_children] = child;
	res->n_children++;
}

void follow_fork_wait(struct recording *rec)
{
	for (size_t i = 0; i < rec->n_child_recorders; i++) {
		struct child_recorder *c = &rec->child_recorders[i];
		if (c->reaped)
			continue;
		pid_t r;
		do
			r = waitpid(c->recorder, NULL, 0);
		while (r < 0 && errno == EINTR);
		c->reaped = true;
	}
	free(rec->child_recorders);
	rec->child_recorders = NULL;
	rec->n_child_recorders = 0;
}
