/*
 * syscall_effects.c — the table of x86-64 Linux syscalls the recorder knows:
 * which arguments point to memory the kernel writes, and how large it is.
 * Most syscalls are described by data (up to three output buffers each);
 * the few whose effect depends on their arguments in other ways (iovecs,
 * ioctl requests, clone flags, mapping changes) have a function.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>

#include "syscall_effects.h"

/* How the size of one output buffer is found. */
enum size_rule {
	SIZE_NONE,
	SIZE_FIXED,       /* `n` bytes */
	SIZE_RESULT,      /* the result, in bytes, when positive */
	SIZE_ARG,         /* the value of argument `n` */
	SIZE_ARG_TIMES,   /* argument `n & 7` times (n >> 3) bytes */
	SIZE_RESULT_TIMES /* the result times `n` bytes */
};

struct output {
	uint8_t arg;       /* which argument holds the address */
	uint8_t rule;      /* enum size_rule */
	uint16_t n;
};

typedef void special_describe(const uint64_t a[6], int64_t result,
			      syscall_memory_reader *read, void *ctx,
			      struct syscall_effect *out);

struct syscall_info {
	const char *name;
	uint8_t kind;            /* enum syscall_kind */
	bool writes_on_error;    /* nanosleep's remaining time */
	struct output out[3];
	special_describe *special;
};

#define OUT_FIXED(a, n) { a, SIZE_FIXED, n }
#define OUT_RESULT(a) { a, SIZE_RESULT, 0 }
#define OUT_ARG(a, n) { a, SIZE_ARG, n }
#define OUT_ARG_TIMES(a, n, size) { a, SIZE_ARG_TIMES, (uint16_t)((n) | ((size) << 3)) }
#define OUT_RESULT_TIMES(a, size) { a, SIZE_RESULT_TIMES, size }

/* Sizes of kernel structures on x86-64. */
enum {
	STAT_SIZE = 144, STATX_SIZE = 256, TIMESPEC_SIZE = 16, RUSAGE_SIZE = 144,
	SIGINFO_SIZE = 128, KSIGACTION_SIZE = 32, SOCKADDR_MAX = 128,
	UTSNAME_SIZE = 390, SYSINFO_SIZE = 112, RLIMIT_SIZE = 16, TMS_SIZE = 32,
	STATFS_SIZE = 120, ITIMERVAL_SIZE = 32, ITIMERSPEC_SIZE = 32,
	STACK_T_SIZE = 24, POLLFD_SIZE = 8, EPOLL_EVENT_SIZE = 12,
};

static void add_range(struct syscall_effect *out, uint64_t addr, uint64_t len)
{
	if (!addr || !len)
		return;
	if (out->count == SYSCALL_MAX_RANGES) {
		out->kind = SYSCALL_KIND_UNKNOWN;
		return;
	}
	out->ranges[out->count].addr = addr;
	out->ranges[out->count].len = len;
	out->count++;
}

/* readv, preadv, preadv2: the result's bytes fill the iovecs in order. */
static void describe_iovec_read(const uint64_t a[6], int64_t result,
				syscall_memory_reader *read, void *ctx,
				struct syscall_effect *out)
{
	uint64_t left = result > 0 ? (uint64_t)result : 0;
	for (uint64_t i = 0; i < a[2] && left; i++) {
		uint64_t iov[2];
		if (read(ctx, a[1] + i * 16, iov, sizeof(iov)) != 0) {
			out->kind = SYSCALL_KIND_UNKNOWN;
			return;
		}
		uint64_t n = iov[1] < left ? iov[1] : left;
		add_range(out, iov[0], n);
		left -= n;
	}
}

/* One struct msghdr the kernel filled, read after the call: the lengths
 * and flags in the header itself, the sender's address, `received` bytes
 * over the iovecs and the control data (their lengths are the ones the
 * kernel wrote back). */
