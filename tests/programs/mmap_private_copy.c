/*
 * mmap_private_copy.c — a MAP_PRIVATE page of a file becomes the
 * program's own copy at its first write: a change another process makes
 * to the file afterwards shows neither through the program's loads nor in
 * what the kernel reads from the page (a write(2) of it), and the private
 * write never reaches the file (pread).
 *
 * The child changes the file only once the parent's write to a pipe wakes
 * it, a call that reaches nothing but its byte; many dirty pages make the
 * recorder write back only that byte's page at such a call, so the
 * private page's first write must reach the process at that call all the
 * same (the kernel makes the copy then).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

static char dirty[64 * PAGE];

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "mmap_private_copy.tmp";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return perror(path), 1;
	char bytes[PAGE];
	memset(bytes, '.', sizeof(bytes));
	if (write(fd, bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes))
		return perror("write"), 1;
	int to_child[2], to_parent[2];
	if (pipe(to_child) != 0 || pipe(to_parent) != 0)
		return perror("pipe"), 1;
	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	char c;
	if (pid == 0) {
		/* The other process: changes the file once woken. */
		if (read(to_child[0], &c, 1) != 1 || pwrite(fd, "c", 1, 100) != 1 ||
		    write(to_parent[1], "d", 1) != 1)
			_exit(1);
		_exit(0);
	}
	volatile char *priv = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (priv == MAP_FAILED)
		return perror("mmap"), 1;
	char before = priv[100];
	memset(dirty, 1, sizeof(dirty));
	priv[0] = 'p'; /* the first write: the page is the program's from here */
	if (write(to_child[1], "w", 1) != 1 || read(to_parent[0], &c, 1) != 1)
		return perror("pipe"), 1;
	char after = priv[100];
	char file[2];
	if (pread(fd, file, 1, 0) != 1 || pread(fd, file + 1, 1, 100) != 1)
		return perror("pread"), 1;
	printf("private [100]: %c before the child's write, %c after\n", before, after);
	printf("file: [0]=%c [100]=%c\n", file[0], file[1]);
	printf("the page as the kernel reads it: ");
	fflush(stdout);
	if (write(1, (const char *)priv + 99, 2) != 2)
		return perror("write"), 1;
	printf("\n");
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return fprintf(stderr, "the child failed\n"), 1;
	munmap((void *)priv, PAGE);
	close(fd);
	unlink(path);
	return dirty[PAGE] == 1 ? 0 : 1;
}
