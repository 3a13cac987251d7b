/*
 * crash_null.c — dies of SIGSEGV from a NULL dereference after printing:
 * the recorder must end with status 139 and say which signal.
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argv;
	printf("about to crash\n");
	fflush(stdout);
	volatile int *p = (volatile int *)(long)(argc - 1);
	return *p;
}
