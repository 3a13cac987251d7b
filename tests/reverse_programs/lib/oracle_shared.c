/*
 * oracle_shared.c — the shared library tests/reverse_programs/solib.c
 * calls (built beside it as liboracle_shared.so, with debug
 * information): functions to step into and out of, backwards and
 * forwards, one of them calling back into libc.
 */
#include <string.h>

int shared_counter;

int shared_scale(int value, int factor)
{
	int scaled = value * factor;
	shared_counter++;
	return scaled + shared_counter;
}

size_t shared_fill(char *buf, size_t size, char c)
{
	memset(buf, c, size - 1);
	buf[size - 1] = '\0';
	shared_counter += 10;
	return strlen(buf);
}
