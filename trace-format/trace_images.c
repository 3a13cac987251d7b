/*
 * trace_images.c — a process's program images (trace_images.h). Paths
 * come from the global stream's EXECVE records; the time an image begins
 * is its exec's: the instruction count of the key frame before the
 * successful execve's KERNEL record, plus the syscall instruction. That
 * count is replay's clock only when the trace has one thread stream (with
 * threads each stream counts its own instructions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "trace-format/trace_images.h"

const char *idna_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

void idna_images_free(struct idna_images *images)
{
	for (size_t i = 0; i < images->n; i++)
		free(images->v[i].path);
	free(images->v);
	images->v = NULL;
	images->n = 0;
}

static int add_image(struct idna_images *out, const char *path)
{
	struct idna_image *v = realloc(out->v, (out->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	out->v = v;
	v[out->n] = (struct idna_image){ .path = strdup(path), .time_known = out->n == 0 };
	if (!v[out->n].path)
		return -1;
	out->n++;
	return 0;
}

/* The single thread stream's successful execs give images 2, 3... their
 * times. */
static void find_times(struct idna_reader *r, uint32_t stream, struct idna_images *out)
{
	char err[256];
	struct idna_iter *it = idna_iter_open(r, stream, NULL, err, sizeof(err));
	if (!it)
		return;
	struct idna_record rec;
	uint64_t last_key = 0;
	size_t next = 1;
	while (next < out->n && idna_iter_next(it, &rec) == 1) {
		if (rec.type == IDNA_REC_KEY_FRAME)
			last_key = rec.u.key.icount;
		else if (rec.type == IDNA_REC_KERNEL && rec.u.kernel.kind == IDNA_KERNEL_SYSCALL &&
			 (rec.u.kernel.nr == SYS_execve || rec.u.kernel.nr == SYS_execveat) &&
			 rec.u.kernel.result == 0) {
			out->v[next].time = last_key + 1;
			out->v[next].time_known = true;
			next++;
		}
	}
	idna_iter_close(it);
}

int idna_images_read(struct idna_reader *r, struct idna_images *out, char *err, size_t err_size)
{
	memset(out, 0, sizeof(*out));
	struct idna_iter *it = idna_iter_open(r, 0, NULL, err, err_size);
	if (!it)
		return -1;
	struct idna_record rec;
	int rc = 0;
	while (rc == 0 && idna_iter_next(it, &rec) == 1)
		if (rec.type == IDNA_REC_EXECVE && rec.u.execve.path && add_image(out, rec.u.execve.path) != 0) {
			snprintf(err, err_size, "out of memory");
			rc = -1;
		}
	idna_iter_close(it);
	if (rc != 0) {
		idna_images_free(out);
		return -1;
	}
	uint32_t thread_stream = 0;
	size_t thread_streams = 0;
	for (size_t i = 0; i < idna_reader_stream_count(r); i++)
		if (idna_reader_stream_id(r, i) != 0) {
			thread_stream = idna_reader_stream_id(r, i);
			thread_streams++;
		}
	if (thread_streams == 1 && out->n > 1)
		find_times(r, thread_stream, out);
	return 0;
}
