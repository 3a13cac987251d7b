/*
 * progress.h — the one-line progress report of a long recording on a
 * terminal: elapsed time, instructions, their rate, syscalls and trace
 * bytes, rewritten in place about twice a second and erased at the end.
 *
 * Driven from the recording's main loop (its signal-poll point), never
 * from a timer signal: ttrec takes no asynchronous signals while it owns
 * the program's registers.
 */
#ifndef TTREC_PROGRESS_H
#define TTREC_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress_line {
	FILE *out;           /* NULL: disabled */
	double start;        /* CLOCK_MONOTONIC seconds */
	double next_update;
	bool shown;          /* a line is on the terminal now */
};

/* Enables the line on out if out is a terminal; disabled otherwise. */
void progress_init(struct progress_line *p, FILE *out);

/* Whether the line is due for a redraw (after the first second, then
 * every half second): one clock read. */
bool progress_due(struct progress_line *p);

/* Redraws the line with these figures. */
void progress_show(struct progress_line *p, uint64_t instructions, uint64_t syscalls,
		   uint64_t trace_bytes);

/* Erases the line, so the next output starts on a clean line. */
void progress_erase(struct progress_line *p);

#endif
