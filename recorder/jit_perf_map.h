/*
 * jit_perf_map.h — a symbol map of the emulator's translated code for
 * perf (`/tmp/perf-<pid>.map`, lines "START SIZE NAME" in hex), opt-in
 * with TTREC_PERF_MAP=1, so that a profile of a recording names the
 * guest blocks and the parts of their translations it spends its time in.
 */
#ifndef TTREC_JIT_PERF_MAP_H
#define TTREC_JIT_PERF_MAP_H

#include <stdbool.h>

/* The environment's choice: with TTREC_PERF_MAP set to 1, the map of
 * this process at perf's path (jit_perf_map_open). */
void jit_perf_map_from_environment(void);

/* Starts a map at `path`, written as translations are made and closed at
 * exit. Never follows a symbolic link there, and replaces only a regular
 * file of ours; false (said once on stderr, no map) when it cannot. */
bool jit_perf_map_open(const char *path);
/* The map written out and closed, translations no longer heard of. */
void jit_perf_map_close(void);

#endif
