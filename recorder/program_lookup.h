/*
 * program_lookup.h — does the program ttrec run exist and may it be
 * executed? Answered before the trace file is touched, the way execvp will
 * look for it (a name without '/' is searched in PATH).
 */
#ifndef TTREC_PROGRAM_LOOKUP_H
#define TTREC_PROGRAM_LOOKUP_H

/* 0 when execvp could run name; else ENOENT (not found) or the errno of
 * the first candidate that exists but cannot be executed (EACCES). */
int program_lookup(const char *name);

#endif
