/*
 * test_recorder_syscalls.c — the syscall effect table: which memory a
 * syscall wrote, checked on representative syscalls of each rule.
 */
#include <check.h>
#include <string.h>
#include <sys/syscall.h>

#include "recorder/syscall_effects.h"
#include "check_main.h"

/* A fake tracee memory holding an iovec array at 0x1000. */
static const uint64_t iovecs[] = { 0x5000, 10, 0x6000, 100, 0x7000, 50 };

/* At 0x8000, a struct msghdr as recvmsg leaves it: a 16-byte address at
 * 0x9000, the iovecs above, 24 bytes of control data at 0xa000. At
 * 0xb000, two struct mmsghdr over the same iovecs, with 5 and 20 bytes
 * received. */
static const uint64_t msghdr[] = { 0x9000, 16, 0x1000, 3, 0xa000, 24, 0 };
static const uint64_t mmsghdrs[] = { 0, 0, 0x1000, 3, 0, 0, 0, 5,
				     0x9000, 16, 0x1000, 3, 0, 0, 0, 20 };

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	static const struct { uint64_t at; const void *bytes; size_t size; } regions[] = {
		{ 0x1000, iovecs, sizeof(iovecs) },
		{ 0x8000, msghdr, sizeof(msghdr) },
		{ 0xb000, mmsghdrs, sizeof(mmsghdrs) },
	};
	for (size_t i = 0; i < sizeof(regions) / sizeof(regions[0]); i++)
		if (addr >= regions[i].at && addr + len <= regions[i].at + regions[i].size) {
			memcpy(buf, (const uint8_t *)regions[i].bytes + (addr - regions[i].at), len);
			return 0;
		}
	return -1;
}

static struct syscall_effect describe(long nr, uint64_t a0, uint64_t a1,
				      uint64_t a2, uint64_t a3, int64_t result)
{
	uint64_t a[6] = { a0, a1, a2, a3, 0, 0 };
	struct syscall_effect e;
	syscall_effect_describe(nr, a, result, fake_read, NULL, &e);
	return e;
}

START_TEST(test_read_writes_result_bytes)
{
	struct syscall_effect e = describe(SYS_read, 0, 0x4000, 4096, 0, 17);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.ranges[0].addr, 0x4000);
	ck_assert_uint_eq(e.ranges[0].len, 17);
	e = describe(SYS_read, 0, 0x4000, 4096, 0, -11); /* EAGAIN */
	ck_assert_uint_eq(e.count, 0);
	ck_assert_str_eq(syscall_name(SYS_read), "read");
}
END_TEST

START_TEST(test_readv_follows_iovecs)
{
	struct syscall_effect e = describe(SYS_readv, 3, 0x1000, 3, 0, 60);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(e.count, 2);
	ck_assert_uint_eq(e.ranges[0].addr, 0x5000);
	ck_assert_uint_eq(e.ranges[0].len, 10);
	ck_assert_uint_eq(e.ranges[1].addr, 0x6000);
	ck_assert_uint_eq(e.ranges[1].len, 50);
	/* An unreadable iovec array: anything may have been written. */
	e = describe(SYS_readv, 3, 0x9000, 3, 0, 60);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_UNKNOWN);
}
END_TEST

START_TEST(test_mapping_changes)
{
	struct syscall_effect e = describe(SYS_mmap, 0, 8192, 3, 0x22, 0x7f0000000000);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_MAPPINGS);
	ck_assert_uint_eq(e.ranges[0].addr, 0x7f0000000000);
	ck_assert_uint_eq(e.ranges[0].len, 8192);
	e = describe(SYS_munmap, 0x7f0000000000, 4096, 0, 0, -22);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN); /* failed: nothing changed */
	ck_assert_uint_eq(e.count, 0);
}
END_TEST

