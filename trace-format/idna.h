/*
 * idna.h — the public interface of the .idna trace library: the record
 * types, the register block, the writer and the reader. The on-disk format
 * is specified in man/idna.5; nothing here depends on the emulator.
 *
 * Library rules: no global state, nothing printed, never abort(). Every
 * function that can fail returns an error indication and leaves a one-line
 * message the caller may print.
 */
#ifndef TTREC_IDNA_H
#define TTREC_IDNA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The complete user-mode state of one thread (matches what the emulator
 * holds, without depending on its types). */
struct idna_regs {
	uint64_t gpr[16]; /* rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
	uint64_t rip, rflags, fs_base, gs_base;
	uint16_t seg_es, seg_cs, seg_ss, seg_ds, seg_fs, seg_gs;
	uint16_t fcw, fsw, ftw, fop; /* ftw: the full 16-bit tag word */
	uint32_t mxcsr;
	uint64_t fip, fdp;
	uint8_t st[8][10]; /* x87 physical registers, 80-bit little-endian */
	uint64_t k[8];
	uint8_t zmm[32][64];
};

enum idna_record_type {
	IDNA_REC_MISS = 1,
	IDNA_REC_KEY_FRAME = 2,
	IDNA_REC_CHECKPOINT = 3,
	IDNA_REC_KERNEL = 4,
	IDNA_REC_NONDET = 5,
	IDNA_REC_NATIVE = 6,
	IDNA_REC_CODE_PAGE = 7,
	IDNA_REC_THREAD_CREATE = 8,
	IDNA_REC_THREAD_EXIT = 9,
	IDNA_REC_MODULE_LOAD = 10,
	IDNA_REC_MODULE_UNMAP = 11,
	IDNA_REC_EXECVE = 12,
	IDNA_REC_SIGNAL = 13,
	IDNA_REC_PROCESS_EXIT = 14,
	IDNA_REC_CACHE_STATS = 15,
	IDNA_REC_KERNEL_WRITE = 16,
	IDNA_REC_TYPE_COUNT, /* known types are 1..IDNA_REC_TYPE_COUNT-1 */
};

/* Why a key frame was logged. */
enum idna_key_reason {
	IDNA_KEY_SYNC = 0,   /* LOCK prefix, XCHG with memory, fence */
	IDNA_KEY_SWITCH = 1, /* the scheduler switched to this thread */
	IDNA_KEY_KERNEL = 2, /* around a kernel transition */
	/* A kernel transition at an instruction where the emulator had
	 * stopped (a syscall, a special, unimplemented or faulting
	 * instruction): it had fetched that instruction's bytes, so replay
	 * fetches them too before applying the transition. */
	IDNA_KEY_EXIT = 3,
};

enum idna_kernel_kind {
	IDNA_KERNEL_SYSCALL = 0,
	IDNA_KERNEL_SIGNAL_DELIVERY = 1,
	IDNA_KERNEL_SIGRETURN = 2,
	/* The kernel (or a natively executed instruction) changed memory that
	 * held logged code: nr = address, result = length (UINT64_MAX: all of
	 * it). Replay forgets those code pages and its decoded instructions
	 * there; regs are unchanged. */
	IDNA_KERNEL_CODE_CHANGED = 3,
};

enum idna_nondet_kind {
	IDNA_NONDET_CPUID = 0,  /* in: leaf, subleaf   out: eax ebx ecx edx */
	IDNA_NONDET_RDTSC = 1,  /* out: tsc */
	IDNA_NONDET_RDTSCP = 2, /* out: tsc, aux */
	IDNA_NONDET_RDRAND = 3, /* in: operand bits   out: value, cf */
	IDNA_NONDET_RDSEED = 4, /* in: operand bits   out: value, cf */
	IDNA_NONDET_XGETBV = 5, /* in: ecx            out: edx:eax */
	IDNA_NONDET_RDPID = 6,  /* out: pid */
};

#define IDNA_MAX_READ 64          /* largest single read the cache handles */
#define IDNA_MAX_NONDET_VALUES 4
#define IDNA_MAX_NATIVE_WRITES 64 /* memory effects of one native insn */
#define IDNA_MAX_RECORD 65536     /* largest record payload */
/* Largest byte run of one KERNEL_WRITE record; longer writes take several. */
#define IDNA_MAX_KERNEL_WRITE (IDNA_MAX_RECORD - 32)

