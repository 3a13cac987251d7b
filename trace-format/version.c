/*
 * version.c — what --version prints.
 */
#include <stdio.h>

#include "trace-format/file_format.h"
#include "trace-format/version.h"

void print_version(const char *tool)
{
	printf("%s %s (trace format %d.%d)\n", tool, TTREC_VERSION, IDNA_VERSION_MAJOR,
	       IDNA_VERSION_MINOR);
}