START_TEST(test_process_and_thread_kinds)
{
	/* glibc's pthread_create flags: CLONE_VM|CLONE_FS|CLONE_FILES|
	 * CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|
	 * CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID */
	struct syscall_effect e = describe(SYS_clone, 0x3d0f00, 0x7000, 0x8000, 0, 1234);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_THREAD);
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.ranges[0].addr, 0x8000);
	e = describe(SYS_clone, 0x1200011, 0, 0, 0, 1234); /* fork() */
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PROCESS);
	ck_assert_uint_eq(e.count, 0); /* CLONE_CHILD_SETTID: in the child's copy */
	/* A thread with CLONE_CHILD_SETTID: both tid words are ours. */
	e = describe(SYS_clone, 0x1310f00, 0x7000, 0x8000, 0x9000, 1234);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_THREAD);
	ck_assert_uint_eq(e.count, 2);
	ck_assert_uint_eq(e.ranges[1].addr, 0x9000);
	/* vfork and CLONE_VM children run in our memory first. */
	ck_assert_int_eq(describe(SYS_vfork, 0, 0, 0, 0, 1234).kind, SYSCALL_KIND_UNKNOWN);
	ck_assert_int_eq(describe(SYS_clone, 0x4111, 0x7000, 0, 0, 1234).kind, SYSCALL_KIND_UNKNOWN);
	/* CLONE_VM without CLONE_VFORK: a process beside us in our memory. */
	ck_assert_int_eq(describe(SYS_clone, 0x111, 0x7000, 0, 0, 1234).kind,
			 SYSCALL_KIND_SHARED_PROCESS);
	ck_assert_int_eq(describe(SYS_exit_group, 0, 0, 0, 0, 0).kind, SYSCALL_KIND_EXIT);
	ck_assert_int_eq(describe(SYS_execve, 0, 0, 0, 0, 0).kind, SYSCALL_KIND_EXEC);
}
END_TEST

START_TEST(test_unknown_is_unknown)
{
	ck_assert_int_eq(describe(100000, 0, 0, 0, 0, 0).kind, SYSCALL_KIND_UNKNOWN);
	ck_assert_int_eq(describe(-1, 0, 0, 0, 0, 0).kind, SYSCALL_KIND_UNKNOWN);
	ck_assert_int_eq(describe(SYS_ioctl, 1, 0xdead, 0, 0, 0).kind, SYSCALL_KIND_UNKNOWN);
	struct syscall_effect e = describe(SYS_ioctl, 1, 0x5413, 0x3000, 0, 0);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(e.ranges[0].len, 8);
	ck_assert_ptr_null(syscall_name(100000));
}
END_TEST

static void assert_range(const struct syscall_effect *e, size_t i, uint64_t addr, uint64_t len)
{
	ck_assert_uint_lt(i, e->count);
	ck_assert_uint_eq(e->ranges[i].addr, addr);
	ck_assert_uint_eq(e->ranges[i].len, len);
}

/* The extended-attribute reads write the value (or the name list) they
 * return; the writes write nothing of ours. */