/* KERNEL_WRITE flags. */
enum idna_kernel_write_flags {
	/* The kernel transition that follows may have written memory the
	 * recorder cannot describe (an unknown syscall or ioctl): no bytes.
	 * Replay keeps what it knows. */
	IDNA_KWRITE_UNDESCRIBED = 1,
	/* The bytes are a signal frame (the transition that follows is a
	 * signal delivery), not a syscall's outputs. */
	IDNA_KWRITE_SIGNAL_FRAME = 2,
	/* The bytes are part of a new program image as the kernel made it
	 * (the initial stack, the vDSO): they come right after the
	 * checkpoint that starts the image, with no transition after them. */
	IDNA_KWRITE_IMAGE = 4,
	/* No bytes but a range, [addr, addr + span) (minor version 3 and
	 * later): from the transition that follows, its bytes are unknown
	 * until the program's next read of them (an undescribed syscall's
	 * possible outputs, a new file mapping, an unmapped range). */
	IDNA_KWRITE_UNKNOWN = 8,
	/* No bytes but a range, as IDNA_KWRITE_UNKNOWN: from the transition
	 * that follows, its bytes are zero (a fresh anonymous mapping, private
	 * anonymous pages dropped by MADV_DONTNEED). */
	IDNA_KWRITE_ZERO = 16,
};
/* The flags of a KERNEL_WRITE that carries a range instead of bytes. */
#define IDNA_KWRITE_RANGE (IDNA_KWRITE_UNKNOWN | IDNA_KWRITE_ZERO)

struct idna_mem_effect {
	uint64_t addr;
	uint32_t len;
	const uint8_t *bytes;
};

/*
 * One record. Pointers (bytes, strings, regs) are borrowed: on append the
 * writer copies them; from the reader they stay valid until the next call
 * on the same iterator.
 */
struct idna_record {
	uint32_t type; /* enum idna_record_type, or an unknown type */
	union {
		struct {
			uint64_t hits_before; /* correct predictions since the last miss */
			const uint8_t *value;
			uint32_t len; /* 1..IDNA_MAX_READ */
		} miss;
		struct {
			uint64_t global_seq, icount;
			uint32_t reason;
		} key;
		struct {
			uint64_t global_seq, icount;
			const struct idna_regs *regs;
		} checkpoint;
		struct {
			uint32_t kind;
			uint64_t nr, result;
			const struct idna_regs *regs; /* after the transition */
		} kernel;
		struct {
			uint32_t kind;
			uint32_t n_in, n_out;
			uint64_t in[IDNA_MAX_NONDET_VALUES];
			uint64_t out[IDNA_MAX_NONDET_VALUES];
		} nondet;
		struct {
			const uint8_t *insn; /* the instruction's bytes */
			uint32_t insn_len;   /* 1..15 */
			const struct idna_regs *regs; /* after it */
			uint32_t n_writes;
			const struct idna_mem_effect *writes;
		} native;
		struct {
			uint64_t addr;
			const uint8_t *bytes;
			uint32_t len;
		} code_page;
		struct {
			uint64_t tid, parent_tid;
			uint32_t stream; /* the stream that carries its records */
			const struct idna_regs *regs; /* initial state */
		} thread_create;
		struct {
			uint64_t tid;
			int64_t status;
		} thread_exit;
		struct {
			uint64_t addr, size, offset;
			uint32_t prot; /* PROT_* bits */
			const char *path;
			const uint8_t *build_id;
			uint32_t build_id_len; /* 0 when the file has none */
		} module_load;
		struct {
			uint64_t addr, size;
		} module_unmap;
		struct {
			const char *path;
			uint32_t address_space; /* the new address space's number */
		} execve;
		struct {
			uint64_t tid;
			int32_t signo, code;
			uint64_t addr;
		} signal;
		struct {
			int64_t status; /* as returned by waitpid */
		} process_exit;
		struct {
			uint64_t hits, misses; /* cumulative for the stream */
		} cache_stats;
		struct {
			/* Bytes the kernel wrote into the program's memory at
			 * the kernel transition that follows (a syscall's
			 * outputs, a signal frame), as they were after it. */
			uint64_t addr;
			const uint8_t *bytes;
			uint32_t len; /* 0..IDNA_MAX_KERNEL_WRITE */
			uint32_t flags; /* enum idna_kernel_write_flags */
			/* With IDNA_KWRITE_RANGE flags (and no bytes): the
			 * range's length. */
			uint64_t span;
		} kernel_write;
		struct {
			const uint8_t *payload;
			uint32_t len;
		} unknown;
	} u;
};

