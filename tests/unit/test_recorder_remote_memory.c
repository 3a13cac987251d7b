/*
 * test_recorder_remote_memory.c — the emulator's memory interface over a
 * stopped child process: reads, writes, faults on unmapped and read-only
 * pages, partial fetches at the end of a mapping, forced writes.
 */
#include <check.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "recorder/remote_memory.h"

#define PAGE 4096

static char greeting[] = "hello from the parent";

struct child {
	pid_t pid;
	struct remote_memory rm;
	uint8_t *rw, *ro, *edge; /* edge: one page, with an unmapped page after it */
};

/* Maps the test pages, then forks a child that stops under ptrace with a
 * copy of them. */
static void child_start(struct child *c)
{
	c->rw = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c->ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c->edge = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(c->rw != MAP_FAILED && c->ro != MAP_FAILED && c->edge != MAP_FAILED);
	memset(c->rw, 0x11, PAGE);
	memset(c->ro, 0x22, PAGE);
	memset(c->edge, 0x33, PAGE);
	ck_assert_int_eq(mprotect(c->ro, PAGE, PROT_READ), 0);
	ck_assert_int_eq(munmap(c->edge + PAGE, PAGE), 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (c->pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
	ck_assert(WIFSTOPPED(status));
	remote_memory_init(&c->rm, c->pid);
}

static void child_end(struct child *c)
{
	remote_memory_reset(&c->rm);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
}

START_TEST(test_read_write)
{
	struct child c;
	child_start(&c);
	char buf[sizeof(greeting)];
	const struct emu_memory_ops *ops = &remote_memory_ops;
	ck_assert_int_eq(ops->read(&c.rm, (uintptr_t)greeting, buf, sizeof(buf)), EMU_MEM_OK);
	ck_assert_str_eq(buf, greeting);

	static const char news[] = "written by the emulator";
	ck_assert_int_eq(ops->write(&c.rm, (uintptr_t)c.rw + 100, news, sizeof(news)), EMU_MEM_OK);
	char back[sizeof(news)];
	ck_assert_int_eq(ops->read(&c.rm, (uintptr_t)c.rw + 100, back, sizeof(back)), EMU_MEM_OK);
	ck_assert_str_eq(back, news);
	/* Our own copy is untouched: the write went to the child. */
	ck_assert_uint_eq(c.rw[100], 0x11);
	child_end(&c);
}
END_TEST

START_TEST(test_faults)
{
	struct child c;
	child_start(&c);
	const struct emu_memory_ops *ops = &remote_memory_ops;
	uint8_t buf[16];
	/* Unmapped. */
	ck_assert_int_eq(ops->read(&c.rm, (uintptr_t)c.edge + PAGE, buf, 8), EMU_MEM_FAULT);
	ck_assert_int_eq(ops->write(&c.rm, (uintptr_t)c.edge + PAGE, buf, 8), EMU_MEM_FAULT);
	ck_assert_int_eq(ops->read(&c.rm, 0, buf, 8), EMU_MEM_FAULT);
	/* Across the end of a mapping. */
	ck_assert_int_eq(ops->read(&c.rm, (uintptr_t)c.edge + PAGE - 4, buf, 8), EMU_MEM_FAULT);
	/* Wrapping around the address space. */
	ck_assert_int_eq(ops->read(&c.rm, UINT64_MAX - 3, buf, 8), EMU_MEM_FAULT);
	/* Read-only: readable, not writable by the program. */
	ck_assert_int_eq(ops->read(&c.rm, (uintptr_t)c.ro, buf, 8), EMU_MEM_OK);
	ck_assert_uint_eq(buf[0], 0x22);
	memset(buf, 0x44, sizeof(buf));
	ck_assert_int_eq(ops->write(&c.rm, (uintptr_t)c.ro, buf, 8), EMU_MEM_FAULT);
	ck_assert(!remote_memory_writable(&c.rm, (uintptr_t)c.ro, 8));
	ck_assert(remote_memory_writable(&c.rm, (uintptr_t)c.rw, 8));
	ck_assert(!remote_memory_writable(&c.rm, (uintptr_t)c.edge + PAGE - 4, 8));
	child_end(&c);
}
END_TEST

START_TEST(test_fetch_partial)
{
	struct child c;
	child_start(&c);
	uint8_t buf[16];
	ck_assert_uint_eq(remote_memory_ops.fetch(&c.rm, (uintptr_t)c.edge + PAGE - 6, buf, 16), 6);
	ck_assert_uint_eq(buf[5], 0x33);
	ck_assert_uint_eq(remote_memory_ops.fetch(&c.rm, (uintptr_t)c.edge + PAGE, buf, 16), 0);
	ck_assert_uint_eq(remote_memory_ops.fetch(&c.rm, (uintptr_t)c.edge, buf, 16), 16);
	child_end(&c);
}
END_TEST

START_TEST(test_poke_read_only)
{
	struct child c;
	child_start(&c);
	static const uint8_t code[2] = { 0x0f, 0x05 };
	ck_assert_int_eq(remote_memory_poke(&c.rm, (uintptr_t)c.ro + 8, code, 2), 0);
	uint8_t back[4];
	ck_assert_int_eq(remote_memory_read(&c.rm, (uintptr_t)c.ro + 7, back, 4), EMU_MEM_OK);
	ck_assert_uint_eq(back[0], 0x22);
	ck_assert_uint_eq(back[1], 0x0f);
	ck_assert_uint_eq(back[2], 0x05);
	ck_assert_uint_eq(back[3], 0x22);
	/* Still read-only for the program. */
	ck_assert(!remote_memory_writable(&c.rm, (uintptr_t)c.ro, 1));
	ck_assert_int_ne(remote_memory_poke(&c.rm, (uintptr_t)c.edge + PAGE, code, 2), 0);
	child_end(&c);
}
END_TEST

static Suite *remote_memory_suite(void)
{
	Suite *s = suite_create("recorder_remote_memory");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_read_write);
	tcase_add_test(tc, test_faults);
	tcase_add_test(tc, test_fetch_partial);
	tcase_add_test(tc, test_poke_read_only);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(remote_memory_suite)
