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

/* Where the traces of the recording `trace`'s descendants are: trace's
 * folder ("." when it names none) and the prefix their file names start
 * with (trace's file name minus .idna, then a dot). 0, or -1 if trace
 * does not end in .idna or does not fit. */
int idna_descendant_traces_place(const char *trace, char *dir, size_t dir_size, char *prefix,
				 size_t prefix_size);

/* The trace a link such as latest.idna names (relative to the link's
 * folder), or trace itself when it is no link. 0, or -1 if it does not
 * fit. */
int idna_resolve_trace_link(const char *trace, char *out, size_t size);

#endif
