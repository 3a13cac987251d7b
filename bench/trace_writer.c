/*
 * trace_writer.c — writer and reader throughput on a synthetic stream
 * shaped like a recording: the emulator reads memory about once every
 * three instructions, 99% of reads hit the prediction cache, a key frame
 * every ~2,000 instructions, a syscall every ~50,000, a checkpoint every
 * 10 M. The recorder side goes through the real prediction cache, so the
 * figure includes its cost. Prints plain figures for BENCHMARKS.md.
 *
 * Usage: trace_writer [INSTRUCTIONS] [FILE]   (default 200 M, a temp file)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace-format/idna.h"
#include "trace-format/predict_cache.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The writer alone: miss records (8-byte values drawn from a small set,
 * hits_before mostly small) appended as fast as the producer can. */
static int raw_writer(const char *path, uint64_t n)
{
	char err[256];
	struct idna_writer *w = idna_writer_open(path, NULL, NULL, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "trace_writer: %s\n", err);
		return 1;
	}
	uint64_t seed = 3, values[256];
	for (int i = 0; i < 256; i++)
		values[i] = rng(&seed) >> (i % 48);
	double t0 = now();
	int rc = 0;
	for (uint64_t i = 0; i < n && rc == 0; i++) {
		uint64_t r = rng(&seed);
		struct idna_record m = {.type = IDNA_REC_MISS};
		m.u.miss.hits_before = (r >> 8) % 200;
		m.u.miss.value = (const uint8_t *)&values[r & 0xff];
		m.u.miss.len = 8;
		rc = idna_writer_append(w, 1, &m);
	}
	struct idna_writer_stats ws;
	idna_writer_get_stats(w, &ws);
	double t_append = now() - t0;
	if (rc || idna_writer_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "trace_writer: %s\n", rc ? "append failed" : err);
		return 1;
	}
	double t = now() - t0;
	printf("writer alone (miss records) %.1f MB/s of records, %.1f M records/s to closed file; "
	       "append only %.1f M records/s, queue waits %llu\n",
	       ws.record_bytes / t / 1e6, n / t / 1e6, n / t_append / 1e6, (unsigned long long)ws.producer_waits);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t insns = argc > 1 ? strtoull(argv[1], NULL, 0) : 200000000ull;
	char path[512];
	if (argc > 2)
		snprintf(path, sizeof(path), "%s", argv[2]);
	else
		snprintf(path, sizeof(path), "%s/trace_writer_bench.idna",
			 getenv("TMPDIR") ? getenv("TMPDIR") : P_tmpdir);
	char err[256];
	struct idna_writer *w = idna_writer_open(path, NULL, NULL, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "trace_writer: %s\n", err);
		return 1;
	}
	struct predict_cache pc;
	if (!predict_cache_init(&pc, PREDICT_CACHE_DEFAULT_LOG2)) {
		fprintf(stderr, "trace_writer: no memory for the cache\n");
		return 1;
	}
	struct idna_regs regs;
	memset(&regs, 0, sizeof(regs));
	uint64_t seed = 1, seq = 0, reads = 0;
	uint8_t memory[4096 + 64];
	for (size_t i = 0; i < sizeof(memory); i++)
		memory[i] = (uint8_t)rng(&seed);
	double t0 = now();
	int rc = 0;
	for (uint64_t icount = 0; icount < insns && rc == 0; icount += 3) {
		/* One read per three instructions, 8 bytes, in a 4 KiB working
		 * set; memory changes behind the cache's back one time in 100. */
		uint64_t r = rng(&seed);
		uint64_t off = (r >> 8) % 4096;
		if ((r & 0xff) < 3)
			memory[off] ^= 0x40;
		uint64_t hits_before;
		reads++;
		if (!predict_cache_record_read(&pc, 0x7ffd0000 + off, memory + off, 8, &hits_before)) {
			struct idna_record m = {.type = IDNA_REC_MISS};
			m.u.miss.hits_before = hits_before;
			m.u.miss.value = memory + off;
			m.u.miss.len = 8;
			rc |= idna_writer_append(w, 1, &m);
		}
		if (icount % 2001 < 3) {
			struct idna_record k = {.type = IDNA_REC_KEY_FRAME};
			k.u.key.global_seq = ++seq;
			k.u.key.icount = icount;
			rc |= idna_writer_append(w, 1, &k);
		}
		if (icount % 50001 < 3) {
			regs.rip += 0x40;
			regs.gpr[0] = icount;
			regs.gpr[1] = regs.rip;
			struct idna_record k = {.type = IDNA_REC_KERNEL};
			k.u.kernel.nr = 1;
			k.u.kernel.result = 8;
			k.u.kernel.regs = &regs;
			rc |= idna_writer_append(w, 1, &k);
		}
		if (icount % 10000002 < 3) {
			struct idna_record c = {.type = IDNA_REC_CHECKPOINT};
			c.u.checkpoint.global_seq = ++seq;
			c.u.checkpoint.icount = icount;
			c.u.checkpoint.regs = &regs;
			rc |= idna_writer_append(w, 1, &c);
			predict_cache_flush(&pc);
		}
	}
	struct idna_writer_stats ws;
	idna_writer_get_stats(w, &ws);
	double t_produce = now() - t0;
	if (rc || idna_writer_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "trace_writer: %s\n", rc ? "append failed" : err);
		return 1;
	}
	double t_write = now() - t0;
	struct stat st;
	stat(path, &st);

	t0 = now();
	struct idna_reader *rd = idna_reader_open(path, err, sizeof(err));
	if (!rd) {
		fprintf(stderr, "trace_writer: %s\n", err);
		return 1;
	}
	struct idna_iter *it = idna_iter_open(rd, 1, NULL, err, sizeof(err));
	struct idna_record rec;
	uint64_t read_back = 0;
	while (it && idna_iter_next(it, &rec) == 1)
		read_back++;
	double t_read = now() - t0;
	idna_iter_close(it);
	idna_reader_close(rd);
	unlink(path);
	if (read_back != ws.records) {
		fprintf(stderr, "trace_writer: read %llu records of %llu\n", (unsigned long long)read_back,
			(unsigned long long)ws.records);
		return 1;
	}
	printf("simulated instructions      %llu (%llu reads, hit rate %.2f%%)\n", (unsigned long long)insns,
	       (unsigned long long)reads, 100.0 * predict_cache_hits(&pc) / reads);
	printf("records                     %llu, %.1f MB uncompressed, file %.2f MB\n",
	       (unsigned long long)ws.records, ws.record_bytes / 1e6, st.st_size / 1e6);
	printf("writer: record + cache      %.0f M instructions/s (%.2f s, queue waits %llu)\n",
	       insns / t_produce / 1e6, t_produce, (unsigned long long)ws.producer_waits);
	printf("writer: to closed file      %.1f MB/s of records, %.1f M records/s, %.0f M instructions/s\n",
	       ws.record_bytes / t_write / 1e6, ws.records / t_write / 1e6, insns / t_write / 1e6);
	printf("reader: open + iterate      %.1f MB/s of records, %.1f M records/s\n",
	       ws.record_bytes / t_read / 1e6, read_back / t_read / 1e6);
	printf("compressed size             %.4f bits per instruction\n", 8.0 * st.st_size / insns);
	predict_cache_fini(&pc);
	return raw_writer(path, 20000000);
}