START_TEST(test_xattr_reads_write_result_bytes)
{
	struct syscall_effect e = describe(SYS_lgetxattr, 0x1000, 0x2000, 0x3000, 64, 28);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(e.count, 1);
	assert_range(&e, 0, 0x3000, 28);
	e = describe(SYS_flistxattr, 3, 0x4000, 256, 0, 17);
	ck_assert_uint_eq(e.count, 1);
	assert_range(&e, 0, 0x4000, 17);
	e = describe(SYS_getxattr, 0x1000, 0x2000, 0x3000, 64, -61); /* ENODATA */
	ck_assert_uint_eq(e.count, 0);
	ck_assert_int_eq(describe(SYS_setxattr, 0x1000, 0x2000, 0x3000, 8, 0).kind,
			 SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(describe(SYS_setxattr, 0x1000, 0x2000, 0x3000, 8, 0).count, 0);
}
END_TEST

/* recvmsg writes the header's lengths and flags, the address, the bytes
 * received over the iovecs and the control data. */
START_TEST(test_recvmsg_follows_msghdr)
{
	struct syscall_effect e = describe(SYS_recvmsg, 3, 0x8000, 0, 0, 30);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(e.count, 5);
	assert_range(&e, 0, 0x8000, 56);
	assert_range(&e, 1, 0x9000, 16);
	assert_range(&e, 2, 0xa000, 24);
	assert_range(&e, 3, 0x5000, 10);
	assert_range(&e, 4, 0x6000, 20);
	ck_assert_uint_eq(describe(SYS_recvmsg, 3, 0x8000, 0, 0, -11).count, 0); /* EAGAIN */
	ck_assert_int_eq(describe(SYS_recvmsg, 3, 0x7000, 0, 0, 30).kind, SYSCALL_KIND_UNKNOWN);
}
END_TEST

START_TEST(test_recvmmsg_follows_each_message)
{
	uint64_t a[6] = { 3, 0xb000, 2, 0, 0xc000, 0 };
	struct syscall_effect e;
	syscall_effect_describe(SYS_recvmmsg, a, 2, fake_read, NULL, &e);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	assert_range(&e, 0, 0xb000 + 56, 8);
	assert_range(&e, 1, 0xb000, 56);
	assert_range(&e, 2, 0x5000, 5);
	assert_range(&e, 3, 0xb040 + 56, 8);
	assert_range(&e, 4, 0xb040, 56);
	assert_range(&e, 5, 0x9000, 16);
	assert_range(&e, 6, 0x5000, 10);
	assert_range(&e, 7, 0x6000, 10);
	assert_range(&e, 8, 0xc000, 16);
	ck_assert_uint_eq(e.count, 9);
}
END_TEST

/* Writes the issue list of missed kernel writes named: each described. */
START_TEST(test_offsets_hints_and_options)
{
	struct syscall_effect e = describe(SYS_copy_file_range, 3, 0x4000, 4, 0x4100, 5);
	ck_assert_uint_eq(e.count, 2);
	ck_assert_uint_eq(e.ranges[0].addr, 0x4000);
	ck_assert_uint_eq(e.ranges[1].addr, 0x4100);
	ck_assert_uint_eq(e.ranges[1].len, 8);
	e = describe(SYS_splice, 3, 0, 4, 0x4200, 5); /* no input offset */
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.ranges[0].addr, 0x4200);
	e = describe(SYS_fcntl, 3, 16 /* F_GETOWN_EX */, 0x4300, 0, 0);
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.ranges[0].len, 8);
	e = describe(SYS_fcntl, 3, 1035 /* F_GET_RW_HINT */, 0x4400, 0, 0);
	ck_assert_uint_eq(e.count, 1);
	e = describe(SYS_fcntl, 3, 4 /* F_SETFL */, 0x800, 0, 0);
	ck_assert_uint_eq(e.count, 0);
	e = describe(SYS_prctl, 25 /* PR_GET_TSC */, 0x4500, 0, 0, 0);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.ranges[0].len, 4);
	e = describe(SYS_prctl, 40 /* PR_GET_TID_ADDRESS */, 0x4600, 0, 0, 0);
	ck_assert_uint_eq(e.ranges[0].len, 8);
	e = describe(SYS_prctl, 15 /* PR_SET_NAME */, 0x4700, 0, 0, 0);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(e.count, 0);
	e = describe(SYS_prctl, 35 /* PR_SET_MM */, 0, 0, 0, 0);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_UNKNOWN);
	e = describe(SYS_prctl, 0x7fff /* not an option Linux has */, 0, 0, 0, -22);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN); /* failed: wrote nothing */
	e = describe(SYS_prctl, 0x7fff, 0, 0, 0, 0);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_UNKNOWN);
}
END_TEST