const char *idna_record_type_name(uint32_t type);

/* The CPUID answers the recording exposed to the program. */
struct idna_cpuid_entry {
	uint32_t leaf, subleaf, eax, ebx, ecx, edx;
};

/* The descriptive part of the file header. */
struct idna_header_info {
	uint32_t argc;
	const char *const *argv;
	const char *cwd;
	int64_t start_time_ns; /* CLOCK_REALTIME at the start of recording */
	uint32_t n_cpuid;
	const struct idna_cpuid_entry *cpuid;
	/* The recorded process's id (its initial thread's tid); 0: unknown
	 * (a trace of format 1.0 or 1.1). */
	int64_t pid;
};

/* Reads the GNU build-id note of an ELF file. Returns its length (0 when
 * there is none), or -1 with a message when the file cannot be read. */
int idna_read_build_id(const char *path, uint8_t *out, size_t cap, char *err, size_t errlen);

/* ---------------------------------------------------------------- writer */

struct idna_writer_options {
	uint32_t chunk_bytes;     /* uncompressed chunk capacity; 0: 128 KiB */
	int zstd_level;           /* 0: 1 */
	uint32_t queue_chunks;    /* chunks in flight to the compressor; 0: 8 */
	uint64_t ring_bytes;      /* 0: keep everything; else ring mode */
	uint32_t cache_log2_entries; /* prediction cache geometry; 0: 17 */
	/* log2 of the bytes the cache hashes together: 0 or 3 +
	 * cache_log2_entries, the whole cache: direct-mapped (format 1.6);
	 * 6, 64-byte blocks: a format 1.5 trace, for readers older than
	 * 1.6; 3, each 8-byte line alone: format 1.4, older than 1.5 */
	uint32_t cache_log2_line;
	bool create_new;          /* the name must be new: created with O_EXCL and
				   * O_NOFOLLOW, never following a link or
				   * truncating a file; false: create or truncate */
};

struct idna_writer;
struct idna_miss_cursor;

/* The smallest ring (idna_writer_options.ring_bytes) for chunks of
 * chunk_bytes (0: the default size): four chunks. */
uint64_t idna_ring_min_bytes(uint32_t chunk_bytes);
/* Creates path (mode 0600: a trace holds what the program read) and writes
 * the header. NULL on failure; a file it created is then removed again. */
struct idna_writer *idna_writer_open(const char *path, const struct idna_writer_options *opt,
				     const struct idna_header_info *info, char *err, size_t errlen);

/* Appends a record to a stream (0 is the global stream). Returns 0, or -1
 * after which the writer only accepts close (see idna_writer_error). */
int idna_writer_append(struct idna_writer *w, uint32_t stream, const struct idna_record *rec);

/* The same for a MISS record, the recorder's most frequent: encoded
 * straight into the stream's open chunk when it has room, after which the
 * stream's miss cursor is lent the room that is left. */
int idna_writer_append_miss(struct idna_writer *w, uint32_t stream, uint64_t hits_before,
			    const uint8_t *value, uint32_t len);
/* The same for a value of len <= 8 bytes held in an integer (its low
 * bytes, little-endian); a longer len is refused as an invalid record. */
int idna_writer_append_miss_uint(struct idna_writer *w, uint32_t stream, uint64_t hits_before,
				 uint64_t value, uint32_t len);

/* The stream's miss cursor (miss_cursor.h), for its appender to put MISS
 * records with no call; NULL when the stream cannot be made. The pointer
 * holds until the writer is closed. */
struct idna_miss_cursor *idna_writer_miss_cursor(struct idna_writer *w, uint32_t stream);

/* The stream will have no records for a while, or ever (its thread
 * ended): its open chunk is ended now instead of at close, so that the
 * writer's memory follows the streams still written, not every stream
 * ever opened. A later record opens a new chunk. 0, or -1. */