static void describe_msghdr(uint64_t hdr, uint64_t received, syscall_memory_reader *read,
			    void *ctx, struct syscall_effect *out)
{
	/* msg_name, msg_namelen, msg_iov, msg_iovlen, msg_control,
	 * msg_controllen, msg_flags: 56 bytes. */
	uint64_t m[7];
	if (read(ctx, hdr, m, sizeof(m)) != 0) {
		out->kind = SYSCALL_KIND_UNKNOWN;
		return;
	}
	add_range(out, hdr, sizeof(m));
	add_range(out, m[0], (uint32_t)m[1]);
	add_range(out, m[4], m[5]);
	const uint64_t iov_args[6] = { 0, m[2], m[3], 0, 0, 0 };
	describe_iovec_read(iov_args, (int64_t)received, read, ctx, out);
}

static void describe_recvmsg(const uint64_t a[6], int64_t result,
			     syscall_memory_reader *read, void *ctx,
			     struct syscall_effect *out)
{
	if (result >= 0)
		describe_msghdr(a[1], (uint64_t)result, read, ctx, out);
}

/* recvmmsg: `result` messages, each a struct mmsghdr (a msghdr, then the
 * bytes received: 64 bytes), and the time left written back. */
static void describe_recvmmsg(const uint64_t a[6], int64_t result,
			      syscall_memory_reader *read, void *ctx,
			      struct syscall_effect *out)
{
	for (int64_t i = 0; i < result && out->kind != SYSCALL_KIND_UNKNOWN; i++) {
		uint64_t hdr = a[1] + (uint64_t)i * 64;
		uint32_t len;
		if (read(ctx, hdr + 56, &len, sizeof(len)) != 0) {
			out->kind = SYSCALL_KIND_UNKNOWN;
			return;
		}
		add_range(out, hdr + 56, 8);
		describe_msghdr(hdr, len, read, ctx, out);
	}
	if (result >= 0)
		add_range(out, a[4], TIMESPEC_SIZE);
}

/* process_vm_writev: written to the remote iovecs, in order; the pid may
 * be our own (a write into ourselves), and if it is another process's,
 * forgetting those addresses of ours costs only a miss. */
static void describe_process_vm_writev(const uint64_t a[6], int64_t result,
				       syscall_memory_reader *read, void *ctx,
				       struct syscall_effect *out)
{
	const uint64_t remote[6] = { 0, a[3], a[4], 0, 0, 0 };
	describe_iovec_read(remote, result, read, ctx, out);
}

static void describe_ioctl(const uint64_t a[6], int64_t result,
			   syscall_memory_reader *read, void *ctx,
			   struct syscall_effect *out)
{
	(void)result; (void)read; (void)ctx;
	switch (a[1]) {
	case 0x5401: add_range(out, a[2], 36); break;  /* TCGETS: struct termios */
	case 0x5413: add_range(out, a[2], 8); break;   /* TIOCGWINSZ */
	case 0x540f: add_range(out, a[2], 4); break;   /* TIOCGPGRP */
	case 0x541b: add_range(out, a[2], 4); break;   /* FIONREAD */
	case 0x5421: case 0x5451: case 0x5450: break;  /* FIONBIO FIOCLEX FIONCLEX */
	case 0x5402: case 0x5403: case 0x5404: case 0x5410: break; /* TCSETS* TIOCSPGRP */
	default: out->kind = SYSCALL_KIND_UNKNOWN; break;
	}
}

static void describe_fcntl(const uint64_t a[6], int64_t result,
			   syscall_memory_reader *read, void *ctx,
			   struct syscall_effect *out)
{
	(void)result; (void)read; (void)ctx;
	switch (a[1]) {
	case 5: case 36:       /* F_GETLK, F_OFD_GETLK: struct flock */
		add_range(out, a[2], 32);
		break;
	case 16:               /* F_GETOWN_EX: struct f_owner_ex */
		add_range(out, a[2], 8);
		break;
	case 1035: case 1037:  /* F_GET_RW_HINT, F_GET_FILE_RW_HINT: a u64 */
		add_range(out, a[2], 8);
		break;
	default:               /* the rest take or return plain values */
		break;
	}
}

