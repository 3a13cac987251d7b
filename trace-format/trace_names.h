/*
 * trace_names.h — how traces of one recording are named: a child process
 * recorded by ttrec --follow-fork has the trace <trace minus .idna>.<pid>.idna
 * beside its parent's (the recorder writes it, ttrec ps lists it,
 * ttreplay -p opens it).
 */
#ifndef TTREC_TRACE_NAMES_H
#define TTREC_TRACE_NAMES_H

#include <stddef.h>

/* The trace of child pid of the recording `trace` (a latest.idna link
 * stands for the trace it names). 0, or -1 if it does not fit. */
int idna_child_trace_name(const char *trace, long pid, char *out, size_t size);

/* The trace a link such as latest.idna names (relative to the link's
 * folder), or trace itself when it is no link. 0, or -1 if it does not
 * fit. */
int idna_resolve_trace_link(const char *trace, char *out, size_t size);

#endif
