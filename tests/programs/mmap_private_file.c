/*
 * mmap_private_file.c — a file mapped MAP_PRIVATE: the program's writes
 * stay private (the file keeps its bytes), and a write to the file through
 * write() shows through the pages the program has not written.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "mmap_private_file.tmp";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return perror(path), 1;
	char page[8192];
	for (size_t i = 0; i < sizeof(page); i++)
		page[i] = (char)('a' + i % 26);
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
		return perror("write"), 1;
	char *m = mmap(NULL, sizeof(page), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return perror("mmap"), 1;
	printf("mapped: %.10s %.10s\n", m, m + 4096);
	memcpy(m, "PRIVATE!", 8);
	/* The second page is untouched by the program: the file's new bytes
	 * show through it. */
	if (pwrite(fd, "FROMFILE", 8, 4096) != 8)
		return perror("pwrite"), 1;
	char back[16] = { 0 };
	if (pread(fd, back, 10, 0) != 10)
		return perror("pread"), 1;
	printf("mapping: %.10s %.10s\n", m, m + 4096);
	printf("file:    %.10s\n", back);
	long sum = 0;
	for (size_t i = 0; i < sizeof(page); i++)
		sum += m[i];
	printf("sum %ld\n", sum);
	munmap(m, sizeof(page));
	close(fd);
	unlink(path);
	return 0;
}