static void describe_futex(const uint64_t a[6], int64_t result,
			   syscall_memory_reader *read, void *ctx,
			   struct syscall_effect *out)
{
	(void)read; (void)ctx;
	unsigned op = a[1] & 0x7f; /* without FUTEX_PRIVATE_FLAG, CLOCK_REALTIME */
	/* A wait refused with EAGAIN found another value than the program
	 * read: the word changed behind the recorder's copy (a thread-group
	 * leader's tid word, cleared at its pthread_exit, whose end ptrace
	 * reports only with the process's). */
	if ((op == 0 || op == 9) && result == -11) /* FUTEX_WAIT(_BITSET), EAGAIN */
		add_range(out, a[0], 4);
	/* PI ops write the owner and FUTEX_WAITERS, on some errors too (a
	 * lock that timed out after setting FUTEX_WAITERS). */
	else if (op == 6 || op == 7 || op == 8 || op == 13)
		add_range(out, a[0], 4);
	else if (op == 11 || op == 12) /* FUTEX_(WAIT|CMP)_REQUEUE_PI: the PI word */
		add_range(out, a[4], 4);
	else if (result < 0 && result >= -4095)
		return; /* nothing else written on an error */
	else if (op == 5) /* FUTEX_WAKE_OP modifies *uaddr2 */
		add_range(out, a[4], 4);
}

#define CLONE_VM_FLAG 0x100u
#define CLONE_VFORK_FLAG 0x4000u
#define CLONE_THREAD_FLAG 0x10000u
#define CLONE_PARENT_SETTID_FLAG 0x100000u

#define CLONE_CHILD_SETTID_FLAG 0x1000000u
#define CLONE_PIDFD_FLAG 0x1000u

/* A new thread shares the memory: the kernel's writes for it (its tid,
 * CLONE_CHILD_SETTID) land in ours. A new process that shares it runs in
 * it before we go on (vfork: anything may have changed), or beside us for
 * as long as it lives. */
static void describe_clone_flags(uint64_t flags, uint64_t parent_tid, uint64_t child_tid,
				 struct syscall_effect *out)
{
	bool thread = (flags & CLONE_VM_FLAG) && (flags & CLONE_THREAD_FLAG);
	if (!thread && (flags & CLONE_VM_FLAG)) {
		out->kind = flags & CLONE_VFORK_FLAG ? SYSCALL_KIND_UNKNOWN
						     : SYSCALL_KIND_SHARED_PROCESS;
		return;
	}
	out->kind = thread ? SYSCALL_KIND_THREAD : SYSCALL_KIND_PROCESS;
	if (flags & CLONE_PARENT_SETTID_FLAG)
		add_range(out, parent_tid, 4);
	if (thread && (flags & CLONE_CHILD_SETTID_FLAG))
		add_range(out, child_tid, 4);
}

static void describe_clone(const uint64_t a[6], int64_t result,
			   syscall_memory_reader *read, void *ctx,
			   struct syscall_effect *out)
{
	(void)result; (void)read; (void)ctx;
	describe_clone_flags(a[0], a[2], a[3], out);
	/* clone(2) stores the pidfd where clone3 takes its own pointer: at
	 * the parent-tid argument (the two flags exclude each other). */
	if (a[0] & CLONE_PIDFD_FLAG)
		add_range(out, a[2], 4);
}

static void describe_clone3(const uint64_t a[6], int64_t result,
			    syscall_memory_reader *read, void *ctx,
			    struct syscall_effect *out)
{
	(void)result;
	uint64_t args[4]; /* flags, pidfd, child_tid, parent_tid */
	if (a[1] < sizeof(args) || read(ctx, a[0], args, sizeof(args)) != 0) {
		out->kind = SYSCALL_KIND_UNKNOWN;
		return;
	}
	describe_clone_flags(args[0], args[3], args[2], out);
	if (args[0] & CLONE_PIDFD_FLAG)
		add_range(out, args[1], 8); /* clone3's pidfd field is a u64 */
}

