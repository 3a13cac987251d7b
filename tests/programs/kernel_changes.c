/*
 * kernel_changes.c — memory the kernel changes behind the recorder's
 * syscall table: three ioctls it does not describe (TIOCGPTN, whose
 * number encodes its output size, and the older TIOCOUTQ and FIOQSIZE,
 * whose numbers do not), MADV_DONTNEED on a written private anonymous
 * page, mmap(MAP_FIXED) over a written page, munmap of one, a written
 * heap page brk takes away and gives back, an ioctl output at the end
 * of a file's mapped bytes, and the C library's file mapped whole again
 * (over 420 pages, wider than the 64 pages the replay walks page by page)
 * that loses 300 of them to munmap: their bytes, which the program never
 * reads, are the file's while mapped and unknown once unmapped.
 * Every change is followed by another syscall before the program reads
 * the bytes, so at the line after it a debugger has no later read to
 * show them from: it must show the new bytes (the ioctls' outputs
 * exactly, as the argument "show" prints them at the end) or, for the
 * unmapped page, none; never the old ones (tests/kernel_changes.sh).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read before the ioctls write them: the replay first learns them from
 * those reads. */
unsigned int ptn = 12345;
int outq = 23456;
long long qsize = 34567;
char *anon_page, *fixed_page, *gone_page, *heap_page, *wide_map;

/* The C library's file, mapped whole and read-only a second time: an ELF
 * file with a build-id, whose bytes the replay shows from this machine's
 * copy where the program never read them. */
static const char *libc_path;
static size_t map_libc(void)
{
	Dl_info info;
	struct stat st;
	int fd;
	if (!dladdr((void *)printf, &info) || !info.dli_fname ||
	    (fd = open(info.dli_fname, O_RDONLY)) < 0 || fstat(fd, &st) != 0)
		exit(1);
	libc_path = info.dli_fname;
	wide_map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (wide_map == MAP_FAILED)
		exit(1);
	close(fd);
	return (size_t)st.st_size / 4096;
}

static char *new_page(char c)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	p[0] = c;
	return p;
}

int main(int argc, char **argv)
{
	printf("before: %u %d\n", ptn, outq);
	/* The second pty's number is not 0, which TIOCGPTN's output would
	 * be on a machine with no other pty. */
	int first = posix_openpt(O_RDWR | O_NOCTTY), pty = posix_openpt(O_RDWR | O_NOCTTY);
	int root = open("/", O_RDONLY | O_DIRECTORY);
	if (first < 0 || pty < 0 || root < 0)
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
	if (ioctl(root, FIOQSIZE, &qsize) != 0) /* the directory's size */
		return 1;
	getpid(); /* after FIOQSIZE */
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
	/* A heap page brk takes away and gives back: zero again. */
	char *heap = sbrk(8 * 4096);
	if (heap == (void *)-1)
		return 1;
	heap_page = (char *)(((uintptr_t)heap + 4095) & ~(uintptr_t)4095);
	heap_page[0] = 'H';
	if (sbrk(-8 * 4096) == (void *)-1)
		return 1;
	getpid(); /* after brk shrank */
	if (sbrk(8 * 4096) == (void *)-1)
		return 1;
	getpid(); /* after brk grew */
	/* An output at the end of the one page of a file mapped with two: the
	 * page the recorder reads back behind the pointer runs past the
	 * file's end, which cannot be read; that part is logged unknown. */
	int file = memfd_create("edge", 0);
	if (file < 0 || ftruncate(file, 4096) != 0)
		return 1;
	char *edge = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, file, 0);
	if (edge == MAP_FAILED)
		return 1;
	int *edge_outq = (int *)(edge + 4096 - sizeof(int));
	*edge_outq = 34567;
	if (ioctl(pty, TIOCOUTQ, edge_outq) != 0)
		return 1;
	getpid(); /* after the edge */
	if (map_libc() < 420)
		return 1;
	getpid(); /* after the wide mmap */
	if (munmap(wide_map + 100 * 4096, 300 * 4096) != 0)
		return 1;
	getpid(); /* after the wide munmap */
	printf("after: %s %d %d %d %d\n", ptn == 12345 ? "same" : "changed", outq, anon_page[0],
	       fixed_page[0], heap_page[0]);
	if (argc > 1 && strcmp(argv[1], "show") == 0)
		printf("outputs: %u %d %lld %s\n", ptn, outq, qsize, libc_path); /* they vary */
	return 0;
}
