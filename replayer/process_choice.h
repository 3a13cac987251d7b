/*
 * process_choice.h — ttreplay's -p and --exec: which process of a
 * recording (its own trace, or a --follow-fork child's beside it) and
 * which of that process's program images a session debugs, as rr's
 * `replay -p PID|COMMAND`.
 */
#ifndef TTREC_PROCESS_CHOICE_H
#define TTREC_PROCESS_CHOICE_H

#include <stddef.h>

/* process: NULL (the recording's own process), a pid (the recording's
 * own or a child's), or a command name (the first process, the
 * recording's own first then its children's traces by name, with an
 * image of that name: the base name of the file it exec'd, or of the
 * first image's argv[0]; the first such image). exec_n: the image by
 * number (1-based; 0: the last, or the one a command name chose).
 * Sets the trace to open and the image (0: the last). 0, or -1 with err. */
int process_choice(const char *trace, const char *process, unsigned exec_n, char *path,
		   size_t path_size, unsigned *image, char *err, size_t err_size);

#endif