/* mmap family: the affected range, for the recorder to reload mappings and
 * invalidate. brk has no range here: the recorder knows the old break. */
static void describe_mapping_change(const uint64_t a[6], int64_t result,
				    syscall_memory_reader *read, void *ctx,
				    struct syscall_effect *out, long nr)
{
	(void)read; (void)ctx;
	out->kind = SYSCALL_KIND_MAPPINGS;
	switch (nr) {
	case SYS_mmap: add_range(out, (uint64_t)result, a[1]); break;
	case SYS_mremap:
		add_range(out, a[0], a[1]);
		add_range(out, (uint64_t)result, a[2]);
		break;
	case SYS_brk: break;
	case SYS_shmdt: break; /* its size is the segment's: the recorder's mapping table has it */
	default: add_range(out, a[0], a[1]); break; /* munmap mprotect madvise... */
	}
}

static void describe_select(const uint64_t a[6], int64_t result,
			    syscall_memory_reader *read, void *ctx,
			    struct syscall_effect *out)
{
	(void)result; (void)read; (void)ctx;
	uint64_t bytes = ((a[0] + 63) / 64) * 8;
	add_range(out, a[1], bytes);
	add_range(out, a[2], bytes);
	add_range(out, a[3], bytes);
	add_range(out, a[4], TIMESPEC_SIZE);
}

static void describe_arch_prctl(const uint64_t a[6], int64_t result,
				syscall_memory_reader *read, void *ctx,
				struct syscall_effect *out)
{
	(void)result; (void)read; (void)ctx;
	if (a[0] == 0x1003 || a[0] == 0x1004) /* ARCH_GET_FS, ARCH_GET_GS */
		add_range(out, a[1], 8);
}

static void describe_prctl(const uint64_t a[6], int64_t result,
			   syscall_memory_reader *read, void *ctx,
			   struct syscall_effect *out)
{
	(void)result; (void)read; (void)ctx;
	switch (a[0]) {
	case 16:                            /* PR_GET_NAME */
		add_range(out, a[1], 16);
		break;
	case 2: case 5: case 9: case 11:    /* GET_PDEATHSIG, UNALIGN, FPEMU, FPEXC */
	case 19: case 25: case 37:          /* GET_ENDIAN, GET_TSC, GET_CHILD_SUBREAPER */
		add_range(out, a[1], 4);
		break;
	case 40:                            /* PR_GET_TID_ADDRESS */
		add_range(out, a[1], 8);
		break;
	case 62:                            /* PR_SCHED_CORE: GET writes the cookie */
		if (a[1] == 0)
			add_range(out, a[4], 8);
		break;
	case 0x41555856:                    /* PR_GET_AUXV */
		add_range(out, a[1], a[2]);
		break;
	/* Options that write no memory of the caller's. */
	case 1: case 3: case 4: case 6: case 7: case 8: case 10: case 12: case 13: case 14:
	case 15: case 21: case 22: case 23: case 24: case 26: case 27: case 28: case 29:
	case 30: case 31: case 32: case 33: case 34: case 36: case 38: case 39: case 41:
	case 42: case 45: case 46: case 47: case 52: case 53: case 55: case 56: case 57:
	case 58: case 59: case 65: case 66: case 0x53564d41 /* PR_SET_VMA */:
		break;
	default:                            /* unknown (PR_SET_MM among them) */
		out->kind = SYSCALL_KIND_UNKNOWN;
		break;
	}
}

#define PLAIN(nm) [SYS_##nm] = { #nm, SYSCALL_KIND_PLAIN, false, { { 0, 0, 0 } }, NULL }
#define WRITES(nm, ...) [SYS_##nm] = { #nm, SYSCALL_KIND_PLAIN, false, { __VA_ARGS__ }, NULL }
#define SPECIAL(nm, fn) [SYS_##nm] = { #nm, SYSCALL_KIND_PLAIN, false, { { 0, 0, 0 } }, fn }
#define KIND(nm, k) [SYS_##nm] = { #nm, k, false, { { 0, 0, 0 } }, NULL }

