/*
 * tracee.c — starting a program under ptrace (or seizing a running one)
 * and driving its one thread: wait-status decoding, stepping, registers
 * and extended state, letting it go.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder/tracee.h"

const char *tracee_start_strerror(enum tracee_start_error err)
{
	switch (err) {
	case TRACEE_START_OK: return "started";
	case TRACEE_START_NOT_FOUND: return "program not found";
	case TRACEE_START_NOT_EXECUTABLE: return "program is not executable";
	case TRACEE_START_SYSTEM: return "could not start the program under ptrace";
	}
	return "?";
}

/* Dispositions the supervisor changed for itself, restored in the child. */
static struct {
	int signo;
	struct sigaction before;
} supervisor_only[4];
static size_t n_supervisor_only;

int tracee_ignore_in_supervisor(int signo)
{
	if (n_supervisor_only == sizeof(supervisor_only) / sizeof(supervisor_only[0])) {
		errno = ENOSPC;
		return -1;
	}
	struct sigaction ignore = { .sa_handler = SIG_IGN };
	sigemptyset(&ignore.sa_mask);
	if (sigaction(signo, &ignore, &supervisor_only[n_supervisor_only].before) != 0)
		return -1;
	supervisor_only[n_supervisor_only++].signo = signo;
	return 0;
}

/* Runs in the child after fork: never returns. The exec errno goes back to
 * the parent through the close-on-exec pipe, which a successful exec closes
 * with nothing written. */
static void __attribute__((noreturn)) child_exec(int report_fd, char *const argv[])
{
	int e;
	for (size_t i = 0; i < n_supervisor_only; i++)
		sigaction(supervisor_only[i].signo, &supervisor_only[i].before, NULL);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) {
		e = -errno; /* negative: the failure was ptrace, not exec */
	} else {
		execvp(argv[0], argv);
		e = errno;
	}
	ssize_t unused = write(report_fd, &e, sizeof(e));
	(void)unused;
	_exit(127);
}


/* How much of the XSAVE area the kernel gives out for this CPU. */
static int probe_xstate_size(struct tracee *t)
{
	static uint8_t probe[TRACEE_XSTATE_MAX];
	struct iovec iov = { probe, sizeof(probe) };
	if (ptrace(PTRACE_GETREGSET, t->pid, (void *)NT_X86_XSTATE, &iov) != 0)
		return -1;
	t->xstate_size = iov.iov_len;
	return 0;
}

int tracee_set_options(struct tracee *t, long options)
{
	if (ptrace(PTRACE_SETOPTIONS, t->pid, NULL, (void *)options) != 0)
		return -1;
	t->options = options;
	return 0;
}

int tracee_seize(struct tracee *t, pid_t pid, long options)
{
	memset(t, 0, sizeof(*t));
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)options) != 0)
		return -1;
	t->pid = pid;
	t->alive = true;
	t->options = options;
	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) != 0)
		goto detach_error;
	/* A signal may be on its way first: it is delivered (the process
	 * would have had it anyway), and the interrupt stops the process
	 * before the handler's first instruction. */
	for (unsigned round = 0; round < 16; round++) {
		struct tracee_stop stop;
		if (tracee_wait(t, &stop) != 0)
			goto detach_error;
		switch (stop.kind) {
		case TRACEE_STOP_EVENT:
		case TRACEE_STOP_GROUP: /* it was stopped already */
			if (stop.kind == TRACEE_STOP_EVENT && stop.event != PTRACE_EVENT_STOP)
				break;
			if (probe_xstate_size(t) != 0)
				goto detach_error;
			return 0;
		case TRACEE_STOP_EXITED:
		case TRACEE_STOP_KILLED:
			errno = ESRCH;
			return -1;
		case TRACEE_STOP_SIGNAL:
			if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)stop.info.si_signo) != 0)
				goto detach_error;
			continue;
		default:
			break;
		}
		if (ptrace(PTRACE_CONT, pid, NULL, NULL) != 0)
			goto detach_error;
	}
	errno = EAGAIN;
