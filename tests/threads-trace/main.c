/*
 * threads-trace — writes the two-thread trace of tests/unit/mini_recorder.h
 * to the file named on the command line, for tests/replay.sh to debug with
 * gdb. Prints the shared counter's address and the second thread's tid.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/mini_recorder.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: threads-trace FILE\n");
		return 64;
	}
	struct mini_recorder *r = mini_record(argv[1]);
	printf("counter %#x\nthread %d\ncode-b %#x\n", DATA, B_TID, B_START);
	free(r);
	return 0;
}
