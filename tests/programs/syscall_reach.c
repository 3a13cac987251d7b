/*
 * syscall_reach.c — calls the recorder lets reach only their arguments'
 * pages of the written memory (recorder/syscall_flush.c): futex's word,
 * second word and timeout, sysinfo, getrusage, nanosleep's request,
 * the name openat and newfstatat read, the struct newfstatat writes; and
 * a read that waits in one thread while another writes beside its
 * buffer. Before each, many pages are written (more than the recorder's
 * threshold for flushing only part), then the bytes the kernel reads
 * are changed, or bytes beside what it writes: each line shows the
 * kernel saw the program's latest bytes and wrote beside them without
 * losing one. uname (a call that reaches anything, so everything is
 * written back) sets the stale bytes first.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define PAGES 64
unsigned char big[PAGES * 4096]; /* not static: the writes must stay */

static void dirty_all(unsigned seed)
{
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(seed + i * 7 + i / 4096);
}

/* Everything written back: uname reaches memory the recorder does not
 * narrow down. */
static void settle(void)
{
	struct utsname u;
	uname(&u);
}

static long futex(uint32_t *w, int op, uint32_t val, const struct timespec *t, uint32_t *w2,
		  uint32_t val3)
{
	return syscall(SYS_futex, w, op, val, t, w2, val3);
}

static const char *outcome(long r)
{
	return r == 0 ? "0" : errno == ETIMEDOUT ? "timed out" : errno == EAGAIN ? "EAGAIN"
			    : errno == EINVAL ? "EINVAL" : "other error";
}

/* One page per case: what the kernel reads or writes, and a byte beside. */
static struct page {
	uint32_t word, word2;
	struct timespec ts;
	char name[64];
	union {
		struct sysinfo si;
		struct rusage ru;
		struct stat st;
	} out;
	unsigned char beside;
} __attribute__((aligned(4096))) pages[8];

/* The writer: once the reader waits in its read (the recorder lets the
 * read go on in the background and runs this thread), it writes beside
 * the reader's buffer, then the bytes the reader waits for. */
static int pipe_fds[2];
static struct page *wait_page;
static volatile int reader_done;

static void *writer(void *arg)
{
	(void)arg;
	struct timespec t = { 0, 20000000 };
	nanosleep(&t, NULL);
	dirty_all(10);
	wait_page->beside = 5;
	if (write(pipe_fds[1], "ok", 2) != 2)
		exit(2);
	/* Alive (no exit, which writes everything back) until the reader
	 * has looked. */
	while (!reader_done)
		sched_yield();
	return NULL;
}

static void read_while_written_beside(void)
{
	wait_page = &pages[6];
	if (pipe(pipe_fds) != 0)
		exit(2);
	settle();
	pthread_t t;
	if (pthread_create(&t, NULL, writer, NULL) != 0)
		exit(2);
	ssize_t n = read(pipe_fds[0], wait_page->name, 2);
	unsigned beside = wait_page->beside;
	reader_done = 1;
	pthread_join(t, NULL);
	printf("a waiting read: %zd bytes, beside %u\n", n, beside);
}

int main(void)
{
	/* The word the wait compares was just written: it waits. Each
	 * thing the kernel reads is on a page of its own. */
	uint32_t *word = &pages[0].word, *word2 = &pages[1].word2;
	struct timespec *ts = &pages[2].ts;
	*word = 0;
	*ts = (struct timespec){ 0, 1000000 };
	settle();
	dirty_all(1);
	*word = 1;
	printf("futex wait on a written word: %s\n", outcome(futex(word, FUTEX_WAIT_PRIVATE, 1, ts, NULL, 0)));

	/* The timeout was just made valid. */
	*ts = (struct timespec){ 0, -1 };
	settle();
	dirty_all(2);
	*ts = (struct timespec){ 0, 1000000 };
	printf("futex wait with a written timeout: %s\n", outcome(futex(word, FUTEX_WAIT_PRIVATE, 1, ts, NULL, 0)));

	/* FUTEX_WAKE_OP adds to the second word the program just wrote. */
	*word2 = 5;
	settle();
	dirty_all(3);
	*word2 = 10;
	pages[1].beside = 1;
	long r = futex(word, FUTEX_WAKE_OP_PRIVATE, 1, NULL, word2, FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0));
	printf("futex wake_op: %ld, second word %u, beside %u\n", r, *word2, pages[1].beside);

	/* Structs the kernel writes on a page the program wrote. */
	struct page *p = &pages[3];
	settle();
	dirty_all(4);
	p->beside = 2;
	int got = sysinfo(&p->out.si);
	printf("sysinfo: %d, beside %u\n", got, p->beside);
	dirty_all(5);
	p->beside = 3;
	got = getrusage(RUSAGE_SELF, &p->out.ru);
	printf("getrusage: %d, beside %u\n", got, p->beside);

	/* A sleep whose request was just made valid. */
	p = &pages[4];
	p->ts = (struct timespec){ 0, -1 };
	settle();
	dirty_all(6);
	p->ts = (struct timespec){ 0, 1000 };
	printf("nanosleep: %s\n", outcome(syscall(SYS_nanosleep, &p->ts, NULL)));
	p->ts = (struct timespec){ 0, -1 };
	settle();
	dirty_all(7);
	p->ts = (struct timespec){ 0, 1000 };
	printf("clock_nanosleep: %d\n", clock_nanosleep(CLOCK_MONOTONIC, 0, &p->ts, NULL));

	/* Names just written: the old ones name nothing. */
	p = &pages[5];
	strcpy(p->name, "/nonexistent/file");
	settle();
	dirty_all(8);
	strcpy(p->name, "/dev/null");
	p->beside = 4;
	int fd = openat(AT_FDCWD, p->name, O_RDONLY);
	printf("openat a written name: %s\n", fd >= 0 ? "opened" : "failed");
	if (fd >= 0)
		close(fd);
	strcpy(p->name, "/nonexistent/file");
	settle();
	dirty_all(9);
	strcpy(p->name, "/dev/null");
	int s = fstatat(AT_FDCWD, p->name, &p->out.st, 0);
	printf("newfstatat a written name: %d, a character device: %s, beside %u\n", s,
	       s == 0 && S_ISCHR(p->out.st.st_mode) ? "yes" : "no", p->beside);
	read_while_written_beside();
	return 0;
}