int idna_writer_end_stream(struct idna_writer *w, uint32_t stream);

/* Ends every open chunk and waits until all are written to the file. */
int idna_writer_flush(struct idna_writer *w);

const char *idna_writer_error(const struct idna_writer *w);

/* Flushes, writes the index and trailer, frees the writer. Returns 0, or
 * -1 with a message; the writer is freed either way. */
int idna_writer_close(struct idna_writer *w, char *err, size_t errlen);

/* Frees the writer without flushing or writing the index: what a killed
 * recorder leaves behind (for tests). */
void idna_writer_abandon(struct idna_writer *w);

struct idna_writer_stats {
	uint64_t records, record_bytes;    /* uncompressed */
	uint64_t chunks, compressed_bytes; /* written to the file */
	uint64_t producer_waits;           /* times append waited for the queue */
};
void idna_writer_get_stats(struct idna_writer *w, struct idna_writer_stats *out);

/* The header's cache_log2_line: the writer of the misses must hash
 * addresses as the readers will (predict_cache_set_line_log2). */
uint32_t idna_writer_cache_log2_line(const struct idna_writer *w);

/* ---------------------------------------------------------------- reader */

struct idna_reader;

struct idna_header {
	uint32_t version_major, version_minor;
	uint64_t flags;
	uint32_t arch; /* ELF machine number: 62 for x86-64 */
	uint32_t cache_log2_entries, cache_log2_line;
	uint64_t ring_bytes;
	uint32_t max_chunk_bytes;
	struct idna_header_info info; /* strings owned by the reader */
};

#define IDNA_CHUNK_BASELINE 1u /* ring mode: the state of evicted global chunks */

struct idna_chunk_info {
	uint64_t file_offset;
	uint64_t seq;       /* order of writing, file-wide */
	uint32_t stream;
	uint32_t flags;
	uint64_t stream_chunk_no; /* ordinal within its stream */
	uint64_t first_global_seq, first_icount;
	uint32_t compressed_size, uncompressed_size;
	uint32_t n_records, n_checkpoints;
	bool damaged; /* checksum mismatch; its records are not served */
};

struct idna_checkpoint {
	uint32_t stream;
	uint32_t chunk;  /* index into the chunk table */
	uint32_t offset; /* within the chunk's uncompressed records */
	uint64_t global_seq, icount;
};

struct idna_thread_info {
	uint64_t tid, parent_tid;
	uint32_t stream;
	bool exited;
	int64_t exit_status;
};

struct idna_module_info {
	uint64_t addr, size, offset;
	uint32_t prot;
	char *path;
	uint8_t build_id[64];
	uint32_t build_id_len;
	bool unmapped;
};

/* Whether buf, the first len bytes of a file, begins with the trace
 * file's magic. */
bool idna_starts_with_magic(const void *buf, size_t len);

/* Opens path for reading if it is a regular file, without ever blocking
 * (a FIFO, a device): the descriptor, or -1 with a one-line message. */
int idna_open_regular(const char *path, char *err, size_t errlen);

/* Opens and validates a trace. A missing or damaged index is rebuilt by
 * scanning; damaged chunks are listed with damaged = true. NULL with a
 * one-line message when the file is not a usable trace. */
struct idna_reader *idna_reader_open(const char *path, char *err, size_t errlen);
void idna_reader_close(struct idna_reader *r);

const struct idna_header *idna_reader_header(const struct idna_reader *r);
/* Whether a thread-switch key frame un-logs every code page, as a
 * checkpoint does (ring traces of minor version 3 and later: man/idna.5,
 * RING MODE). */
bool idna_reader_switch_unlogs_code(const struct idna_reader *r);
/* True when the index was rebuilt by scanning (footer missing or bad). */
bool idna_reader_index_rebuilt(const struct idna_reader *r);
/* Whether the writer closed the trace (its index and trailer are sound)
 * and no chunk is damaged. *intact_bytes: where the data that can be read
 * without a gap ends (the file's size when complete; after a killed
 * recorder or a full disk, the end of its last complete chunk). */
bool idna_reader_complete(const struct idna_reader *r, uint64_t *intact_bytes);
/* A warning about the file found while opening (damage, gaps), or NULL. */
const char *idna_reader_warning(const struct idna_reader *r);

