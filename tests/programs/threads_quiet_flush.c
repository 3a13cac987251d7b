/*
 * threads_quiet_flush.c — a thread's blocking read() fills a buffer in
 * the middle of a page whose bytes before and after it another thread
 * keeps writing, with system calls between (each of which writes the
 * mirror's dirty bytes back to the process). A write-back made while the
 * read is under way, or done but not yet seen by the recorder, must carry
 * only the bytes written, never the buffer's clean bytes between them,
 * which the kernel is filling. Natively every round's message arrives
 * whole: the program prints "rounds: 300 of 300".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 300
#define MESSAGE 64

static int to_reader[2], to_writer[2];
static struct {
	unsigned char before[1024];
	unsigned char buf[MESSAGE];
	unsigned char after[1024];
} __attribute__((aligned(4096))) page;

static void message(unsigned round, unsigned char *out)
{
	for (unsigned i = 0; i < MESSAGE; i++)
		out[i] = (unsigned char)(round * 31 + i * 7 + 1);
}

static void *reader(void *arg)
{
	unsigned *whole = arg;
	unsigned char want[MESSAGE];
	for (unsigned round = 0; round < ROUNDS; round++) {
		if (read(to_reader[0], page.buf, MESSAGE) != MESSAGE)
			return NULL;
		message(round, want);
		*whole += memcmp(page.buf, want, MESSAGE) == 0;
		if (write(to_writer[1], "k", 1) != 1)
			return NULL;
	}
	return NULL;
}

/* Bytes on both sides of the buffer, so that a write-back of the page's
 * dirty bytes spans it. */
static void scribble(unsigned round)
{
	page.before[(round * 13) % 1024] = (unsigned char)round;
	page.after[(round * 17) % 1024] = (unsigned char)~round;
}

int main(void)
{
	unsigned whole = 0;
	pthread_t t;
	if (pipe(to_reader) != 0 || pipe(to_writer) != 0 ||
	    pthread_create(&t, NULL, reader, &whole) != 0)
		return 1;
	unsigned char out[MESSAGE], ack;
	for (unsigned round = 0; round < ROUNDS; round++) {
		scribble(round);
		(void)getppid(); /* the reader may be in read() */
		message(round, out);
		if (write(to_reader[1], out, MESSAGE) != MESSAGE)
			return 1;
		scribble(round + 1000);
		(void)getppid(); /* its read may be done, not yet seen */
		if (read(to_writer[0], &ack, 1) != 1)
			return 1;
	}
	if (pthread_join(t, NULL) != 0)
		return 1;
	printf("rounds: %u of %u\n", whole, ROUNDS);
	return whole == ROUNDS ? 0 : 1;
}
