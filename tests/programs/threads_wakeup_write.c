/*
 * threads_wakeup_write.c — a write made while another thread's blocking
 * syscall is under way, on the page that syscall fills. The reader blocks
 * in read() into a buffer; the writer wakes it through the pipe, stores a
 * value beside that buffer and publishes it, then spins (no syscall of
 * its own to carry the store to the process) until the reader has
 * printed what it saw. Natively the reader prints 42.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];
static struct {
	char buf[16];
	long value;
} __attribute__((aligned(4096))) page;
/* On other pages than the one above. */
static volatile int published __attribute__((aligned(4096)));
static volatile int printed;

static void *reader(void *arg)
{
	(void)arg;
	if (read(fds[0], page.buf, 1) != 1)
		return NULL;
	while (!__atomic_load_n(&published, __ATOMIC_ACQUIRE))
		;
	printf("reader: value %ld\n", page.value);
	fflush(stdout);
	__atomic_store_n(&printed, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pipe(fds) != 0 || pthread_create(&t, NULL, reader, NULL) != 0)
		return 1;
	usleep(100000); /* the reader is blocked in read() by now */
	if (write(fds[1], "x", 1) != 1)
		return 1;
	page.value = 42;
	__atomic_store_n(&published, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&printed, __ATOMIC_ACQUIRE))
		;
	return pthread_join(t, NULL) == 0 ? 0 : 1;
}