size_t idna_reader_chunk_count(const struct idna_reader *r);
const struct idna_chunk_info *idna_reader_chunk(const struct idna_reader *r, size_t i);
/* The CRC-32C its header declares for its payload: with the chunk table,
 * a cheap fingerprint of the whole trace (ttreplay's replay index). */
uint32_t idna_reader_chunk_crc(const struct idna_reader *r, size_t i);
size_t idna_reader_stream_count(const struct idna_reader *r);
uint32_t idna_reader_stream_id(const struct idna_reader *r, size_t i);
size_t idna_reader_checkpoint_count(const struct idna_reader *r);
const struct idna_checkpoint *idna_reader_checkpoint(const struct idna_reader *r, size_t i);
size_t idna_reader_thread_count(const struct idna_reader *r);
const struct idna_thread_info *idna_reader_thread(const struct idna_reader *r, size_t i);
/* The initial thread (no thread-create) is not in the thread table: true
 * and *status when its thread-exit was recorded. */
bool idna_reader_initial_thread_exit(const struct idna_reader *r, int64_t *status);
size_t idna_reader_module_count(const struct idna_reader *r);
const struct idna_module_info *idna_reader_module(const struct idna_reader *r, size_t i);

/* The last checkpoint of a stream whose icount is <= icount, or NULL. */
const struct idna_checkpoint *idna_reader_find_checkpoint(const struct idna_reader *r,
							  uint32_t stream, uint64_t icount);

struct idna_iter;

/* Iterates a stream's records from a checkpoint (NULL: from the stream's
 * first chunk). Memory is bounded by one chunk. */
struct idna_iter *idna_iter_open(struct idna_reader *r, uint32_t stream,
				 const struct idna_checkpoint *from, char *err, size_t errlen);
/* A set of record types, one bit per type (idna_iter_want); bit 0 stands
 * for every type from 32 on (type 0 is never a record's). */
static inline uint32_t idna_type_bit(uint32_t type)
{
	return type < 32 ? 1u << type : 1u;
}
/* From now on idna_iter_next returns only records of these types and
 * steps over the others by their length, decoding only those whose delta
 * state the wanted ones need: a reader of some types pays for little
 * more. A record stepped over is not checked beyond its length. */
void idna_iter_want(struct idna_iter *it, uint32_t types);
/* Two iterators of the same stream that read it at once (each with its
 * own types): a chunk one has loaded is not decompressed again for the
 * other, which reads the same bytes. Either may be closed first. */
void idna_iter_pair(struct idna_iter *a, struct idna_iter *b);
/* 1: *rec filled; 0: end of stream; -1: error (idna_iter_error). */
int idna_iter_next(struct idna_iter *it, struct idna_record *rec);
/* idna_iter_next's answer when the next record is a wanted MISS in the
 * chunk at hand (1: rec's type and u.miss filled, nothing else); 0 when
 * it is anything else, nothing done: call idna_iter_next. The bulk of a
 * replay's records are misses, each decoded on the way of a read. */
int idna_iter_next_miss(struct idna_iter *it, struct idna_record *rec);
/* The bytes of the loaded chunk from the next record on, for the caller
 * to decode MISS records there itself (miss_cursor.h); none when the
 * iterator has no chunk, failed, or does not read MISS records. Until
 * idna_iter_took_misses, no other call on the iterator. */
struct idna_miss_span;
void idna_iter_lend_misses(struct idna_iter *it, struct idna_miss_span *s);
/* The iterator moved past the records decoded from the span, the last of
 * them its current one (idna_iter_position); the span emptied. */
void idna_iter_took_misses(struct idna_iter *it, struct idna_miss_span *s);
const char *idna_iter_error(const struct idna_iter *it);
/* Where the last record returned came from, and its encoded size
 * (type, length and payload). */
void idna_iter_position(const struct idna_iter *it, uint32_t *chunk, uint32_t *offset,
			uint32_t *encoded_size);
/* Records of the current chunk that start before `offset` are returned
 * without their registers (a reader skipping to a saved position: most of
 * the decoding time is the register block). */
void idna_iter_skip_regs_before(struct idna_iter *it, uint32_t offset);
void idna_iter_close(struct idna_iter *it);

#endif
