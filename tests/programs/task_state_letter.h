/*
 * task_state_letter.h — the scheduler state of a process or thread as its
 * stat file under /proc gives it ('R', 'S', 'T', 't', 'Z', ...). The test
 * programs that force an interleaving wait for another task's state
 * instead of sleeping a guessed time.
 */
#ifndef TESTS_PROGRAMS_TASK_STATE_LETTER_H
#define TESTS_PROGRAMS_TASK_STATE_LETTER_H

#include <stdio.h>
#include <string.h>

/* The letter in the stat file at path, 0 if it cannot be read (gone). */
static inline char task_state_letter(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* After the command name, which may hold spaces and parentheses. */
	char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

#endif
