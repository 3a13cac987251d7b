/*
 * mmap_alias.c — one file mapped twice, MAP_PRIVATE and MAP_SHARED, with
 * no system call between the accesses that matter:
 *  - a page written through the private mapping first is the program's own
 *    copy from that write on: a later write through the shared mapping
 *    does not show through it, and the private write never reaches the
 *    file;
 *  - a page of the private mapping only read so far is still the file's:
 *    a write through the shared mapping shows through it at once.
 * Then a pwrite to the file makes the recorder read the mappings again:
 * page 0 of the private mapping still holds the bytes of its first write's
 * moment.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "mmap_alias.tmp";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return perror(path), 1;
	char bytes[2 * PAGE];
	memset(bytes, '.', sizeof(bytes));
	if (write(fd, bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes))
		return perror("write"), 1;
	volatile char *priv = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	volatile char *shared = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (priv == MAP_FAILED || shared == MAP_FAILED)
		return perror("mmap"), 1;

	/* Page 0: private write, then shared write, then reads. */
	priv[0] = 'p';
	shared[100] = 's';
	char p0 = priv[0], p100 = priv[100], s0 = shared[0], s100 = shared[100];

	/* Page 1: private read, then shared write, then read again. */
	char before = priv[PAGE + 200];
	shared[PAGE + 200] = 't';
	char after = priv[PAGE + 200];

	printf("page 0: private [0]=%c [100]=%c, shared [0]=%c [100]=%c\n", p0, p100, s0, s100);
	printf("page 1: private [200] %c before the shared write, %c after\n", before, after);
	/* After a write to the file, which makes the recorder read the
	 * file's mappings again. */
	if (pwrite(fd, "w", 1, 2000) != 1)
		return perror("pwrite"), 1;
	printf("page 0 after pwrite: private [100]=%c [2000]=%c, shared [0]=%c [2000]=%c\n",
	       priv[100], priv[2000], shared[0], shared[2000]);
	char file[2];
	if (pread(fd, file, 1, 0) != 1 || pread(fd, file + 1, 1, 100) != 1)
		return perror("pread"), 1;
	printf("file: [0]=%c [100]=%c\n", file[0], file[1]);
	munmap((void *)priv, 2 * PAGE);
	munmap((void *)shared, 2 * PAGE);
	close(fd);
	unlink(path);
	return 0;
}
