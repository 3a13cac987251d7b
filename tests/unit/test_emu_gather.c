/*
 * test_emu_gather.c — the AVX2 gathers run natively and in the emulator
 * from the same registers and memory, compared bit for bit: all sixteen
 * YMM registers, and for a fault the vector, the address and the partial
 * state the CPU leaves (taken from the signal frame's saved registers).
 *
 * Memory is two readable pages followed by a guard page; rax points at the
 * middle. Indices are random within the readable pages (signed, every
 * scale), masks have random top bits; fault cases aim one active element
 * at the guard page, or (qword indices) at a non-canonical address. Forms
 * cover every destination/index width the encoder accepts and registers
 * both below and above xmm7 (VEX.R, VEX.X, VEX.vvvv).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <Zydis/Zydis.h>

#include "check_main.h"
#include "emulator/emu.h"

#define PAGE 4096u
#define CASES 300

struct gather_state {
	uint8_t ymm[16][32]; /* 0 */
	uint64_t rax;        /* 512 */
};
_Static_assert(__builtin_offsetof(struct gather_state, rax) == 512, "layout");

/* void gather_native_run(struct gather_state *s, const void *code): loads
 * ymm0-15 and rax, calls code (the gather, then ret), stores ymm0-15. */
void gather_native_run(struct gather_state *s, const void *code);
__asm__(".pushsection .text\n"
	".type gather_native_run, @function\n"
	"gather_native_run:\n"
	"  .irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"    vmovdqu \\n*32(%rdi), %ymm\\n\n"
	"  .endr\n"
	"  mov 512(%rdi), %rax\n"
	"  call *%rsi\n"
	"  .irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"    vmovdqu %ymm\\n, \\n*32(%rdi)\n"
	"  .endr\n"
	"  vzeroupper\n"
	"  ret\n"
	".popsection\n");

/* --- the native side's fault: registers from the signal frame ------------- */

static sigjmp_buf fault_jump;
static struct gather_state fault_state;
static uint64_t fault_addr;
static int fault_trapno;

/* Offsets in the signal frame's XSAVE image (standard format). */
enum { FX_XMM = 160, FX_SW_MAGIC = 464, XSAVE_HEADER = 512, XSAVE_YMM_HI = 576 };

static void on_fault(int sig, siginfo_t *info, void *uc_void)
{
	(void)sig;
	ucontext_t *uc = uc_void;
	const uint8_t *fx = (const uint8_t *)uc->uc_mcontext.fpregs;
	uint32_t magic;
	uint64_t xstate_bv = 0;
	memcpy(&magic, fx + FX_SW_MAGIC, 4);
	if (magic == 0x46505853u) /* FP_XSTATE_MAGIC1: an XSAVE image follows */
		memcpy(&xstate_bv, fx + XSAVE_HEADER, 8);
	for (int i = 0; i < 16; i++) {
		memcpy(fault_state.ymm[i], fx + FX_XMM + 16 * i, 16);
		if (xstate_bv & 4) /* YMM state not in its init (zero) configuration */
			memcpy(fault_state.ymm[i] + 16, fx + XSAVE_YMM_HI + 16 * i, 16);
		else
			memset(fault_state.ymm[i] + 16, 0, 16);
	}
	fault_addr = (uint64_t)(uintptr_t)info->si_addr;
	fault_trapno = (int)uc->uc_mcontext.gregs[REG_TRAPNO];
	siglongjmp(fault_jump, 1);
}

/* --- the emulator's memory: the two data pages, nothing else ---------------- */

static uint8_t *data, *code;

static bool in_data(uint64_t addr, size_t size)
{
	uint64_t lo = (uint64_t)(uintptr_t)data;
	return addr >= lo && addr + size <= lo + 2 * PAGE && addr + size > addr;
}

static int window_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	(void)ctx;
	if (!in_data(addr, size))
		return EMU_MEM_FAULT;
	memcpy(buf, (const void *)(uintptr_t)addr, size);
	return EMU_MEM_OK;
}