static const struct syscall_info table[] = {
	WRITES(read, OUT_RESULT(1)),
	WRITES(pread64, OUT_RESULT(1)),
	SPECIAL(readv, describe_iovec_read),
	SPECIAL(preadv, describe_iovec_read),
	SPECIAL(preadv2, describe_iovec_read),
	SPECIAL(recvmsg, describe_recvmsg),
	SPECIAL(process_vm_readv, describe_iovec_read), /* local iovecs: a[1], a[2] */
	SPECIAL(process_vm_writev, describe_process_vm_writev),
	/* The offsets they move, when given. */
	WRITES(copy_file_range, OUT_FIXED(1, 8), OUT_FIXED(3, 8)),
	WRITES(splice, OUT_FIXED(1, 8), OUT_FIXED(3, 8)),
	SPECIAL(recvmmsg, describe_recvmmsg),
	WRITES(recvfrom, OUT_RESULT(1), OUT_FIXED(4, SOCKADDR_MAX), OUT_FIXED(5, 4)),
	WRITES(stat, OUT_FIXED(1, STAT_SIZE)),
	WRITES(fstat, OUT_FIXED(1, STAT_SIZE)),
	WRITES(lstat, OUT_FIXED(1, STAT_SIZE)),
	WRITES(newfstatat, OUT_FIXED(2, STAT_SIZE)),
	WRITES(statx, OUT_FIXED(4, STATX_SIZE)),
	WRITES(getdents64, OUT_RESULT(1)),
	WRITES(getdents, OUT_RESULT(1)),
	WRITES(clock_gettime, OUT_FIXED(1, TIMESPEC_SIZE)),
	WRITES(clock_getres, OUT_FIXED(1, TIMESPEC_SIZE)),
	WRITES(gettimeofday, OUT_FIXED(0, 16), OUT_FIXED(1, 8)),
	WRITES(time, OUT_FIXED(0, 8)),
	WRITES(uname, OUT_FIXED(0, UTSNAME_SIZE)),
	WRITES(pipe, OUT_FIXED(0, 8)),
	WRITES(pipe2, OUT_FIXED(0, 8)),
	WRITES(socketpair, OUT_FIXED(3, 8)),
	WRITES(wait4, OUT_FIXED(1, 4), OUT_FIXED(3, RUSAGE_SIZE)),
	WRITES(waitid, OUT_FIXED(2, SIGINFO_SIZE), OUT_FIXED(4, RUSAGE_SIZE)),
	WRITES(rt_sigaction, OUT_FIXED(2, KSIGACTION_SIZE)),
	WRITES(rt_sigprocmask, OUT_ARG(2, 3)),
	WRITES(rt_sigpending, OUT_ARG(0, 1)),
	WRITES(rt_sigtimedwait, OUT_FIXED(1, SIGINFO_SIZE)),
	WRITES(sigaltstack, OUT_FIXED(1, STACK_T_SIZE)),
	WRITES(getrandom, OUT_RESULT(0)),
	WRITES(poll, OUT_ARG_TIMES(0, 1, POLLFD_SIZE)),
	WRITES(ppoll, OUT_ARG_TIMES(0, 1, POLLFD_SIZE), OUT_FIXED(2, TIMESPEC_SIZE)),
	SPECIAL(select, describe_select),
	SPECIAL(pselect6, describe_select),
	WRITES(epoll_wait, OUT_RESULT_TIMES(1, EPOLL_EVENT_SIZE)),
	WRITES(epoll_pwait, OUT_RESULT_TIMES(1, EPOLL_EVENT_SIZE)),
	WRITES(epoll_pwait2, OUT_RESULT_TIMES(1, EPOLL_EVENT_SIZE)),
	WRITES(sched_getparam, OUT_FIXED(1, 4)),
	WRITES(sysinfo, OUT_FIXED(0, SYSINFO_SIZE)),
	WRITES(getrlimit, OUT_FIXED(1, RLIMIT_SIZE)),
	WRITES(prlimit64, OUT_FIXED(3, RLIMIT_SIZE)),
	WRITES(times, OUT_FIXED(0, TMS_SIZE)),
	WRITES(getrusage, OUT_FIXED(1, RUSAGE_SIZE)),
	/* ls -l asks for every file's ACL and SELinux label. */
	WRITES(getxattr, OUT_RESULT(2)),
	WRITES(lgetxattr, OUT_RESULT(2)),
	WRITES(fgetxattr, OUT_RESULT(2)),
	WRITES(listxattr, OUT_RESULT(1)),
	WRITES(llistxattr, OUT_RESULT(1)),
	WRITES(flistxattr, OUT_RESULT(1)),
	WRITES(capget, OUT_FIXED(0, 8), OUT_FIXED(1, 24)),
	WRITES(readlink, OUT_RESULT(1)),
	WRITES(readlinkat, OUT_RESULT(2)),
	WRITES(getcwd, OUT_RESULT(0)),
	WRITES(statfs, OUT_FIXED(1, STATFS_SIZE)),
	WRITES(fstatfs, OUT_FIXED(1, STATFS_SIZE)),
	WRITES(getresuid, OUT_FIXED(0, 4), OUT_FIXED(1, 4), OUT_FIXED(2, 4)),
	WRITES(getresgid, OUT_FIXED(0, 4), OUT_FIXED(1, 4), OUT_FIXED(2, 4)),
	WRITES(getgroups, OUT_RESULT_TIMES(1, 4)),
	WRITES(sched_getaffinity, OUT_RESULT(2)),
	WRITES(getitimer, OUT_FIXED(1, ITIMERVAL_SIZE)),
	WRITES(setitimer, OUT_FIXED(2, ITIMERVAL_SIZE)),
	WRITES(timer_settime, OUT_FIXED(3, ITIMERSPEC_SIZE)),
	WRITES(timer_gettime, OUT_FIXED(1, ITIMERSPEC_SIZE)),
	WRITES(timerfd_settime, OUT_FIXED(3, ITIMERSPEC_SIZE)),
	WRITES(timerfd_gettime, OUT_FIXED(1, ITIMERSPEC_SIZE)),
	WRITES(timer_create, OUT_FIXED(2, 4)),
	WRITES(accept, OUT_FIXED(1, SOCKADDR_MAX), OUT_FIXED(2, 4)),
	WRITES(accept4, OUT_FIXED(1, SOCKADDR_MAX), OUT_FIXED(2, 4)),
	WRITES(getsockname, OUT_FIXED(1, SOCKADDR_MAX), OUT_FIXED(2, 4)),
	WRITES(getpeername, OUT_FIXED(1, SOCKADDR_MAX), OUT_FIXED(2, 4)),
	WRITES(getsockopt, OUT_FIXED(3, 256), OUT_FIXED(4, 4)),
	WRITES(sendfile, OUT_FIXED(2, 8)),
	WRITES(getcpu, OUT_FIXED(0, 4), OUT_FIXED(1, 4)),
	WRITES(mincore, OUT_FIXED(2, 1)), /* refined below: one byte per page */
	SPECIAL(ioctl, describe_ioctl),
	SPECIAL(fcntl, describe_fcntl),
	/* Described on error too: a wait's EAGAIN (describe_futex). */
	[SYS_futex] = { "futex", SYSCALL_KIND_PLAIN, true, { { 0, 0, 0 } }, describe_futex },
	SPECIAL(clone, describe_clone),
	SPECIAL(clone3, describe_clone3),
	SPECIAL(arch_prctl, describe_arch_prctl),
	SPECIAL(prctl, describe_prctl),
	[SYS_nanosleep] = { "nanosleep", SYSCALL_KIND_PLAIN, true, { OUT_FIXED(1, TIMESPEC_SIZE) }, NULL },
	[SYS_clock_nanosleep] = { "clock_nanosleep", SYSCALL_KIND_PLAIN, true, { OUT_FIXED(3, TIMESPEC_SIZE) }, NULL },
	KIND(mmap, SYSCALL_KIND_MAPPINGS),
	KIND(munmap, SYSCALL_KIND_MAPPINGS),
	KIND(mprotect, SYSCALL_KIND_MAPPINGS),
	KIND(mremap, SYSCALL_KIND_MAPPINGS),
	KIND(brk, SYSCALL_KIND_MAPPINGS),
	KIND(madvise, SYSCALL_KIND_MAPPINGS), /* MADV_DONTNEED zeroes pages */
	KIND(shmdt, SYSCALL_KIND_MAPPINGS),
	KIND(execve, SYSCALL_KIND_EXEC),
	KIND(execveat, SYSCALL_KIND_EXEC),
	KIND(fork, SYSCALL_KIND_PROCESS),
	KIND(vfork, SYSCALL_KIND_UNKNOWN), /* the child runs in our memory */
	KIND(exit, SYSCALL_KIND_EXIT),
	KIND(exit_group, SYSCALL_KIND_EXIT),
	KIND(rt_sigreturn, SYSCALL_KIND_SIGRETURN),
	PLAIN(write), PLAIN(writev), PLAIN(pwrite64), PLAIN(pwritev), PLAIN(open),
	PLAIN(openat), PLAIN(close), PLAIN(lseek), PLAIN(access), PLAIN(faccessat),
	PLAIN(faccessat2), PLAIN(dup), PLAIN(dup2), PLAIN(dup3), PLAIN(getpid),
	PLAIN(getppid), PLAIN(gettid), PLAIN(getuid), PLAIN(geteuid), PLAIN(getgid),
	PLAIN(getegid), PLAIN(kill), PLAIN(tgkill), PLAIN(tkill), PLAIN(socket),
	PLAIN(connect), PLAIN(bind), PLAIN(listen), PLAIN(sendto), PLAIN(sendmsg),
	PLAIN(shutdown), PLAIN(chdir), PLAIN(fchdir), PLAIN(rename), PLAIN(renameat),
	PLAIN(renameat2), PLAIN(mkdir), PLAIN(mkdirat), PLAIN(rmdir), PLAIN(unlink),
	PLAIN(unlinkat), PLAIN(symlink), PLAIN(symlinkat), PLAIN(link), PLAIN(linkat),
	PLAIN(chmod), PLAIN(fchmod), PLAIN(fchmodat), PLAIN(chown), PLAIN(fchown),
	PLAIN(lchown), PLAIN(fchownat), PLAIN(umask), PLAIN(sched_yield),
	PLAIN(setsid), PLAIN(setpgid), PLAIN(getpgid), PLAIN(getpgrp), PLAIN(getsid),
	PLAIN(fsync), PLAIN(fdatasync), PLAIN(ftruncate), PLAIN(truncate), PLAIN(flock),
	PLAIN(eventfd2), PLAIN(epoll_create1), PLAIN(epoll_ctl), PLAIN(timerfd_create),
	PLAIN(alarm), PLAIN(pause), PLAIN(set_tid_address), PLAIN(set_robust_list),
	PLAIN(rseq), PLAIN(sched_setaffinity), PLAIN(membarrier), PLAIN(msync),
	PLAIN(fadvise64), PLAIN(utimensat), PLAIN(fallocate), PLAIN(memfd_create),
	PLAIN(close_range), PLAIN(setuid), PLAIN(setgid), PLAIN(setreuid),
	PLAIN(setregid), PLAIN(setresuid), PLAIN(setresgid), PLAIN(setgroups),
	PLAIN(setrlimit), PLAIN(setpriority), PLAIN(getpriority), PLAIN(inotify_init1),
	PLAIN(inotify_add_watch), PLAIN(inotify_rm_watch), PLAIN(timer_delete),
	PLAIN(mlock), PLAIN(munlock), PLAIN(sync), PLAIN(syncfs), PLAIN(sethostname),
	PLAIN(setdomainname), PLAIN(signalfd4), PLAIN(tee), PLAIN(creat), PLAIN(sched_setscheduler),
	PLAIN(sched_getscheduler), PLAIN(ioprio_get), PLAIN(ioprio_set),
	PLAIN(pidfd_open), PLAIN(pidfd_send_signal), PLAIN(sched_get_priority_max),
	PLAIN(sched_get_priority_min), PLAIN(setxattr), PLAIN(lsetxattr),
	PLAIN(fsetxattr), PLAIN(removexattr), PLAIN(lremovexattr), PLAIN(fremovexattr),
	PLAIN(pkey_alloc), PLAIN(pkey_free), PLAIN(set_mempolicy), PLAIN(openat2),
	PLAIN(readahead), PLAIN(sync_file_range), PLAIN(mknod), PLAIN(mknodat),
	PLAIN(utimes), PLAIN(futimesat), PLAIN(epoll_create),
};

