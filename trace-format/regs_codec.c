/*
 * regs_codec.c — the register block as 299 words and the run-length XOR
 * delta that makes a record carrying registers cost only what changed:
 * a syscall's registers after differ in a handful of words, so the 2 KiB of
 * vector registers cost nothing.
 */
#include <string.h>

#include "trace-format/regs_codec.h"

/* The byte arrays (x87 and vector registers) as little-endian words: one
 * copy where the host is little-endian. Every record with registers is
 * decoded through here, also when a replay only skips over it to reach a
 * saved position, so the byte-wise form was most of a backward step. */
static void words_from_bytes(uint64_t *words, const uint8_t *bytes, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(words, bytes, n * 8);
#else
	for (size_t i = 0; i < n; i++)
		words[i] = load_le(bytes + 8 * i, 8);
#endif
}

static void bytes_from_words(uint8_t *bytes, const uint64_t *words, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(bytes, words, n * 8);
#else
	for (size_t i = 0; i < n; i++)
		store_le(bytes + 8 * i, words[i], 8);
#endif
}

/* Word layout; man/idna.5 documents the same table. */
enum {
	W_GPR = 0,      /* 16 words */
	W_RIP = 16,
	W_RFLAGS = 17,
	W_FS_BASE = 18,
	W_GS_BASE = 19,
	W_SEG = 20,     /* es cs ss ds as 16-bit lanes */
	W_SEG2 = 21,    /* fs gs fcw fsw */
	W_FPU = 22,     /* ftw fop mxcsr(32) */
	W_FIP = 23,
	W_FDP = 24,
	W_ST = 25,      /* 10 words: the 80 bytes of st[0..7] */
	W_K = 35,       /* 8 words */
	W_ZMM = 43,     /* 256 words */
};
_Static_assert(W_ZMM + 256 == REGS_IMAGE_WORDS, "register image layout");

void regs_to_image(const struct idna_regs *r, uint64_t *img)
{
	for (int i = 0; i < 16; i++)
		img[W_GPR + i] = r->gpr[i];
	img[W_RIP] = r->rip;
	img[W_RFLAGS] = r->rflags;
	img[W_FS_BASE] = r->fs_base;
	img[W_GS_BASE] = r->gs_base;
	img[W_SEG] = (uint64_t)r->seg_es | (uint64_t)r->seg_cs << 16 | (uint64_t)r->seg_ss << 32 |
		     (uint64_t)r->seg_ds << 48;
	img[W_SEG2] = (uint64_t)r->seg_fs | (uint64_t)r->seg_gs << 16 | (uint64_t)r->fcw << 32 |
		      (uint64_t)r->fsw << 48;
	img[W_FPU] = (uint64_t)r->ftw | (uint64_t)r->fop << 16 | (uint64_t)r->mxcsr << 32;
	img[W_FIP] = r->fip;
	img[W_FDP] = r->fdp;
	words_from_bytes(&img[W_ST], &r->st[0][0], 10);
	for (int i = 0; i < 8; i++)
		img[W_K + i] = r->k[i];
	words_from_bytes(&img[W_ZMM], &r->zmm[0][0], 256);
}

void regs_from_image(const uint64_t *img, struct idna_regs *r)
{
	for (int i = 0; i < 16; i++)
		r->gpr[i] = img[W_GPR + i];
	r->rip = img[W_RIP];
	r->rflags = img[W_RFLAGS];
	r->fs_base = img[W_FS_BASE];
	r->gs_base = img[W_GS_BASE];
	r->seg_es = (uint16_t)img[W_SEG];
	r->seg_cs = (uint16_t)(img[W_SEG] >> 16);
	r->seg_ss = (uint16_t)(img[W_SEG] >> 32);
	r->seg_ds = (uint16_t)(img[W_SEG] >> 48);
	r->seg_fs = (uint16_t)img[W_SEG2];
	r->seg_gs = (uint16_t)(img[W_SEG2] >> 16);
	r->fcw = (uint16_t)(img[W_SEG2] >> 32);
	r->fsw = (uint16_t)(img[W_SEG2] >> 48);
	r->ftw = (uint16_t)img[W_FPU];
	r->fop = (uint16_t)(img[W_FPU] >> 16);
	r->mxcsr = (uint32_t)(img[W_FPU] >> 32);
	r->fip = img[W_FIP];
	r->fdp = img[W_FDP];
	bytes_from_words(&r->st[0][0], &img[W_ST], 10);
	for (int i = 0; i < 8; i++)
		r->k[i] = img[W_K + i];
	bytes_from_words(&r->zmm[0][0], &img[W_ZMM], 256);
}

/*
 * varint(run count), then per run: varint(unchanged words skipped),
 * varint(changed words n), n varints of (new XOR old). Runs of changed
 * words separated by a single unchanged word are merged, since a zero
 * XOR costs one byte and a new run two.
 */
void regs_encode_delta(struct byte_writer *w, const uint64_t *base, const uint64_t *cur)
{
	struct {
		uint16_t skip, count;
	} runs[REGS_IMAGE_WORDS / 2 + 1];
	unsigned n_runs = 0, pos = 0, i = 0;
	while (i < REGS_IMAGE_WORDS) {
		if (base[i] == cur[i]) {
			i++;
			continue;
		}
		unsigned start = i, end = i + 1;
		while (end < REGS_IMAGE_WORDS) {
			if (base[end] != cur[end])
				end++;
			else if (end + 1 < REGS_IMAGE_WORDS && base[end + 1] != cur[end + 1])
				end += 2;
			else
				break;
		}
		runs[n_runs].skip = (uint16_t)(start - pos);
		runs[n_runs].count = (uint16_t)(end - start);
		n_runs++;
		pos = i = end;
	}
	bw_varint(w, n_runs);
	pos = 0;
	for (unsigned r = 0; r < n_runs; r++) {
		bw_varint(w, runs[r].skip);
		bw_varint(w, runs[r].count);
		pos += runs[r].skip;
		for (unsigned k = 0; k < runs[r].count; k++, pos++)
			bw_varint(w, base[pos] ^ cur[pos]);
	}
}

bool regs_decode_delta(struct byte_reader *r, uint64_t *img)
{
	uint64_t n_runs = br_varint(r);
	if (n_runs > REGS_IMAGE_WORDS)
		return false;
	uint64_t pos = 0;
	for (uint64_t i = 0; i < n_runs && !r->bad; i++) {
		uint64_t skip = br_varint(r), count = br_varint(r);
		if (skip > REGS_IMAGE_WORDS - pos || count > REGS_IMAGE_WORDS - pos - skip)
			return false;
		pos += skip;
		for (uint64_t k = 0; k < count; k++, pos++)
			img[pos] ^= br_varint(r);
	}
	return !r->bad;
}
