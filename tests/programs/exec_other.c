/*
 * exec_other.c — prints, then replaces itself with another program; the
 * trace must follow into the new image. With an argument, it is the second
 * image: it prints its arguments and exits with a status of its own.
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("second image:");
		for (int i = 1; i < argc; i++)
			printf(" %s", argv[i]);
		printf("\n");
		return 3;
	}
	printf("first image\n");
	fflush(stdout);
	char *args[] = { argv[0], "again", "with", "arguments", NULL };
	execv("/proc/self/exe", args);
	perror("execv");
	return 1;
}