#define TABLE_SIZE (sizeof(table) / sizeof(table[0]))

static uint64_t output_size(const struct output *o, const uint64_t a[6], int64_t result)
{
	switch (o->rule) {
	case SIZE_FIXED: return o->n;
	case SIZE_RESULT: return result > 0 ? (uint64_t)result : 0;
	case SIZE_ARG: return a[o->n];
	case SIZE_ARG_TIMES: return a[o->n & 7] * (o->n >> 3);
	case SIZE_RESULT_TIMES: return result > 0 ? (uint64_t)result * o->n : 0;
	default: return 0;
	}
}

void syscall_effect_describe(long nr, const uint64_t a[6], int64_t result,
			     syscall_memory_reader *read, void *ctx,
			     struct syscall_effect *out)
{
	memset(out, 0, sizeof(*out));
	if (nr < 0 || (size_t)nr >= TABLE_SIZE || !table[nr].name) {
		out->kind = SYSCALL_KIND_UNKNOWN;
		return;
	}
	const struct syscall_info *s = &table[nr];
	out->kind = s->kind;
	bool failed = result < 0 && result >= -4095;
	if (out->kind == SYSCALL_KIND_MAPPINGS) {
		/* madvise fails with ENOMEM over a hole in the range, after
		 * zeroing (MADV_DONTNEED) the pages mapped before it. */
		if (!failed || nr == SYS_madvise)
			describe_mapping_change(a, result, read, ctx, out, nr);
		else
			out->kind = SYSCALL_KIND_PLAIN;
		return;
	}
	if (failed && !s->writes_on_error)
		return;
	if (s->special) {
		s->special(a, result, read, ctx, out);
		return;
	}
	for (unsigned i = 0; i < 3 && s->out[i].rule != SIZE_NONE; i++)
		add_range(out, a[s->out[i].arg], output_size(&s->out[i], a, result));
	if (nr == SYS_mincore && out->count)
		out->ranges[0].len = (a[1] + 4095) / 4096;
}

const char *syscall_name(long nr)
{
	if (nr < 0 || (size_t)nr >= TABLE_SIZE)
		return NULL;
	return table[nr].name;
}

int syscall_changed_file_fd(long nr, const uint64_t args[6], int64_t result)
{
	if (result < 0)
		return -1;
	switch (nr) {
	case SYS_write: case SYS_pwrite64: case SYS_writev: case SYS_pwritev:
	case SYS_pwritev2: case SYS_ftruncate: case SYS_fallocate: case SYS_sendfile:
		return (int)args[0];
	case SYS_copy_file_range: case SYS_splice:
		return (int)args[2];
	default:
		return -1;
	}
}
