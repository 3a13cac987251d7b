/*
 * lazy_flush.c — many pages written between system calls, then calls
 * whose kernel side touches only their buffer (read and write on a pipe)
 * and calls that reach further (a write through /proc/self/mem, a write
 * to a file the program maps privately, a signal's frame on a stack it
 * wrote): every byte the program wrote is in its memory when the kernel
 * reads it, and none is lost where the kernel writes beside it. The
 * recorder keeps written pages to itself across the buffer-only calls
 * (recorder/syscall_flush.c); each line here checks one way that could go
 * wrong.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task_state_letter.h"

#define PAGES 64
static unsigned char big[PAGES * 4096];

static void dirty_all(unsigned seed)
{
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(seed + i * 7 + i / 4096);
}

static unsigned long sum(const unsigned char *p, size_t n)
{
	unsigned long s = 0;
	for (size_t i = 0; i < n; i++)
		s = s * 31 + p[i];
	return s;
}

/* The kernel writes ten bytes into a page the program wrote all of. */
static void read_beside(int p[2])
{
	dirty_all(1);
	if (write(p[1], "0123456789", 10) != 10 || read(p[0], big + 5 * 4096 + 100, 10) != 10)
		exit(2);
	printf("read beside written bytes: %lx\n", sum(big, sizeof(big)));
}

/* The kernel reads a buffer the program just wrote. */
static void write_written(int p[2])
{
	static unsigned char back[3000];
	dirty_all(2);
	if (write(p[1], big + 9 * 4096 + 7, sizeof(back)) != (ssize_t)sizeof(back) ||
	    read(p[0], back, sizeof(back)) != (ssize_t)sizeof(back))
		exit(2);
	printf("pipe carried the written bytes: %s, %lx\n",
	       memcmp(back, big + 9 * 4096 + 7, sizeof(back)) == 0 ? "yes" : "NO", sum(big, sizeof(big)));
}

/* A write through the process's memory file lands between written bytes. */
static void write_through_memory_file(void)
{
	int fd = open("/proc/self/mem", O_RDWR);
	if (fd < 0) {
		printf("no /proc/self/mem\n");
		return;
	}
	dirty_all(3);
	unsigned char *at = big + 20 * 4096 + 50;
	if (pwrite(fd, "MEM", 3, (off_t)(unsigned long)at) != 3 ||
	    lseek(fd, (off_t)(unsigned long)(at + 4096), SEEK_SET) < 0 || write(fd, "SEEK", 4) != 4)
		exit(2);
	close(fd);
	printf("memory file wrote: %.3s %.4s, %lx\n", at, at + 4096, sum(big, sizeof(big)));
}

/* A write to a file whose private mapping the program has written. */
static void write_mapped_file(void)
{
	char path[] = "lazy_flush_XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		exit(2);
	unlink(path);
	static char page[8 * 4096];
	memset(page, 'f', sizeof(page));
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
		exit(2);
	char *m = mmap(NULL, sizeof(page), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		exit(2);
	for (int round = 0; round < 2; round++) /* the second round: own copies */
		for (size_t i = 0; i < sizeof(page); i += 64)
			m[i] = (char)('A' + round + i % 7);
	dirty_all(4);
	if (pwrite(fd, "FILE", 4, 3 * 4096 + 8) != 4 || write(fd, "END", 3) != 3)
		exit(2);
	printf("private mapping kept: %lx, %lx\n", sum((unsigned char *)m, sizeof(page)),
	       sum(big, sizeof(big)));
	munmap(m, sizeof(page));
	close(fd);
}

/* Mappings changed over written pages: made read-only (the bytes must be
 * there before they refuse writes), moved (they go with the pages),
 * removed and mapped again (they are gone). */
static void mappings_over_written_pages(void)
{
	size_t len = 32 * 4096;
	unsigned char *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		exit(2);
	dirty_all(6);
	memset(a, 0x5a, len);
	if (mprotect(a, len, PROT_READ) != 0)
		exit(2);
	printf("read-only after writes: %lx\n", sum(a, len));
	if (mprotect(a, len, PROT_READ | PROT_WRITE) != 0)
		exit(2);
	for (size_t i = 0; i < len; i += 3)
		a[i] = (unsigned char)i;
	dirty_all(7);
	unsigned char *b = mremap(a, len, 4 * len, MREMAP_MAYMOVE);
	if (b == MAP_FAILED)
		exit(2);
	printf("moved with its bytes: %lx\n", sum(b, len));
	for (size_t i = 0; i < len; i += 5)
		b[i] = 0xee;
	dirty_all(8);
	if (munmap(b, 4 * len) != 0 ||
	    mmap(b, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != b)
		exit(2);
	printf("mapped again: %lx, %lx\n", sum(b, len), sum(big, sizeof(big)));
	munmap(b, len);
}

static volatile sig_atomic_t handled;
static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

/* A signal arrives while the program waits in read(), its stack written
 * just above: the kernel's frame goes below. */
static void __attribute__((noinline)) signal_beside_stack(int p[2])
{
	pid_t parent = getpid();
	pid_t child = fork();
	if (child == 0) {
		char stat[64];
		snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)parent);
		while (task_state_letter(stat) != 'S')
			usleep(1000);
		kill(parent, SIGUSR1);
		while (task_state_letter(stat) != 'S')
			usleep(1000);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	/* Written after the fork (which takes everything to the process). */
	unsigned char local[20 * 4096];
	for (size_t i = 0; i < sizeof(local); i++)
		local[i] = (unsigned char)(i * 13 + 5);
	dirty_all(5);
	static char c; /* not on the stack: its page is flushed for the read */
	if (read(p[0], &c, 1) != 1)
		exit(2);
	waitpid(child, NULL, 0);
	printf("signal beside the stack: handled %d, %lx, %lx\n", (int)handled,
	       sum(local, sizeof(local)), sum(big, sizeof(big)));
}

int main(void)
{
	int p[2];
	if (pipe(p) != 0)
		return 1;
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	sigaction(SIGUSR1, &sa, NULL);
	read_beside(p);
	write_written(p);
	write_through_memory_file();
	write_mapped_file();
	mappings_over_written_pages();
	signal_beside_stack(p);
	return 0;
}
