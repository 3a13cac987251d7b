/*
 * catalog.c — ttrec ls and ttrec ps. A trace's instruction count here is
 * the sum of its threads' last key frames (read from each stream's last
 * checkpoint on), which is what replay would count up to the last kernel
 * transition: for a program that exited, all of it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "recorder/catalog.h"
#include "trace-format/idna.h"
#include "trace-format/trace_images.h"
#include "trace-format/trace_names.h"

struct trace_facts {
	uint64_t instructions;
	bool exited;
	int64_t status;          /* as waitpid reports it */
	size_t threads;          /* the initial one included */
	char last_exec[256];     /* the program it exec'd last, or "" */
	size_t execs;
};

/* The largest instruction count a stream's records reach from its last
 * checkpoint on. */
static uint64_t stream_end_icount(struct idna_reader *r, uint32_t stream)
{
	char err[256];
	const struct idna_checkpoint *cp = idna_reader_find_checkpoint(r, stream, UINT64_MAX);
	struct idna_iter *it = idna_iter_open(r, stream, cp, err, sizeof(err));
	uint64_t end = cp ? cp->icount : 0;
	if (!it)
		return end;
	struct idna_record rec;
	while (idna_iter_next(it, &rec) == 1) {
		if (rec.type == IDNA_REC_KEY_FRAME && rec.u.key.icount > end)
			end = rec.u.key.icount;
		else if (rec.type == IDNA_REC_CHECKPOINT && rec.u.checkpoint.icount > end)
			end = rec.u.checkpoint.icount;
	}
	idna_iter_close(it);
	return end;
}

static void read_facts(struct idna_reader *r, struct trace_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->threads = 1 + idna_reader_thread_count(r);
	for (size_t i = 0; i < idna_reader_stream_count(r); i++) {
		uint32_t stream = idna_reader_stream_id(r, i);
		if (stream != 0)
			f->instructions += stream_end_icount(r, stream);
	}
	char err[256];
	struct idna_iter *it = idna_iter_open(r, 0, NULL, err, sizeof(err));
	if (!it)
		return;
	struct idna_record rec;
	while (idna_iter_next(it, &rec) == 1) {
		if (rec.type == IDNA_REC_PROCESS_EXIT) {
			f->exited = true;
			f->status = rec.u.process_exit.status;
		} else if (rec.type == IDNA_REC_EXECVE && rec.u.execve.path) {
			f->execs++;
			snprintf(f->last_exec, sizeof(f->last_exec), "%s", rec.u.execve.path);
		}
	}
	idna_iter_close(it);
}

static void describe_exit(const struct trace_facts *f, char *out, size_t size)
{
	if (!f->exited)
		snprintf(out, size, "-");
	else if (WIFSIGNALED((int)f->status))
		snprintf(out, size, "signal %d", WTERMSIG((int)f->status));
	else
		snprintf(out, size, "%d", WEXITSTATUS((int)f->status));
}

static void describe_command(const struct idna_header *h, char *out, size_t size)
{
	size_t n = 0;
	out[0] = 0;
	for (uint32_t i = 0; i < h->info.argc && n + 1 < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%s%s", i ? " " : "", h->info.argv[i]);
}

static void human_size(uint64_t bytes, char *out, size_t size)
{
	const char *units = "BKMGT";
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(out, size, u ? "%.1f%c" : "%.0f%c", v, units[u]);
}

struct listed {
	char *name;
	time_t mtime;
};

static int newest_first(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? 1 : -1;
	return strcmp(x->name, y->name);
}

static bool is_trace_name(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && strcmp(name + n - 5, ".idna") == 0;
}

/* One line of ttrec ls. */
static void list_one(const char *dir, const char *name, const char *latest)
{
	char path[4096], when[32] = "-", size_text[16], exit_text[24], command[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct stat st;
	if (stat(path, &st) != 0)
		return;
	human_size((uint64_t)st.st_size, size_text, sizeof(size_text));
	char err[256];
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	const char *mark = latest && strcmp(latest, name) == 0 ? " (latest)" : "";
	if (!r) {
		printf("%-28s %-19s %7s %14s %-9s (not a usable trace: %s)%s\n", name, "-", size_text,
		       "-", "-", err, mark);
		return;
	}
	const struct idna_header *h = idna_reader_header(r);
	time_t start = (time_t)(h->info.start_time_ns / 1000000000);
	struct tm tm;
	if (h->info.start_time_ns > 0 && localtime_r(&start, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	struct trace_facts f;
	read_facts(r, &f);
	describe_exit(&f, exit_text, sizeof(exit_text));
	describe_command(h, command, sizeof(command));
	printf("%-28s %-19s %7s %14llu %-9s %s%s\n", name, when, size_text,
	       (unsigned long long)f.instructions, exit_text, command, mark);
	idna_reader_close(r);
}

int catalog_list(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "ttrec ls: %s: %s\n", dir, strerror(errno));
		return CATALOG_EXIT_NOT_FOUND;
	}
	struct listed *items = NULL;
	size_t n = 0, cap = 0;
	char latest[256] = "", path[4096];
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_trace_name(e->d_name))
			continue;
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISLNK(st.st_mode)) { /* latest.idna: marks its target */
			ssize_t k = readlink(path, latest, sizeof(latest) - 1);
			latest[k > 0 ? k : 0] = 0;
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			struct listed *grown = realloc(items, cap * sizeof(*items));
			if (!grown)
				break;
			items = grown;
		}
		items[n].name = strdup(e->d_name);
		items[n].mtime = st.st_mtime;
		if (items[n].name)
			n++;
	}
	closedir(d);
	qsort(items, n, sizeof(*items), newest_first);
	if (n == 0)
		printf("no traces in %s\n", dir);
	else
		printf("%-28s %-19s %7s %14s %-9s %s\n", "TRACE", "RECORDED", "SIZE", "INSTRUCTIONS",
		       "EXIT", "COMMAND");
	for (size_t i = 0; i < n; i++) {
		list_one(dir, items[i].name, latest[0] ? latest : NULL);
		free(items[i].name);
	}
	free(items);
	return 0;
}