START_TEST(test_clone_pidfd_and_failed_madvise)
{
	struct syscall_effect e = describe(SYS_clone, 0x1000 | 17 /* CLONE_PIDFD|SIGCHLD */, 0,
					   0x4800, 0, 1234);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PROCESS);
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.ranges[0].addr, 0x4800);
	/* MADV_DONTNEED over a hole: ENOMEM, yet the range changed. */
	e = describe(SYS_madvise, 0x10000, 0x3000, 4, 0, -12);
	ck_assert_int_eq(e.kind, SYSCALL_KIND_MAPPINGS);
	ck_assert_uint_eq(e.ranges[0].addr, 0x10000);
	ck_assert_uint_eq(e.ranges[0].len, 0x3000);
	e = describe(SYS_munmap, 0x10000, 0x3000, 0, 0, -22); /* failed munmap: nothing */
	ck_assert_int_eq(e.kind, SYSCALL_KIND_PLAIN);
	ck_assert_uint_eq(e.count, 0);
}
END_TEST

/* A futex wait refused with EAGAIN saw another value than the program:
 * its word is forgotten. Other failures of other ops write nothing; a PI
 * lock may have set FUTEX_WAITERS before it failed. */
START_TEST(test_futex_wait_eagain_forgets_word)
{
	struct syscall_effect e = describe(SYS_futex, 0x5000, 0x109 /* WAIT_BITSET|REALTIME */,
					   7, 0, -11);
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.ranges[0].addr, 0x5000);
	ck_assert_uint_eq(e.ranges[0].len, 4);
	e = describe(SYS_futex, 0x5000, 0x80 /* WAIT_PRIVATE */, 7, 0, -110); /* ETIMEDOUT */
	ck_assert_uint_eq(e.count, 0);
	e = describe(SYS_futex, 0x5000, 0x86 /* LOCK_PI_PRIVATE */, 0, 0, -110);
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.ranges[0].addr, 0x5000);
	e = describe(SYS_futex, 0x5000, 0x87 /* UNLOCK_PI_PRIVATE */, 0, 0, -1);
	ck_assert_uint_eq(e.count, 1);
	e = describe(SYS_futex, 0x5000, 0x81 /* WAKE_PRIVATE */, 1, 0, 1);
	ck_assert_uint_eq(e.count, 0);
}
END_TEST

/* process_vm_readv fills its local iovecs (a[1], a[2]); process_vm_writev
 * its remote ones (a[3], a[4]), which may be the caller's own memory. */
START_TEST(test_process_vm_iovecs)
{
	uint64_t a[6] = { 42, 0x1000, 3, 0, 0, 0 };
	struct syscall_effect e;
	syscall_effect_describe(SYS_process_vm_readv, a, 15, fake_read, NULL, &e);
	ck_assert_uint_eq(e.count, 2);
	ck_assert_uint_eq(e.ranges[0].addr, 0x5000);
	ck_assert_uint_eq(e.ranges[1].len, 5);
	uint64_t w[6] = { 42, 0x9999, 1, 0x1000, 3, 0 };
	syscall_effect_describe(SYS_process_vm_writev, w, 120, fake_read, NULL, &e);
	ck_assert_uint_eq(e.count, 3);
	ck_assert_uint_eq(e.ranges[2].addr, 0x7000);
	ck_assert_uint_eq(e.ranges[2].len, 10);
}
END_TEST

static Suite *syscalls_suite(void)
{
	Suite *s = suite_create("recorder_syscalls");
	TCase *tc = tcase_create("effects");
	tcase_add_test(tc, test_read_writes_result_bytes);
	tcase_add_test(tc, test_readv_follows_iovecs);
	tcase_add_test(tc, test_mapping_changes);
	tcase_add_test(tc, test_process_and_thread_kinds);
	tcase_add_test(tc, test_unknown_is_unknown);
	tcase_add_test(tc, test_xattr_reads_write_result_bytes);
	tcase_add_test(tc, test_recvmsg_follows_msghdr);
	tcase_add_test(tc, test_recvmmsg_follows_each_message);
	tcase_add_test(tc, test_offsets_hints_and_options);
	tcase_add_test(tc, test_clone_pidfd_and_failed_madvise);
	tcase_add_test(tc, test_process_vm_iovecs);
	tcase_add_test(tc, test_futex_wait_eagain_forgets_word);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(syscalls_suite)