detach_error:;
	int e = errno;
	tracee_detach(t);
	errno = e;
	return -1;
}

int tracee_discard_step_trap(struct tracee *t, int *deliver)
{
	siginfo_t queued[16];
	struct __ptrace_peeksiginfo_args a = { .off = 0, .flags = 0, .nr = 16 };
	long n = ptrace(PTRACE_PEEKSIGINFO, t->pid, &a, queued);
	if (n < 0)
		return -1;
	bool trap = false;
	for (long i = 0; i < n; i++)
		trap |= queued[i].si_signo == SIGTRAP;
	if (!trap)
		return 0;
	/* SIGTRAP is synchronous, so dequeued before any other signal: the
	 * process stops at its delivery before running a user instruction.
	 * A stop request still in flight (PTRACE_INTERRUPT) may come first;
	 * another signal is kept for the detach. */
	for (unsigned round = 0; round < 8; round++) {
		struct tracee_stop stop;
		if (tracee_cont(t, 0, &stop) != 0)
			return -1;
		if (stop.kind == TRACEE_STOP_STEP ||
		    (stop.kind == TRACEE_STOP_SIGNAL && stop.info.si_signo == SIGTRAP) ||
		    stop.kind == TRACEE_STOP_EXITED || stop.kind == TRACEE_STOP_KILLED)
			return 0;
		if (stop.kind == TRACEE_STOP_SIGNAL)
			*deliver = stop.info.si_signo;
	}
	errno = EAGAIN;
	return -1;
}

int tracee_detach(struct tracee *t)
{
	if (!t->alive)
		return 0;
	t->alive = false;
	return ptrace(PTRACE_DETACH, t->pid, NULL, NULL) == 0 ? 0 : -1;
}

int tracee_start(struct tracee *t, char *const argv[],
		 enum tracee_start_error *err, int *err_errno)
{
	memset(t, 0, sizeof(*t));
	*err = TRACEE_START_SYSTEM;
	*err_errno = 0;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		goto system_error;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		goto system_error;
	}
	if (pid == 0)
		child_exec(fds[1], argv);
	close(fds[1]);

	int child_errno = 0;
	ssize_t n;
	do
		n = read(fds[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == (ssize_t)sizeof(child_errno)) {
		waitpid(pid, NULL, 0);
		if (child_errno < 0) {
			*err_errno = -child_errno;
		} else {
			*err_errno = child_errno;
			*err = child_errno == ENOENT || child_errno == ENOTDIR
				       ? TRACEE_START_NOT_FOUND
				       : TRACEE_START_NOT_EXECUTABLE;
		}
		errno = *err_errno;
		return -1;
	}

	t->pid = pid;
	t->alive = true;
	/* The exec of a PTRACE_TRACEME child stops it with SIGTRAP. */
	struct tracee_stop stop;
	if (tracee_wait(t, &stop) != 0)
		goto kill_error;
	if (stop.kind != TRACEE_STOP_SIGNAL || stop.info.si_signo != SIGTRAP) {
		errno = ECHILD;
		goto kill_error;
	}
	if (tracee_set_options(t, PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE) != 0 ||
	    probe_xstate_size(t) != 0)
		goto kill_error;
	*err = TRACEE_START_OK;
	return 0;

kill_error:
	*err_errno = errno;
	tracee_kill(t);
	errno = *err_errno;
	return -1;
system_error:
	*err_errno = errno;
	return -1;
}

/* A SIGTRAP the kernel raised for a completed single step rather than int3
 * (SI_KERNEL) or a kill() (SI_USER, SI_TKILL): TRAP_TRACE from the debug
 * exception; TRAP_BRKPT or TRAP_UNK when the step ended in a syscall's exit
 * (which one depends on the kernel version; TRAP_UNK seen after execve). */
