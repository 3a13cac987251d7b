/*
 * attach.c — recording a process that is already running (`ttrec attach
 * PID`): seizing it, starting the trace from where it stands, stopping on
 * request (SIGINT, SIGTERM or SIGHUP to ttrec), and letting it go with the
 * emulator's state, running on unharmed.
 *
 * Where it stands may be inside a system call (a sleep, a read): the
 * interrupt makes the kernel return from it with an -ERESTART* code that it
 * would turn into a restart on the way back to user mode. The recording
 * does that turn itself (rip back onto the syscall instruction, rax the
 * call number again or restart_syscall), so that the emulator starts
 * between two instructions and the syscall runs again as its first native
 * step.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/attach.h"
#include "recorder/attach_recording.h"
#include "recorder/follow_fork.h"
#include "recorder/native_step.h"
#include "recorder/recording_internal.h"
#include "recorder/regs_convert.h"
#include "recorder/thread_regs.h"
#include "recorder/thread_table.h"

/* The kernel's restart codes (include/linux/errno.h, not exported). */
enum { ERESTARTSYS = 512, ERESTARTNOINTR = 513, ERESTARTNOHAND = 514,
       ERESTART_RESTARTBLOCK = 516 };

/* --- the command line and working directory --------------------------- */

static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	return (ssize_t)got;
}

int attach_read_cmdline(pid_t pid, char ***argv_out)
{
	enum { MAX_CMDLINE = 128 * 1024 };
	char path[64];
	char *text = malloc(MAX_CMDLINE + 3);
	if (!text)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	ssize_t n = read_file(path, text, MAX_CMDLINE);
	if (n < 0) {
		free(text);
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	size_t len = (size_t)n;
	if (len == 0) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		text[0] = '[';
		ssize_t c = read_file(path, text + 1, 64);
		size_t clen = c > 0 ? (size_t)c : 0;
		while (clen > 0 && text[clen] == '\n')
			clen--;
		text[clen + 1] = ']';
		len = clen + 2;
	}
	text[len++] = 0; /* the last argument's NUL, if it was cut */
	size_t argc = 0;
	for (size_t i = 0; i < len; i++)
		argc += text[i] == 0;
	/* One block: the pointers, then the strings. */
	char **argv = malloc((argc + 1) * sizeof(char *) + len);
	if (!argv) {
		free(text);
		return -1;
	}
	char *strings = (char *)(argv + argc + 1);
	memcpy(strings, text, len);
	free(text);
	size_t k = 0;
	for (size_t i = 0; i < len && k < argc; i += strlen(strings + i) + 1)
		argv[k++] = strings + i;
	argv[k] = NULL;
	*argv_out = argv;
	return 0;
}

int attach_read_cwd(pid_t pid, char *buf, size_t size)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	ssize_t n = readlink(link, buf, size);
	if (n < 0)
		return -1;
	if ((size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = 0;
	return 0;
}

/* --- stop requests ---------------------------------------------------- */

static volatile sig_atomic_t stop_requested;
static volatile pid_t interrupt_pid;

/* Sets the flag the main loop checks, and interrupts the process in case
 * it is blocked in a system call (the step waiting for it would otherwise
 * wait as long as the call). */
static void on_stop_signal(int signo)
{
	(void)signo;
	int saved = errno;
	stop_requested = 1;
	if (interrupt_pid > 0)
		ptrace(PTRACE_INTERRUPT, interrupt_pid, NULL, NULL);
	errno = saved;
}

static int catch_stop_signals(pid_t pid)
{
	interrupt_pid = pid;
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigemptyset(&sa.sa_mask);
	/* SIGHUP: the terminal went away (a dropped ssh session). Dying of
	 * it would leave the process detached with the emulator's state
	 * never put back: it would crash. */
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 ||
	    sigaction(SIGHUP, &sa, NULL) != 0)
		return -1;
	return 0;
}

bool attach_stop_requested(void)
{
	return stop_requested;
}

