/*
 * main.c — gdbstub-target: records a small static program in the emulator
 * and serves its history to GDB, so the stub can be tested with the real
 * GDB without the replayer.
 *
 *   gdbstub-target [--port N] [--max-insns N] PROGRAM
 *
 * Serves on stdin/stdout (GDB's "target remote | gdbstub-target PROGRAM"),
 * or on 127.0.0.1:N with --port.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdbstub/gdbstub.h"
#include "history.h"
#include "target.h"

static int usage(void)
{
	fprintf(stderr, "usage: gdbstub-target [--port N] [--max-insns N] PROGRAM\n");
	return 2;
}

static bool parse_number(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end || v > max || s[0] == '-')
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	uint64_t port = 0, max_insns = 1000000;
	bool tcp = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i += 2) {
		if (i + 1 >= argc)
			return usage();
		if (strcmp(argv[i], "--port") == 0 && parse_number(argv[i + 1], 65535, &port))
			tcp = true;
		else if (strcmp(argv[i], "--max-insns") == 0 &&
			 parse_number(argv[i + 1], 100000000, &max_insns))
			continue;
		else
			return usage();
	}
	if (i != argc - 1)
		return usage();

	struct image image;
	struct history history;
	if (!image_load(&image, argv[i]))
		return 1;
	if (!history_record(&history, &image, max_insns)) {
		image_free(&image);
		return 1;
	}
	struct history_target ht = { .history = &history };
	struct gdbstub_target target = { &history_target_ops, &ht };
	int rc = tcp ? gdbstub_serve_tcp(&target, NULL, (uint16_t)port)
		     : gdbstub_serve_fds(&target, STDIN_FILENO, STDOUT_FILENO);
	free(ht.breaks);
	history_free(&history);
	image_free(&image);
	return rc == 0 ? 0 : 1;
}
