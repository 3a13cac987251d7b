/*
 * abort_program.c — dies of SIGABRT via abort(): status 134.
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	fprintf(stderr, "aborting\n");
	abort();
}