static bool is_step_trap(const siginfo_t *si)
{
	return si->si_signo == SIGTRAP &&
	       (si->si_code == TRAP_TRACE || si->si_code == TRAP_BRKPT ||
		si->si_code == TRAP_UNK);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

int tracee_decode_status(struct tracee *t, int status, struct tracee_stop *stop)
{
	memset(stop, 0, sizeof(*stop));
	if (WIFEXITED(status)) {
		t->alive = false;
		stop->kind = TRACEE_STOP_EXITED;
		stop->exit_status = WEXITSTATUS(status);
		return 0;
	}
	if (WIFSIGNALED(status)) {
		t->alive = false;
		stop->kind = TRACEE_STOP_KILLED;
		stop->info.si_signo = WTERMSIG(status);
		return 0;
	}
	int event = status >> 16;
	if (event == PTRACE_EVENT_EXEC) {
		stop->kind = TRACEE_STOP_EXEC;
		return 0;
	}
	/* A seized thread (ttrec attach) reports its group stop as an event
	 * stop with the stop signal; other event stops show SIGTRAP. */
	if (event == PTRACE_EVENT_STOP && is_stop_signal(WSTOPSIG(status))) {
		stop->kind = TRACEE_STOP_GROUP;
		stop->info.si_signo = WSTOPSIG(status);
		return 0;
	}
	if (event != 0) {
		stop->kind = TRACEE_STOP_EVENT;
		stop->event = event;
		return 0;
	}
	if (ptrace(PTRACE_GETSIGINFO, t->pid, NULL, &stop->info) != 0) {
		if (errno != EINVAL)
			return -1;
		/* No siginfo: a group stop, not a signal awaiting delivery. */
		stop->kind = TRACEE_STOP_GROUP;
		stop->info.si_signo = WSTOPSIG(status);
		return 0;
	}
	stop->kind = is_step_trap(&stop->info) ? TRACEE_STOP_STEP : TRACEE_STOP_SIGNAL;
	return 0;
}

int tracee_wait(struct tracee *t, struct tracee_stop *stop)
{
	int status;
	for (;;) {
		pid_t r = waitpid(t->pid, &status, __WALL);
		if (r == t->pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
	}
	return tracee_decode_status(t, status, stop);
}

int tracee_poll(struct tracee *t, struct tracee_stop *stop)
{
	int status;
	pid_t r;
	do
		r = waitpid(t->pid, &status, __WALL | WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	if (r == 0)
		return 0;
	return tracee_decode_status(t, status, stop) == 0 ? 1 : -1;
}

int tracee_wait_any(pid_t *tid, int *status, bool interruptible)
{
	for (;;) {
		pid_t r = waitpid(-1, status, __WALL);
		if (r > 0) {
			*tid = r;
			return 0;
		}
		if (errno != EINTR || interruptible)
			return -1;
	}
}

int tracee_resume_step(struct tracee *t, int signo)
{
	if (!t->alive) {
		errno = ESRCH;
		return -1;
	}
	return ptrace(PTRACE_SINGLESTEP, t->pid, NULL, (void *)(long)signo) == 0 ? 0 : -1;
}

int tracee_event_message(const struct tracee *t, unsigned long *msg)
{
	return ptrace(PTRACE_GETEVENTMSG, t->pid, NULL, msg) == 0 ? 0 : -1;
}

int tracee_adopt_thread(struct tracee *thread, const struct tracee *process, pid_t tid)
{
	memset(thread, 0, sizeof(*thread));
	thread->pid = tid;
	thread->alive = true;
	thread->xstate_size = process->xstate_size;
	/* A thread the kernel attached for us starts with a SIGSTOP stop. */
	struct tracee_stop stop;
	if (tracee_wait(thread, &stop) != 0)
		return -1;
	if (stop.kind == TRACEE_STOP_EXITED || stop.kind == TRACEE_STOP_KILLED) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

static int resume(struct tracee *t, enum __ptrace_request how, int signo,
		  struct tracee_stop *stop)
{
	if (!t->alive) {
		errno = ESRCH;
		return -1;
	}
	if (ptrace(how, t->pid, NULL, (void *)(long)signo) != 0)
		return -1;
	return tracee_wait(t, stop);
}

int tracee_step(struct tracee *t, int signo, struct tracee_stop *stop)
{
	return resume(t, PTRACE_SINGLESTEP, signo, stop);
}

int tracee_syscall(struct tracee *t, int signo, struct tracee_stop *stop)
{
	return resume(t, PTRACE_SYSCALL, signo, stop);
}

int tracee_cont(struct tracee *t, int signo, struct tracee_stop *stop)
{
	return resume(t, PTRACE_CONT, signo, stop);
}

int tracee_get_regs(const struct tracee *t, struct user_regs_struct *regs)
{
	return ptrace(PTRACE_GETREGS, t->pid, NULL, regs) == 0 ? 0 : -1;
}

int tracee_set_regs(const struct tracee *t, const struct user_regs_struct *regs)
{
	return ptrace(PTRACE_SETREGS, t->pid, NULL, regs) == 0 ? 0 : -1;
}

int tracee_get_xstate(const struct tracee *t, void *buf)
{
	struct iovec iov = { buf, t->xstate_size };
	return ptrace(PTRACE_GETREGSET, t->pid, (void *)NT_X86_XSTATE, &iov) == 0 ? 0 : -1;
}

int tracee_set_xstate(const struct tracee *t, const void *buf)
{
	/* The kernel wants the whole standard-format area in one piece. */
	struct iovec iov = { (void *)buf, t->xstate_size };
	return ptrace(PTRACE_SETREGSET, t->pid, (void *)NT_X86_XSTATE, &iov) == 0 ? 0 : -1;
}

int tracee_get_fs_gs_base(const struct tracee *t, uint64_t *fs_base, uint64_t *gs_base)
{
	errno = 0;
	long fs = ptrace(PTRACE_PEEKUSER, t->pid,
			 (void *)offsetof(struct user, regs.fs_base), NULL);
	if (errno)
		return -1;
	long gs = ptrace(PTRACE_PEEKUSER, t->pid,
			 (void *)offsetof(struct user, regs.gs_base), NULL);
	if (errno)
		return -1;
	*fs_base = (uint64_t)fs;
	*gs_base = (uint64_t)gs;
	return 0;
}

int tracee_detach_and_wait(struct tracee *t, int signo, struct tracee_stop *stop)
{
	if (!t->alive) {
		errno = ESRCH;
		return -1;
	}
	if (ptrace(PTRACE_DETACH, t->pid, NULL, (void *)(long)signo) != 0)
		return -1;
	return tracee_wait_untraced_end(t, stop);
}

int tracee_wait_untraced_end(struct tracee *t, struct tracee_stop *stop)
{
	/* Untraced, the process reports nothing but its end (stops of job
	 * control are its shell's business, and waitpid without WUNTRACED
	 * does not see them). */
	for (;;) {
		int status;
		pid_t r = waitpid(t->pid, &status, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		memset(stop, 0, sizeof(*stop));
		t->alive = false;
		if (WIFEXITED(status)) {
			stop->kind = TRACEE_STOP_EXITED;
			stop->exit_status = WEXITSTATUS(status);
		} else {
			stop->kind = TRACEE_STOP_KILLED;
			stop->info.si_signo = WTERMSIG(status);
		}
		return 0;
	}
}

void tracee_kill(struct tracee *t)
{
	if (!t->alive)
		return;
	kill(t->pid, SIGKILL);
	for (;;) {
		int status;
		pid_t r = waitpid(t->pid, &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || WIFEXITED(status) || WIFSIGNALED(status))
			break;
	}
	t->alive = false;
}