void recording_poll_point(struct recording *rec)
{
	if (stop_requested)
		rec->finished = true;
	if (progress_due(&rec->progress)) {
		struct idna_writer_stats st;
		idna_writer_get_stats(rec->writer, &st);
		progress_show(&rec->progress, threads_instructions(rec), rec->res->syscalls,
			      st.compressed_bytes);
	}
}

bool attach_on_interrupt(struct recording *rec)
{
	if (!stop_requested)
		return false; /* a stop that is over (group stops are not events) */
	rec->interrupted_in_step = true;
	rec->finished = true;
	return true;
}

/* --- taking the process ----------------------------------------------- */

static int count_threads(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Registers of a thread stopped on its way out of a system call, made
 * those of a thread about to execute it again if the kernel would restart
 * it (see the header comment); orig_rax -1 so that the kernel does not. */
static void settle_interrupted_syscall(struct user_regs_struct *r)
{
	int64_t ax = (int64_t)r->rax;
	if ((int64_t)r->orig_rax >= 0 &&
	    (ax == -ERESTARTSYS || ax == -ERESTARTNOINTR || ax == -ERESTARTNOHAND ||
	     ax == -ERESTART_RESTARTBLOCK)) {
		r->rax = ax == -ERESTART_RESTARTBLOCK ? SYS_restart_syscall : r->orig_rax;
		r->rip -= 2; /* syscall is 0f 05 */
	}
	r->orig_rax = (uint64_t)-1;
}

/* A fork child left in a SIGSTOP stop by the parent's recorder: SIGCONT
 * ends the stop, and the SIGCONT itself is taken at its delivery stop and
 * never delivered (the next resume passes no signal): the child is not
 * told anything happened. */
static int resume_stopped(struct recording *rec)
{
	pid_t pid = rec->tracee.pid;
	if (kill(pid, SIGCONT) != 0)
		return -1;
	for (unsigned round = 0; round < 8; round++) {
		struct tracee_stop stop;
		if (tracee_step(&rec->tracee, 0, &stop) != 0)
			return -1;
		if (stop.kind == TRACEE_STOP_SIGNAL && stop.info.si_signo == SIGCONT)
			return 0;
		if (stop.kind == TRACEE_STOP_EXITED || stop.kind == TRACEE_STOP_KILLED) {
			errno = ESRCH;
			return -1;
		}
		/* A step completed (the instruction ran before the trace
		 * starts: harmless) or another stop: the SIGCONT comes later
		 * and is then delivered like any signal. */
		if (stop.kind == TRACEE_STOP_STEP)
			return 0;
	}
	return 0;
}

int attach_seize(struct recording *rec)
{
	pid_t pid = rec->opt->attach_pid;
	/* Its other threads are seized by attach_begin, once the recording
	 * has its thread table. */
	if (count_threads(pid) < 0)
		return recording_fail(rec, RECORD_ERR_PROGRAM_NOT_FOUND, "no process %d", (int)pid);
	/* No PTRACE_O_EXITKILL: the process must outlive ttrec. */
	long options = PTRACE_O_TRACEEXEC | child_stop_options();
	if (tracee_seize(&rec->tracee, pid, options) != 0) {
		if (errno == ESRCH)
			return recording_fail(rec, RECORD_ERR_PROGRAM_NOT_FOUND, "no process %d", (int)pid);
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot attach to process %d: %s",
				      (int)pid, strerror(errno));
	}
	if (catch_stop_signals(pid) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot catch SIGINT, SIGTERM and SIGHUP: %s", strerror(errno));
	if (rec->opt->resume_stopped && resume_stopped(rec) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot resume process %d: %s",
				      (int)pid, strerror(errno));
	if (rec->opt->resume_parked) {
		if (child_parking_release(pid, &rec->opt->parking) != 0)
			return recording_fail(rec, RECORD_ERR_PTRACE, "cannot take parked process %d: %s",
					      (int)pid, strerror(errno));
		child_parking_say_taken(&rec->opt->parking);
	}
	struct user_regs_struct k;
	if (tracee_get_regs(&rec->tracee, &k) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the registers of process %d: %s",
				      (int)pid, strerror(errno));
	settle_interrupted_syscall(&k);
	if (tracee_set_regs(&rec->tracee, &k) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot set the registers of process %d: %s",
				      (int)pid, strerror(errno));
	return 0;
}

/* Seizes one more thread of the process and adds it, stopped, with its
 * registers settled like the first thread's. 0, or -1 (rec failed); a
 * thread that ended meanwhile is skipped. */
static int seize_thread(struct recording *rec, pid_t tid)
{
	struct tracee seized;
	if (tracee_seize(&seized, tid, rec->tracee.options) != 0)
		return errno == ESRCH ? 0 : recording_fail(rec, RECORD_ERR_PTRACE,
							   "cannot attach to thread %d: %s",
							   (int)tid, strerror(errno));
	struct rec_thread *t = threads_add(rec, tid);
	if (!t) {
		tracee_detach(&seized);
		return recording_fail(rec, RECORD_ERR_NO_MEMORY, "out of memory");
	}
	t->tracee = seized;
	struct user_regs_struct k;
	if (tracee_get_regs(&t->tracee, &k) != 0 || tracee_get_xstate(&t->tracee, t->xstate) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the registers of thread %d: %s",
				      (int)tid, strerror(errno));
	settle_interrupted_syscall(&k);
	if (tracee_set_regs(&t->tracee, &k) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot set the registers of thread %d: %s",
				      (int)tid, strerror(errno));
	recording_regs_from_kernel(rec, &k, t->xstate, &t->regs);
	t->state = THREAD_RUNNABLE;
	return 0;
}

/* Every other thread of the process, stopped before the trace starts;
 * scanned again until no new one appears (a thread may create one while
 * the others are being seized). */
static int seize_other_threads(struct recording *rec)
{
	pid_t pid = rec->tracee.pid;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (unsigned scan = 0; scan < 64; scan++) {
		DIR *d = opendir(path);
		if (!d)
			return recording_fail(rec, RECORD_ERR_PTRACE, "cannot list the threads of process %d: %s",
					      (int)pid, strerror(errno));
		bool found_new = false;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atoi(e->d_name);
			if (tid <= 0 || threads_find(rec, tid))
				continue;
			found_new = true;
			if (seize_thread(rec, tid) != 0)
				break;
		}
		closedir(d);
		if (rec->finished || !found_new)
			return rec->finished ? -1 : 0;
	}
	return recording_fail(rec, RECORD_ERR_PTRACE, "process %d keeps creating threads", (int)pid);
}

