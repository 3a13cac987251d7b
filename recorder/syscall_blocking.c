/*
 * syscall_blocking.c — the syscalls known never to wait on another thread
 * of the program. A wrong "may block" only costs a background step; a
 * wrong "never blocks" can deadlock the recording, so the list is short
 * and every other syscall may block. Also the one kind of waiting syscall
 * that writes the program's memory before it sleeps: a PI futex lock.
 */
#include <stddef.h>
#include <sys/syscall.h>

#include "recorder/syscall_blocking.h"

#define FUTEX_CMD_MASK 0x7f
#define FUTEX_WAKE_OP_NR 1
#define FUTEX_REQUEUE_OP_NR 3
#define FUTEX_CMP_REQUEUE_OP_NR 4
#define FUTEX_WAKE_OP_OP_NR 5
#define FUTEX_LOCK_PI_OP_NR 6
#define FUTEX_UNLOCK_PI_OP_NR 7
#define FUTEX_TRYLOCK_PI_OP_NR 8
#define FUTEX_WAKE_BITSET_OP_NR 10
#define FUTEX_CMP_REQUEUE_PI_OP_NR 12
#define FUTEX_LOCK_PI2_OP_NR 13
#define F_SETLKW_NR 7
#define F_OFD_SETLKW_NR 38

static const long never_blocking[] = {
	SYS_getpid, SYS_gettid, SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid,
	SYS_getpgrp, SYS_getsid, SYS_getpgid, SYS_getresuid, SYS_getresgid, SYS_getgroups,
	SYS_brk, SYS_mmap, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_madvise, SYS_mlock,
	SYS_munlock, SYS_mincore, SYS_membarrier,
	SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_sigaltstack, SYS_rt_sigpending,
	SYS_arch_prctl, SYS_prctl, SYS_set_tid_address, SYS_set_robust_list, SYS_get_robust_list,
	SYS_rseq, SYS_clone, SYS_clone3,
	SYS_close, SYS_lseek, SYS_fstat, SYS_newfstatat, SYS_stat, SYS_lstat, SYS_statx,
	SYS_access, SYS_faccessat, SYS_faccessat2, SYS_readlink, SYS_readlinkat, SYS_getcwd,
	SYS_getdents64, SYS_umask, SYS_dup, SYS_dup2, SYS_dup3, SYS_pipe, SYS_pipe2,
	SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday, SYS_time, SYS_getcpu,
	SYS_uname, SYS_sysinfo, SYS_times, SYS_getrusage, SYS_getrlimit, SYS_setrlimit,
	SYS_prlimit64, SYS_getrandom, SYS_sched_yield, SYS_sched_getaffinity,
	SYS_sched_setaffinity, SYS_sched_getparam, SYS_sched_getscheduler,
	SYS_kill, SYS_tgkill, SYS_tkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo,
	SYS_eventfd2, SYS_epoll_create1, SYS_epoll_ctl, SYS_timerfd_create,
	SYS_timerfd_settime, SYS_timerfd_gettime, SYS_signalfd4, SYS_timer_create,
	SYS_timer_settime, SYS_timer_gettime, SYS_timer_delete, SYS_setitimer, SYS_getitimer,
	SYS_socket, SYS_socketpair, SYS_bind, SYS_listen, SYS_getsockname, SYS_getpeername,
	SYS_setsockopt, SYS_getsockopt, SYS_shutdown,
	SYS_unlink, SYS_unlinkat, SYS_rename, SYS_renameat, SYS_renameat2, SYS_mkdir,
	SYS_mkdirat, SYS_rmdir, SYS_chmod, SYS_fchmod, SYS_fchmodat, SYS_chdir, SYS_fchdir,
	SYS_ftruncate, SYS_truncate, SYS_fadvise64, SYS_utimensat,
};

static bool futex_never_blocks(uint64_t op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAKE_OP_NR:
	case FUTEX_REQUEUE_OP_NR:
	case FUTEX_CMP_REQUEUE_OP_NR:
	case FUTEX_WAKE_OP_OP_NR:
	case FUTEX_UNLOCK_PI_OP_NR:
	case FUTEX_TRYLOCK_PI_OP_NR:
	case FUTEX_WAKE_BITSET_OP_NR:
	case FUTEX_CMP_REQUEUE_PI_OP_NR:
		return true;
	default:
		return false;
	}
}

bool syscall_may_block(long nr, const uint64_t args[6])
{
	if (nr == SYS_futex)
		return !futex_never_blocks(args[1]);
	if (nr == SYS_fcntl)
		return args[1] == F_SETLKW_NR || args[1] == F_OFD_SETLKW_NR;
	for (size_t i = 0; i < sizeof(never_blocking) / sizeof(never_blocking[0]); i++)
		if (never_blocking[i] == nr)
			return false;
	return true;
}

bool syscall_locks_pi_futex(long nr, const uint64_t args[6], uint64_t *word)
{
	if (nr != SYS_futex)
		return false;
	uint64_t op = args[1] & FUTEX_CMD_MASK;
	if (op != FUTEX_LOCK_PI_OP_NR && op != FUTEX_LOCK_PI2_OP_NR)
		return false;
	*word = args[0];
	return true;
}
