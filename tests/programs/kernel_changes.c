/*
 * kernel_changes.c — memory the kernel changes without the recorder
 * logging the bytes: two ioctls the recorder's syscall table does not
 * describe (TIOCGPTN, whose number encodes its output size, and the older
 * TIOCOUTQ, whose number does not), MADV_DONTNEED on a written private
 * anonymous page, mmap(MAP_FIXED) over a written page, and munmap of one.
 * Every change is followed by another syscall before the program reads
 * the bytes, so at the line after it a debugger has no later read to
 * show them from: it must show the new bytes or none, never the old ones
 * (tests/kernel_changes.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* Read before the ioctls write them: the replay first learns them from
 * those reads. */
unsigned int ptn = 12345;
int outq = 23456;
char *anon_page, *fixed_page, *gone_page;

static char *new_page(char c)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	p[0] = c;
	return p;
}

int main(void)
{
	printf("before: %u %d\n", ptn, outq);
	int pty = posix_openpt(O_RDWR | O_NOCTTY);
	if (pty < 0)
		return 1;
	anon_page = new_page('A');
	fixed_page = new_page('F');
	gone_page = new_page('U');
	if (ioctl(pty, TIOCGPTN, &ptn) != 0)
		return 1;
	getpid(); /* after TIOCGPTN */
	if (ioctl(pty, TIOCOUTQ, &outq) != 0)
		return 1;
	getpid(); /* after TIOCOUTQ */
	if (madvise(anon_page, 4096, MADV_DONTNEED) != 0)
		return 1;
	getpid(); /* after MADV_DONTNEED */
	if (mmap(fixed_page, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != fixed_page)
		return 1;
	getpid(); /* after MAP_FIXED */
	if (munmap(gone_page, 4096) != 0)
		return 1;
	getpid(); /* after munmap */
	printf("after: %s %d %d %d\n", ptn == 12345 ? "same" : "changed", outq, anon_page[0],
	       fixed_page[0]);
	return 0;
}