int attach_begin(struct recording *rec)
{
	if (seize_other_threads(rec) != 0)
		return -1;
	if (mapping_table_load(rec->maps, rec->tracee.pid) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the process's mappings: %s",
				      strerror(errno));
	char msg[256];
	if (vdso_patch_apply(&rec->vdso, &rec->rm, rec->maps, msg, sizeof(msg)) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "%s", msg);
	return 0;
}

/* --- letting it go ---------------------------------------------------- */

static void detach_all(struct recording *rec)
{
	for (size_t i = 0; i < rec->n_threads; i++)
		if (rec->threads[i]->state != THREAD_GONE) {
			native_step_unbind(rec->threads[i]);
			tracee_detach(&rec->threads[i]->tracee);
		}
	rec->tracee.alive = false;
}

static void cannot_release(struct recording *rec, const char *what)
{
	int e = errno;
	if (rec->error == RECORD_OK)
		recording_fail(rec, RECORD_ERR_PTRACE, "%s: %s", what, strerror(e));
	/* Detached all the same: ttrec never kills a process it attached to. */
	detach_all(rec);
}

/* Stops a thread that runs in the kernel (a syscall in the background).
 * Returns 1 when it stopped, 0 when it is gone, -1 on error. */
static int interrupt_thread(struct recording *rec, struct rec_thread *t)
{
	if (t->state == THREAD_IN_KERNEL && ptrace(PTRACE_INTERRUPT, t->tracee.pid, NULL, NULL) != 0)
		return -1;
	struct tracee_stop stop;
	if (threads_wait_for(rec, t, &stop) != 0)
		return -1;
	if (stop.kind == TRACEE_STOP_EXITED || stop.kind == TRACEE_STOP_KILLED) {
		t->state = THREAD_GONE;
		return 0;
	}
	t->native.deliver = stop.kind == TRACEE_STOP_SIGNAL ? stop.info.si_signo : 0;
	t->interrupted = true;
	return 1;
}

