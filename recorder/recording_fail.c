/*
 * recording_fail.c — a recording's error: the first one wins, and the
 * recording is over (the main loop stops at its next turn). Any file of
 * the recording calls it; it calls nothing.
 */
#include <stdarg.h>
#include <stdio.h>

#include "recorder/recording_internal.h"

int recording_fail(struct recording *rec, enum record_error e, const char *fmt, ...)
{
	if (rec->error == RECORD_OK) {
		rec->error = e;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rec->err, rec->errlen, fmt, ap);
		va_end(ap);
	}
	rec->finished = true;
	return -1;
}
