/*
 * version.h — the version of the tools and of the trace format they
 * write, for each command's --version.
 */
#ifndef TTREC_VERSION_H
#define TTREC_VERSION_H

#define TTREC_VERSION "0.15"

/* Prints "TOOL VERSION (trace format MAJOR.MINOR)" on standard output. */
void print_version(const char *tool);

#endif