/* Gives one stopped thread its registers back: the emulator's, once the
 * trace has started, except for a thread whose native step a stop cut
 * short (the kernel's are the truth then: a syscall in progress). */
static int settle_thread(struct recording *rec, struct rec_thread *t)
{
	struct user_regs_struct k;
	if (tracee_get_regs(&t->tracee, &k) != 0)
		return -1;
	if (rec->cpu && rec->address_space > 0 && !t->interrupted) {
		const struct emu_regs *regs = t == rec->cur ? emu_regs(rec->cpu) : &t->regs;
		regs_to_kernel(regs, &k, t->xstate, t->tracee.xstate_size);
		if (tracee_set_xstate(&t->tracee, t->xstate) != 0)
			return -1;
	}
	settle_interrupted_syscall(&k);
	if (vdso_patch_leave_stubs(&rec->vdso, &rec->rm, &k) != 0)
		return -1;
	if (tracee_set_regs(&t->tracee, &k) != 0)
		return -1;
	return tracee_discard_step_trap(&t->tracee, &t->native.deliver);
}

void attach_release(struct recording *rec)
{
	if (!rec->tracee.alive)
		return; /* it never was ours, or it ended: res says how */
	if (rec->n_threads == 0) {
		/* Seized, but taking it failed before the recording had its
		 * threads: let it go as it stands. */
		if (tracee_detach(&rec->tracee) != 0 && rec->error == RECORD_OK)
			recording_fail(rec, RECORD_ERR_PTRACE, "cannot detach from the process: %s",
				       strerror(errno));
		return;
	}
	if (rec->cur && rec->interrupted_in_step)
		rec->cur->interrupted = true;
	if (rec->cpu && rec->address_space > 0 && memory_mirror_flush(rec->mirror) != 0)
		return cannot_release(rec, "cannot write the process's memory");
	/* Every thread stopped and out of the vDSO stubs before the vDSO is
	 * restored; only then is any let go. */
	for (size_t i = 0; i < rec->n_threads; i++) {
		struct rec_thread *t = rec->threads[i];
		if (t->state == THREAD_IN_KERNEL || t->state == THREAD_EVENT) {
			int r = interrupt_thread(rec, t);
			if (r < 0)
				return cannot_release(rec, "cannot stop a thread of the process");
			if (r == 0)
				continue;
		}
		if (t->state == THREAD_GONE)
			continue;
		if (settle_thread(rec, t) != 0)
			return cannot_release(rec, "cannot set the process's registers");
		if (!t->tracee.alive)
			t->state = THREAD_GONE; /* died of a signal on the way */
	}
	if (!rec->threads[0]->tracee.alive && rec->live_threads <= 1)
		return; /* it died on the way: res does not know, the parent does */
	if (vdso_patch_restore(&rec->vdso, &rec->rm) != 0)
		return cannot_release(rec, "cannot restore the process's vDSO");
	for (size_t i = 0; i < rec->n_threads; i++) {
		struct rec_thread *t = rec->threads[i];
		if (t->state == THREAD_GONE || !t->tracee.alive)
			continue;
		t->tracee.alive = false;
		native_step_unbind(t);
		if (ptrace(PTRACE_DETACH, t->tracee.pid, NULL, (void *)(long)t->native.deliver) != 0)
			return cannot_release(rec, "cannot detach from the process");
	}
	rec->tracee.alive = false;
	rec->res->detached = true;
}
