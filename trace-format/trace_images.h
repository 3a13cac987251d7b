/*
 * trace_images.h — the program images of one recorded process: the
 * program it started as and each program it exec'd since, in order (one
 * EXECVE record of the global stream each), with the time each began
 * (ttrec ps lists them, ttreplay -p COMMAND and --exec choose one).
 */
#ifndef TTREC_TRACE_IMAGES_H
#define TTREC_TRACE_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-format/idna.h"

struct idna_image {
	char *path;      /* the file the kernel ran (its /proc/PID/exe) */
	uint64_t time;   /* its first instruction; 0 for the first image */
	bool time_known; /* false where a trace's threads make the stream's
			  * count another clock than replay's (then ttreplay
			  * finds the time by replaying) */
};

struct idna_images {
	struct idna_image *v;
	size_t n;
};

/* Reads the images of the trace r. 0, or -1 with err (out empty). */
int idna_images_read(struct idna_reader *r, struct idna_images *out, char *err, size_t err_size);
void idna_images_free(struct idna_images *images);

/* The last component of path. */
const char *idna_base_name(const char *path);

#endif
