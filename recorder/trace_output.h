/*
 * trace_output.h — where ttrec writes a trace, so that the file never harms
 * what is already on disk (man/ttrec.1, FILES).
 *
 * A new name is written in place: created with O_EXCL|O_NOFOLLOW (never
 * following a link or truncating a file), so a recorder killed at any
 * moment leaves a readable trace under the name the user asked for. An
 * existing trace (a regular file starting with the trace magic), or with
 * --force any regular file or symbolic link, is replaced by writing the new
 * trace beside it under a temporary name (STEM.partial.idna, which is a
 * trace too: readable if the recorder is killed) and renaming it into place
 * at the end. Anything else is refused. ttrec deletes no file it did not
 * create.
 */
#ifndef TTREC_TRACE_OUTPUT_H
#define TTREC_TRACE_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct trace_output {
	char final_path[PATH_MAX]; /* the trace's name at the end */
	char write_path[PATH_MAX]; /* where it is written: final_path, or a temporary name */
	bool replacing;            /* write_path is temporary: renamed over final_path at the end */
};

/* PROGRAM-N.idna with the first N whose name is free in the current
 * directory (a dangling symbolic link is not free). */
void trace_output_default_name(const char *program, char *out, size_t size);

/* Decides where the trace goes for path. -1 with a one-line message when
 * path exists and is not ours to replace (not a trace, and force not
 * given; or not a regular file or link at all). Touches nothing. */
int trace_output_prepare(struct trace_output *o, const char *path, bool force, char *err,
			 size_t errlen);

/* The recording created write_path and it holds a trace: move it to
 * final_path if it was written elsewhere. -1 with a message if the rename
 * failed (the trace then stays at write_path). */
int trace_output_keep(const struct trace_output *o, char *err, size_t errlen);

/* The recording created write_path but nothing worth keeping: remove it. */
void trace_output_discard(const struct trace_output *o);

/* Points the latest.idna link in the current directory at trace, unless
 * latest.idna is something other than a link (then it is left alone and
 * false comes back). */
bool trace_output_update_latest(const char *trace);

#endif
