/*
 * solib.c — calls into shared libraries, to step into and out of them
 * forwards and backwards: our own liboracle_shared.so (debug
 * information, lazily bound: the first call of each function goes
 * through the dynamic linker's resolver) and libc (no line information).
 */
#include <stdlib.h>
#include <string.h>

int shared_scale(int value, int factor);
size_t shared_fill(char *buf, size_t size, char c);
extern int shared_counter;

char text[16];

int main(void)
{
	int a = shared_scale(3, 4);
	int b = shared_scale(a, 2);
	size_t len = shared_fill(text, sizeof text, 'q');
	int total = a + b + (int)len;
	size_t copy_len = strlen(text);
	int value = abs(-total);
	memcpy(text, "libc wrote", 10);
	total += value + (int)copy_len + shared_counter;
	return total == 0;
}