static int window_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	(void)ctx;
	if (!in_data(addr, size))
		return EMU_MEM_FAULT;
	memcpy((void *)(uintptr_t)addr, buf, size);
	return EMU_MEM_OK;
}

static size_t window_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	(void)ctx;
	uint64_t lo = (uint64_t)(uintptr_t)code;
	if (addr < lo || addr >= lo + PAGE)
		return 0;
	size_t n = lo + PAGE - addr < size ? lo + PAGE - addr : size;
	memcpy(buf, (const void *)(uintptr_t)addr, n);
	return n;
}

static const struct emu_memory_ops window_ops = {
	.read = window_read, .write = window_write, .fetch = window_fetch,
};

/* --- forms ----------------------------------------------------------------- */

struct gather_form {
	uint8_t bytes[16];
	uint8_t len;
	char text[96];
	unsigned index_size, index_reg, scale;
	/* Destination and mask registers, element size and count. */
	unsigned dst_reg, mask_reg, elem_size, elements;
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Encodes `m dst, [rax + index*scale + disp], mask`; false if no such form. */
static bool encode(ZydisMnemonic m, ZydisRegister dst, ZydisRegister index, unsigned scale,
		   int disp, ZydisRegister mask, struct gather_form *f)
{
	ZydisEncoderRequest rq;
	memset(&rq, 0, sizeof(rq));
	rq.machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	rq.allowed_encodings = ZYDIS_ENCODABLE_ENCODING_VEX;
	rq.mnemonic = m;
	rq.operand_count = 3;
	rq.operands[0].type = ZYDIS_OPERAND_TYPE_REGISTER;
	rq.operands[0].reg.value = dst;
	rq.operands[1].type = ZYDIS_OPERAND_TYPE_MEMORY;
	rq.operands[1].mem.base = ZYDIS_REGISTER_RAX;
	rq.operands[1].mem.index = index;
	rq.operands[1].mem.scale = (ZyanU8)scale;
	rq.operands[1].mem.displacement = disp;
	rq.operands[2].type = ZYDIS_OPERAND_TYPE_REGISTER;
	rq.operands[2].reg.value = mask;
	ZyanUSize len = sizeof(f->bytes);
	for (ZyanU16 size = 4; size <= 8; size += 4) {
		rq.operands[1].mem.size = size;
		len = sizeof(f->bytes);
		if (ZYAN_SUCCESS(ZydisEncoderEncodeInstruction(&rq, f->bytes, &len))) {
			f->len = (uint8_t)len;
			emu_disassemble(0, f->bytes, f->len, f->text, sizeof(f->text));
			f->index_reg = (unsigned)ZydisRegisterGetId(index);
			f->scale = scale;
			return true;
		}
	}
	return false;
}

/* --- one case ----------------------------------------------------------------- */

struct outcome {
	bool faulted;
	int vector;
	uint64_t addr;
	struct gather_state s;
};

static void run_native(const struct gather_form *f, const struct gather_state *in,
		       struct outcome *out)
{
	memcpy(code, f->bytes, f->len);
	code[f->len] = 0xc3;
	out->s = *in;
	out->faulted = false;
	if (sigsetjmp(fault_jump, 1)) {
		__asm__ volatile("vzeroupper");
		out->faulted = true;
		out->vector = fault_trapno;
		out->addr = fault_addr;
		out->s = fault_state;
		out->s.rax = in->rax;
		return;
	}
	gather_native_run(&out->s, code);
}

static void run_emulated(struct emu_cpu *cpu, const struct gather_form *f,
			 const struct gather_state *in, struct outcome *out)
{
	struct emu_regs *r = emu_regs(cpu);
	memcpy(code, f->bytes, f->len);
	code[f->len] = 0xc3;
	emu_invalidate_code(cpu, 0, UINT64_MAX);
	for (int i = 0; i < 16; i++) {
		memset(&r->zmm[i], 0, sizeof(r->zmm[i]));
		memcpy(r->zmm[i].b, in->ymm[i], 32);
	}
	r->gpr[EMU_RAX] = in->rax;
	r->rip = (uint64_t)(uintptr_t)code;
	enum emu_exit e = emu_run(cpu, 1);
	const struct emu_exit_info *x = emu_exit_info(cpu);
	out->faulted = e == EMU_EXIT_FAULT;
	out->vector = out->faulted ? (int)x->fault : -1;
	out->addr = x->fault_addr;
	ck_assert_msg(e == EMU_EXIT_LIMIT || e == EMU_EXIT_FAULT, "%s: emulator stopped: %s",
		      f->text, emu_exit_name(e));
	uint64_t want_rip = (uint64_t)(uintptr_t)code + (out->faulted ? 0 : f->len);
	ck_assert_msg(r->rip == want_rip, "%s: rip %#llx", f->text, (unsigned long long)r->rip);
	for (int i = 0; i < 16; i++)
		memcpy(out->s.ymm[i], r->zmm[i].b, 32);
	out->s.rax = in->rax;
}

static void dump(const char *what, const uint8_t *v)
{
	printf("    %-7s", what);
	for (int i = 31; i >= 0; i--)
		printf("%02x%s", v[i], i && i % 8 == 0 ? "_" : "");
	printf("\n");
}

/*
 * What a gather that faults leaves beyond its completed elements is
 * model-specific. The modelled CPU first turns each mask element into all
 * ones or zeros (from its top bit) and zeroes the mask and destination
 * above the gathered elements (ops_gather.c); AMD's leaves the elements
 * still to be gathered as they were and the registers' upper bytes
 * unchanged until completion. On another vendor's CPU a faulting case
 * compares the destination's gathered elements and each mask element's
 * top bit (whether it is still to be gathered) exactly, and not the mask
 * elements' other bits nor the bytes above the gathered elements.
 */
static void mask_model_specific(const struct gather_form *f, struct gather_state *s)
{
	unsigned used = f->elements * f->elem_size;
	memset(s->ymm[f->dst_reg] + used, 0, 32 - used);
	memset(s->ymm[f->mask_reg] + used, 0, 32 - used);
	for (unsigned i = 0; i < f->elements; i++) {
		uint8_t *m = s->ymm[f->mask_reg] + i * f->elem_size;
		uint8_t top = m[f->elem_size - 1] & 0x80;
		memset(m, 0, f->elem_size);
		m[f->elem_size - 1] = top;
	}
}

/* The differences between the two outcomes, printed; true when equal. */
static bool same(const struct gather_form *f, const struct gather_state *in,
		 const struct outcome *n, const struct outcome *e)
{
	bool ok = n->faulted == e->faulted;
	if (ok && n->faulted) {
		/* The emulator reports a non-canonical access as #GP and any
		 * refused one as #PF with its address, as the kernel's trap
		 * numbers say. */
		ok = n->vector == e->vector && (n->vector != EMU_FAULT_PF || n->addr == e->addr);
	}
	struct gather_state ns = n->s, es = e->s;
	if (ok && n->faulted && n->vector != EMU_FAULT_UD && !emu_host_is_modelled_vendor()) {
		mask_model_specific(f, &ns);
		mask_model_specific(f, &es);
	}
	for (int i = 0; i < 16; i++)
		ok = ok && !memcmp(ns.ymm[i], es.ymm[i], 32);
	if (ok)
		return true;
	printf("FAIL %s: native %s (trap %d, %#llx), emulator %s (vector %d, %#llx)\n", f->text,
	       n->faulted ? "faulted" : "retired", n->vector, (unsigned long long)n->addr,
	       e->faulted ? "faulted" : "retired", e->vector, (unsigned long long)e->addr);
	for (int i = 0; i < 16; i++)
		if (memcmp(n->s.ymm[i], e->s.ymm[i], 32)) {
			char name[8];
			snprintf(name, sizeof(name), "ymm%d", i);
			printf("  %s\n", name);
			dump("input", in->ymm[i]);
			dump("cpu", n->s.ymm[i]);
			dump("emu", e->s.ymm[i]);
		}
	return false;
}

/* --- inputs ------------------------------------------------------------------- */

enum fault_kind { NO_FAULT, FAULT_GUARD_PAGE, FAULT_NONCANONICAL };

static void random_state(const struct gather_form *f, int disp, enum fault_kind fault,
			 struct gather_state *s)
{
	for (int i = 0; i < 16; i++)
		for (int k = 0; k < 32; k += 8) {
			uint64_t v = next_random();
			switch (next_random() % 4) {
			case 0: v = 0; break;
			case 1: v = ~0ull; break;
			default: break;
			}
			memcpy(s->ymm[i] + k, &v, 8);
		}
	s->rax = (uint64_t)(uintptr_t)data + PAGE;
	/* Indices: addresses within the two readable pages. */
	int64_t lo = (-(int64_t)PAGE - disp) / (int64_t)f->scale + 1;
	int64_t hi = ((int64_t)PAGE - 8 - disp) / (int64_t)f->scale;
	uint8_t *index = s->ymm[f->index_reg];
	unsigned count = 32 / f->index_size;
	for (unsigned i = 0; i < count; i++) {
		int64_t x = lo + (int64_t)(next_random() % (uint64_t)(hi - lo));
		memcpy(index + i * f->index_size, &x, f->index_size);
	}
	if (fault == NO_FAULT)
		return;
	/* One element (active or not: the mask decides) points outside. */
	unsigned k = (unsigned)(next_random() % count);
	int64_t x;
	if (fault == FAULT_NONCANONICAL && f->index_size == 8)
		x = (int64_t)(0x4000000000000000ull / f->scale);
	else
		/* Rounded up: the element lies wholly in the guard page. */
		x = ((int64_t)PAGE - disp + (int64_t)(next_random() % 64) + f->scale - 1) /
		    (int64_t)f->scale;
	memcpy(index + k * f->index_size, &x, f->index_size);
}

/* --- the tests ----------------------------------------------------------------- */

struct gather_insn {
	ZydisMnemonic mnemonic;
	unsigned index_size, elem_size;
};

static const struct gather_insn gathers[] = {
	{ ZYDIS_MNEMONIC_VPGATHERDD, 4, 4 }, { ZYDIS_MNEMONIC_VPGATHERDQ, 4, 8 },
	{ ZYDIS_MNEMONIC_VPGATHERQD, 8, 4 }, { ZYDIS_MNEMONIC_VPGATHERQQ, 8, 8 },
	{ ZYDIS_MNEMONIC_VGATHERDPS, 4, 4 }, { ZYDIS_MNEMONIC_VGATHERDPD, 4, 8 },
	{ ZYDIS_MNEMONIC_VGATHERQPS, 8, 4 }, { ZYDIS_MNEMONIC_VGATHERQPD, 8, 8 },
};

/* Register triples (destination, index, mask). */
static const unsigned register_sets[][3] = { { 1, 2, 3 }, { 9, 12, 14 }, { 0, 15, 7 } };

static void setup(void)
{
	data = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(data, MAP_FAILED);
	ck_assert_int_eq(mprotect(data + 2 * PAGE, PAGE, PROT_NONE), 0);
	for (unsigned i = 0; i < 2 * PAGE; i++)
		data[i] = (uint8_t)next_random();
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(code, MAP_FAILED);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
}

/* Runs every form of every gather; returns the forms that failed. */
static unsigned check_all(enum fault_kind fault, unsigned *forms_tested, unsigned *faults_seen)
{
	static const unsigned scales[] = { 1, 2, 4, 8 };
	static const int disps[] = { 0, 0x10, -0x40, 0x123 };
	struct emu_cpu *cpu = emu_new(&window_ops, NULL);
	ck_assert_ptr_nonnull(cpu);
	unsigned failed = 0;
	for (size_t g = 0; g < sizeof(gathers) / sizeof(gathers[0]); g++)
		for (unsigned wide = 0; wide < 4; wide++)
			for (size_t rs = 0; rs < sizeof(register_sets) / sizeof(register_sets[0]); rs++) {
				const unsigned *r = register_sets[rs];
				ZydisRegister vd = (wide & 1) ? ZYDIS_REGISTER_YMM0 : ZYDIS_REGISTER_XMM0;
				ZydisRegister vi = (wide & 2) ? ZYDIS_REGISTER_YMM0 : ZYDIS_REGISTER_XMM0;
				unsigned scale = scales[(g + rs + wide) % 4];
				int disp = disps[(g + rs) % 4];
				struct gather_form f;
				if (!encode(gathers[g].mnemonic, vd + r[0], vi + r[1], scale, disp,
					    vd + r[2], &f))
					continue;
				f.index_size = gathers[g].index_size;
				f.dst_reg = r[0];
				f.mask_reg = r[2];
				f.elem_size = gathers[g].elem_size;
				unsigned by_dst = ((wide & 1) ? 32 : 16) / f.elem_size;
				unsigned by_index = ((wide & 2) ? 32 : 16) / f.index_size;
				f.elements = by_dst < by_index ? by_dst : by_index;
				(*forms_tested)++;
				for (unsigned c = 0; c < CASES; c++) {
					struct gather_state in;
					struct outcome n, e;
					random_state(&f, disp, fault, &in);
					run_native(&f, &in, &n);
					run_emulated(cpu, &f, &in, &e);
					*faults_seen += n.faulted;
					if (!same(&f, &in, &n, &e)) {
						failed++;
						break;
					}
				}
			}
	emu_free(cpu);
	return failed;
}

START_TEST(test_gather_complete)
{
	unsigned forms = 0, faults = 0;
	unsigned failed = check_all(NO_FAULT, &forms, &faults);
	printf("gathers: %u forms, %u failing, %u faults\n", forms, failed, faults);
	ck_assert_uint_ge(forms, 8 * 3 * 2); /* every gather at two widths at least */
	ck_assert_uint_eq(faults, 0);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_gather_fault_partial)
{
	unsigned forms = 0, faults = 0;
	unsigned failed = check_all(FAULT_GUARD_PAGE, &forms, &faults);
	printf("gathers with a page fault: %u forms, %u failing, %u faults\n", forms, failed,
	       faults);
	ck_assert_uint_gt(faults, forms * CASES / 4);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_gather_fault_noncanonical)
{
	unsigned forms = 0, faults = 0;
	unsigned failed = check_all(FAULT_NONCANONICAL, &forms, &faults);
	printf("gathers with a #GP: %u forms, %u failing, %u faults\n", forms, failed, faults);
	ck_assert_uint_gt(faults, 0);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

/* Destination, index and mask must differ: #UD otherwise, both ways. The
 * encoder refuses such forms, so the bytes are written out: vpgatherdd
 * with xmm1 as destination and index, and with xmm2 as index and mask. */
START_TEST(test_gather_same_registers)
{
	static const struct gather_form forms[] = {
		{ { 0xc4, 0xe2, 0x69, 0x90, 0x0c, 0x88 }, 6, "vpgatherdd xmm1, [rax+xmm1*4], xmm2", 4, 1, 4, 1, 2, 4, 4 },
		{ { 0xc4, 0xe2, 0x69, 0x90, 0x04, 0x90 }, 6, "vpgatherdd xmm0, [rax+xmm2*4], xmm2", 4, 2, 4, 0, 2, 4, 4 },
	};
	struct emu_cpu *cpu = emu_new(&window_ops, NULL);
	for (size_t i = 0; i < 2; i++) {
		struct gather_state in;
		struct outcome n, e;
		random_state(&forms[i], 0, NO_FAULT, &in);
		run_native(&forms[i], &in, &n);
		run_emulated(cpu, &forms[i], &in, &e);
		ck_assert_msg(n.faulted && n.vector == EMU_FAULT_UD, "%s: native trap %d",
			      forms[i].text, n.vector);
		ck_assert_msg(same(&forms[i], &in, &n, &e), "%s", forms[i].text);
	}
	emu_free(cpu);
}
END_TEST

static Suite *emu_gather_suite(void)
{
	Suite *s = suite_create("emu_gather");
	TCase *tc = tcase_create("differential");
	tcase_add_unchecked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_gather_complete);
	tcase_add_test(tc, test_gather_fault_partial);
	tcase_add_test(tc, test_gather_fault_noncanonical);
	tcase_add_test(tc, test_gather_same_registers);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_gather_suite)
