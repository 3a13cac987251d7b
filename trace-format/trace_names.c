/*
 * trace_names.c — names of a recording's traces.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace-format/trace_names.h"

int idna_resolve_trace_link(const char *trace, char *out, size_t size)
{
	char target[4096];
	ssize_t n = readlink(trace, target, sizeof(target) - 1);
	int w;
	if (n <= 0) {
		w = snprintf(out, size, "%s", trace);
	} else {
		target[n] = 0;
		const char *slash = strrchr(trace, '/');
		if (target[0] == '/' || !slash)
			w = snprintf(out, size, "%s", target);
		else
			w = snprintf(out, size, "%.*s/%s", (int)(slash - trace), trace, target);
	}
	return w < 0 || (size_t)w >= size ? -1 : 0;
}

int idna_child_trace_name(const char *trace, long pid, char *out, size_t size)
{
	char parent[4096];
	if (idna_resolve_trace_link(trace, parent, sizeof(parent)) != 0)
		return -1;
	size_t len = strlen(parent);
	if (len > 5 && strcmp(parent + len - 5, ".idna") == 0)
		len -= 5;
	int w = snprintf(out, size, "%.*s.%ld.idna", (int)len, parent, pid);
	return w < 0 || (size_t)w >= size ? -1 : 0;
}

int idna_descendant_traces_place(const char *trace, char *dir, size_t dir_size, char *prefix,
				 size_t prefix_size)
{
	const char *slash = strrchr(trace, '/');
	const char *base = slash ? slash + 1 : trace;
	size_t len = strlen(base);
	if (len <= 5 || strcmp(base + len - 5, ".idna") != 0)
		return -1;
	int w = slash ? snprintf(dir, dir_size, "%.*s", (int)(slash - trace), trace)
		      : snprintf(dir, dir_size, ".");
	if (w < 0 || (size_t)w >= dir_size)
		return -1;
	w = snprintf(prefix, prefix_size, "%.*s.", (int)(len - 5), base);
	return w < 0 || (size_t)w >= prefix_size ? -1 : 0;
}
