/*
 * pack.h — `ttrec pack TRACE`: keeps the files the recorded program mapped
 * (its executable and libraries, by build-id) beside the trace, so that it
 * still debugs after a rebuild or on another machine (trace-format's
 * pack_store.h says where and how).
 */
#ifndef TTREC_PACK_H
#define TTREC_PACK_H

#include <stdbool.h>

/* Exit statuses of ttrec pack besides 0. */
enum { PACK_EXIT_BAD_TRACE = 65, PACK_EXIT_WRITE = 74 };

/* Packs what the trace at path names. Reports on stderr (a summary unless
 * quiet, every file it could not pack always). 0 or a PACK_EXIT_*. */
int pack_trace(const char *path, bool quiet);

#endif
