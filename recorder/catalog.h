/*
 * catalog.h — finding and choosing recordings: `ttrec ls` (the traces of a
 * folder, newest first) and `ttrec ps` (the processes of one recording:
 * the recorded process, the programs it exec'd, its threads, and the
 * traces --follow-fork wrote for its children). Read from each trace's
 * header, index, global stream and the last stretch of its thread
 * streams: nothing is replayed.
 */
#ifndef TTREC_CATALOG_H
#define TTREC_CATALOG_H

/* Exit statuses besides 0. */
enum { CATALOG_EXIT_NOT_FOUND = 66, CATALOG_EXIT_BAD_TRACE = 65 };

/* Prints the traces of dir; 0, or CATALOG_EXIT_NOT_FOUND when dir cannot
 * be read. */
int catalog_list(const char *dir);

/* Prints the processes of the recording trace; 0 or a CATALOG_EXIT_*. */
int catalog_processes(const char *trace);

#endif
