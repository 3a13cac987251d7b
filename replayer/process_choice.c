/*
 * process_choice.c — resolving ttreplay -p PID|COMMAND and --exec N
 * (process_choice.h) over the traces of one recording.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replayer/process_choice.h"
#include "trace-format/trace_images.h"
#include "trace-format/trace_names.h"

/* The first image of the trace at path named `command` (1-based), or 0. */
static unsigned image_named(const char *path, const char *command)
{
	char err[256];
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	if (!r)
		return 0;
	const struct idna_header *h = idna_reader_header(r);
	const char *argv0 = h->info.argc ? h->info.argv[0] : "";
	struct idna_images images;
	unsigned found = 0;
	if (idna_images_read(r, &images, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < images.n && !found; i++)
			if (strcmp(idna_base_name(images.v[i].path), command) == 0 ||
			    (i == 0 && strcmp(idna_base_name(argv0), command) == 0))
				found = (unsigned)i + 1;
		idna_images_free(&images);
	}
	idna_reader_close(r);
	return found;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The recording's own trace, then its descendants' (<trace minus
 * .idna>.PID[.PID...].idna beside it) in the order of their names: the
 * first with an image named command. */
static int find_command(const char *trace, const char *command, char *path, size_t path_size,
			unsigned *image, char *err, size_t err_size)
{
	if ((*image = image_named(trace, command))) {
		snprintf(path, path_size, "%s", trace);
		return 0;
	}
	char dir[4096], prefix[4096];
	DIR *d = idna_descendant_traces_place(trace, dir, sizeof(dir), prefix, sizeof(prefix)) == 0
			 ? opendir(dir)
			 : NULL;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || len < 5 ||
		    strcmp(e->d_name + len - 5, ".idna") != 0)
			continue;
		char **more = realloc(names, (n + 1) * sizeof(*names));
		if (!more || !(more[n] = strdup(e->d_name))) {
			names = more ? more : names;
			break;
		}
		names = more;
		n++;
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		char child[8200];
		snprintf(child, sizeof(child), "%s/%s", dir, names[i]);
		if (rc != 0 && (*image = image_named(child, command))) {
			snprintf(path, path_size, "%s", child);
			rc = 0;
		}
		free(names[i]);
	}
	free(names);
	if (rc != 0)
		snprintf(err, err_size, "no process of %s ran a program named %s (ttrec ps %s lists"
			 " them)", trace, command, trace);
	return rc;
}

static bool is_pid(const char *text, long *pid)
{
	char *end;
	*pid = strtol(text, &end, 10);
	return *text && !*end;
}

/* The recorded pid of the trace at path; 0 when unknown or unreadable. */
static long own_pid(const char *path)
{
	char err[256];
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	if (!r)
		return 0;
	long pid = (long)idna_reader_header(r)->info.pid;
	idna_reader_close(r);
	return pid;
}

/* How many images the trace at path holds; -1 with err. */
static long count_images(const char *path, char *err, size_t err_size)
{
	struct idna_reader *r = idna_reader_open(path, err, err_size);
	if (!r)
		return -1;
	struct idna_images images;
	long n = idna_images_read(r, &images, err, err_size) == 0 ? (long)images.n : -1;
	idna_images_free(&images);
	idna_reader_close(r);
	return n;
}

int process_choice(const char *trace, const char *process, unsigned exec_n, char *path,
		   size_t path_size, unsigned *image, char *err, size_t err_size)
{
	char own[4096];
	if (idna_resolve_trace_link(trace, own, sizeof(own)) != 0) {
		snprintf(err, err_size, "%s: name too long", trace);
		return -1;
	}
	long want = 0;
	*image = exec_n;
	if (process && !is_pid(process, &want))
		return find_command(own, process, path, path_size, image, err, err_size);
	snprintf(path, path_size, "%s", trace);
	if (want && own_pid(trace) != want) {
		if (idna_child_trace_name(trace, want, path, path_size) != 0) {
			snprintf(err, err_size, "%s: name too long", trace);
			return -1;
		}
		if (access(path, F_OK) != 0) {
			snprintf(err, err_size, "no trace of process %ld beside %s (%s; ttrec ps %s "
				 "lists the recorded processes)", want, trace, path, trace);
			return -1;
		}
	}
	if (!exec_n)
		return 0;
	long n = count_images(path, err, err_size);
	if (n < 0)
		return -1;
	if (exec_n > (unsigned long)n) {
		snprintf(err, err_size, "--exec %u: the process of %s ran %ld program image%s (ttrec ps"
			 " %s lists them)", exec_n, path, n, n == 1 ? "" : "s", trace);
		return -1;
	}
	return 0;
}