/* A process that exec'd: one line per program image, with the time it
 * began (ttreplay --exec N, -g TIME), "?" where the trace's threads keep
 * the time from being read without replaying. */
static void print_images(struct idna_reader *r)
{
	char err[256], time_text[24];
	struct idna_images images;
	if (idna_images_read(r, &images, err, sizeof(err)) != 0)
		return;
	for (size_t i = 0; i < images.n; i++) {
		if (images.v[i].time_known)
			snprintf(time_text, sizeof(time_text), "%llu", (unsigned long long)images.v[i].time);
		else
			snprintf(time_text, sizeof(time_text), "?");
		printf("%-8s exec %-3zu at time %-12s %s\n", "", i + 1, time_text, images.v[i].path);
	}
	idna_images_free(&images);
}

/* The lines of ttrec ps for the recording at path, whose process is pid
 * (0: unknown, the recording's first) with parent ppid; then its
 * children's traces, found by name. depth bounds the recursion. */
static int processes_of(const char *path, long pid, long ppid, int depth)
{
	char err[256], exit_text[24], command[512], pid_text[24] = "-", ppid_text[24] = "-";
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "ttrec ps: %s\n", err);
		return CATALOG_EXIT_BAD_TRACE;
	}
	struct trace_facts f;
	read_facts(r, &f);
	describe_exit(&f, exit_text, sizeof(exit_text));
	describe_command(idna_reader_header(r), command, sizeof(command));
	if (!pid)
		pid = (long)idna_reader_header(r)->info.pid; /* 0: not recorded (format 1.1) */
	if (pid)
		snprintf(pid_text, sizeof(pid_text), "%ld", pid);
	if (ppid)
		snprintf(ppid_text, sizeof(ppid_text), "%ld", ppid);
	printf("%-8s %-8s %-9s %-8zu %-28s %s", pid_text, ppid_text, exit_text, f.threads, path,
	       command);
	if (f.execs > 1)
		printf("  (then exec'd %s)", f.last_exec);
	printf("\n");
	if (f.execs > 1)
		print_images(r);
	idna_reader_close(r);
	if (depth >= 16)
		return 0;
	/* Children: <path minus .idna>.<pid>.idna beside it. */
	char dir[4096], prefix[4096];
	if (idna_descendant_traces_place(path, dir, sizeof(dir), prefix, sizeof(prefix)) != 0)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t plen = strlen(prefix);
		if (strncmp(e->d_name, prefix, plen) != 0 || !is_trace_name(e->d_name))
			continue;
		char *end;
		long child = strtol(e->d_name + plen, &end, 10);
		if (child <= 0 || strcmp(end, ".idna") != 0)
			continue; /* a grandchild's trace: listed under its parent */
		char child_path[4096];
		if (idna_child_trace_name(path, child, child_path, sizeof(child_path)) == 0)
			processes_of(child_path, child, pid, depth + 1);
	}
	closedir(d);
	return 0;
}

int catalog_processes(const char *trace)
{
	if (!is_trace_name(trace)) {
		fprintf(stderr, "ttrec ps: %s: a trace's name ends in .idna\n", trace);
		return CATALOG_EXIT_BAD_TRACE;
	}
	/* latest.idna: its children are named after the trace it names. */
	char path[4096];
	if (idna_resolve_trace_link(trace, path, sizeof(path)) != 0) {
		fprintf(stderr, "ttrec ps: %s: name too long\n", trace);
		return CATALOG_EXIT_BAD_TRACE;
	}
	trace = path;
	printf("%-8s %-8s %-9s %-8s %-28s %s\n", "PID", "PPID", "EXIT", "THREADS", "TRACE",
	       "COMMAND");
	return processes_of(trace, 0, 0, 0);
}
