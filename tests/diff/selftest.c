/*
 * selftest.c — the harness tests itself (--self-test).
 *
 * First the whole state path: nop must come back from both runs unchanged
 * for many random states, which checks that the stub loads and stores
 * every GPR, RFLAGS, XMM/YMM, MXCSR and the x87 registers and tag word
 * exactly as the emulator sees them. Then wrong results are injected into
 * emulated runs (a flipped flag, register, vector or x87 byte, memory byte,
 * fault vector, exit) and each must be caught; a flipped undefined flag must
 * be counted as an undefined-flag difference, not a failure.
 */
#include <string.h>

#include "emulator/emu.h"
#include "diff.h"

int diff_self_test(struct diff_machine *m, uint64_t seed);

static unsigned checks, failures;

static void expect(bool ok, const char *what)
{
	checks++;
	if (!ok) {
		failures++;
		printf("self-test FAILED: %s\n", what);
	}
}

/* The first form of the mnemonic that satisfies `want`, into *out. */
static bool find_form(const struct diff_machine *m, unsigned mnemonic,
		      bool (*want)(const struct diff_form *), struct diff_form *out)
{
	static struct diff_form_list l;
	diff_forms_for_mnemonic(mnemonic, m->has_avx, m, &l);
	for (size_t i = 0; i < l.count; i++)
		if (!want || want(&l.forms[i])) {
			*out = l.forms[i];
			return true;
		}
	printf("self-test FAILED: no usable form of %s\n",
	       ZydisMnemonicGetString((ZydisMnemonic)mnemonic));
	failures++;
	return false;
}

static enum diff_verdict verdict(struct diff_machine *m, struct diff_case_run *run)
{
	return diff_compare(&run->c, m->has_avx, NULL);
}

/* Applies one corruption to a fresh copy of the emulated result and checks
 * the comparison's verdict. */
typedef void corruption(struct diff_case_run *run, struct diff_machine *m);

static void check_corruption(struct diff_machine *m, struct diff_case_run *run,
			     corruption *corrupt, enum diff_verdict want, const char *what)
{
	struct diff_result saved = run->emulated, saved_native = run->native;
	uint8_t saved_memory[DIFF_SCRATCH_SIZE];
	memcpy(saved_memory, m->scratch, DIFF_SCRATCH_SIZE);
	corrupt(run, m);
	expect(verdict(m, run) == want, what);
	run->emulated = saved;
	run->native = saved_native;
	memcpy(m->scratch, saved_memory, DIFF_SCRATCH_SIZE);
}

static void flip_rax(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.gpr[DIFF_RAX] ^= 1ull << 40; }
static void flip_r15(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.gpr[15] ^= 1; }
static void flip_cf(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.rflags ^= EMU_CF; }
static void flip_df(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.rflags ^= EMU_DF; }
static void move_rip(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.rip += 1; }
static void flip_xmm(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.vec[3][5] ^= 0x10; }
static void flip_ymm_upper(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.vec[14][20] ^= 0x01; }
static void flip_mxcsr(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.mxcsr ^= 1u << 13; }
static void flip_fcw(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.x87.fcw ^= 1u << 10; }
static void flip_fsw_top(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.x87.fsw ^= 1u << 11; }
static void flip_ftw(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.x87.ftw ^= 3u << 6; }
static void flip_x87_reg(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.x87.reg[6][9] ^= 0x80; }
static void flip_memory(struct diff_case_run *r, struct diff_machine *m) { (void)r; m->scratch[DIFF_DATA_OFFSET + 77] ^= 4; }
static void say_ran(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.outcome = DIFF_RAN; }
static void say_gp(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.outcome = DIFF_FAULTED; r->emulated.vector = EMU_FAULT_GP; }
static void say_ud(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.vector = EMU_FAULT_UD; }
static void swap_segv(struct diff_case_run *r, struct diff_machine *m)
{
	(void)m;
	r->emulated.vector = r->emulated.vector == EMU_FAULT_GP ? EMU_FAULT_PF : EMU_FAULT_GP;
}
static void native_ss(struct diff_case_run *r, struct diff_machine *m)
{
	(void)m;
	r->native.vector = DIFF_TRAP_SS;
	r->emulated.vector = EMU_FAULT_GP;
}
static void say_cpuid(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.special = EMU_SPECIAL_CPUID; }
static void other_exit(struct diff_case_run *r, struct diff_machine *m)
{
	r->emulated.state.rip = r->emulated.state.rip == m->exit_branch
		? m->exit_fallthrough : m->exit_branch;
}

static uint64_t undefined_bit;
static void flip_undefined(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.rflags ^= undefined_bit; }
static void flip_undefined_and_zf(struct diff_case_run *r, struct diff_machine *m) { (void)m; r->emulated.state.rflags ^= undefined_bit | EMU_ZF; }

static bool has_undefined_flag(const struct diff_form *f) { return f->undefined_flags != 0 && f->fault_base < 0; }
static bool register_form(const struct diff_form *f) { return f->fault_base < 0 && f->addressing == DIFF_ADDR_BASE; }
static bool base_memory_form(const struct diff_form *f) { return f->fault_base >= 0 && f->addressing == DIFF_ADDR_BASE; }
static bool relative_form(const struct diff_form *f) { return f->branch == DIFF_BRANCH_RELATIVE; }

/* nop: both runs must give back the input state, whatever it is. */
static void check_state_round_trip(struct diff_machine *m, struct diff_rng *rng,
				   struct diff_case_run *run)
{
	struct diff_form nop;
	if (!find_form(m, ZYDIS_MNEMONIC_NOP, register_form, &nop))
		return;
	unsigned bad = 0;
	for (unsigned i = 0; i < 500; i++) {
		diff_run_case(m, &nop, rng, i, run);
		if (verdict(m, run) != DIFF_PASS) {
			if (!bad++)
				diff_report_failure(stdout, &run->c, m->has_avx);
		}
	}
	expect(bad == 0, "nop keeps every register, vector, x87 and memory byte");

	diff_run_case(m, &nop, rng, 0, run);
	expect(verdict(m, run) == DIFF_PASS, "unchanged nop case passes");
	check_corruption(m, run, flip_rax, DIFF_FAIL, "a flipped rax bit is caught");
	check_corruption(m, run, flip_r15, DIFF_FAIL, "a flipped r15 bit is caught");
	check_corruption(m, run, flip_cf, DIFF_FAIL, "a flipped CF is caught");
	check_corruption(m, run, flip_df, DIFF_FAIL, "a flipped DF is caught");
	check_corruption(m, run, move_rip, DIFF_FAIL, "a wrong rip is caught");
	check_corruption(m, run, flip_xmm, DIFF_FAIL, "a flipped xmm byte is caught");
	if (m->has_avx)
		check_corruption(m, run, flip_ymm_upper, DIFF_FAIL,
				 "a flipped byte in a ymm upper half is caught");
	check_corruption(m, run, flip_mxcsr, DIFF_FAIL, "a flipped MXCSR rounding bit is caught");
	check_corruption(m, run, flip_fcw, DIFF_FAIL, "a flipped x87 control bit is caught");
	check_corruption(m, run, flip_fsw_top, DIFF_FAIL, "a wrong x87 TOP is caught");
	check_corruption(m, run, flip_ftw, DIFF_FAIL, "a wrong x87 tag is caught");
	check_corruption(m, run, flip_x87_reg, DIFF_FAIL, "a flipped x87 register byte is caught");
	check_corruption(m, run, flip_memory, DIFF_FAIL, "a flipped scratch byte is caught");
	check_corruption(m, run, say_gp, DIFF_FAIL, "a fault the CPU did not raise is caught");
}

static void check_undefined_flags(struct diff_machine *m, struct diff_rng *rng,
				  struct diff_case_run *run)
{
	struct diff_form f;
	if (!find_form(m, ZYDIS_MNEMONIC_AND, has_undefined_flag, &f))
		return;
	undefined_bit = f.undefined_flags & -f.undefined_flags;
	diff_run_case(m, &f, rng, 0, run);
	/* The real emulator may itself differ in undefined flags here. */
	expect(verdict(m, run) != DIFF_FAIL, "and passes");
	run->emulated.state.rflags = run->native.state.rflags;
	check_corruption(m, run, flip_undefined, DIFF_UNDEFINED_ONLY,
			 "an undefined flag difference is counted, not failed");
	check_corruption(m, run, flip_undefined_and_zf, DIFF_FAIL,
			 "an undefined and a defined flag difference fail");
}

static void check_faults(struct diff_machine *m, struct diff_rng *rng,
			 struct diff_case_run *run)
{
	struct diff_form f;
	if (!find_form(m, ZYDIS_MNEMONIC_MOV, base_memory_form, &f))
		return;
	diff_run_case(m, &f, rng, 15, run); /* a faulting case */
	expect(run->native.outcome == DIFF_FAULTED, "a guard-page operand faults natively");
	/* The emulator may say #PF where the CPU says #GP (non-canonical). */
	expect(verdict(m, run) != DIFF_FAIL, "the emulator reports the fault");
	run->emulated.vector = run->native.vector;
	expect(verdict(m, run) == DIFF_PASS, "the same fault passes");
	check_corruption(m, run, say_ran, DIFF_FAIL, "a missed fault is caught");
	check_corruption(m, run, say_ud, DIFF_FAIL, "a wrong fault vector is caught");
	check_corruption(m, run, swap_segv, DIFF_SEGV_VECTOR_ONLY,
			 "#GP for #PF is counted, not failed");
	check_corruption(m, run, native_ss, DIFF_SEGV_VECTOR_ONLY,
			 "#GP for #SS is counted, not failed");
	check_corruption(m, run, flip_rax, DIFF_FAIL, "state changed by a fault is caught");
	check_corruption(m, run, flip_memory, DIFF_FAIL, "memory changed by a fault is caught");
}

static void check_flow_and_specials(struct diff_machine *m, struct diff_rng *rng,
				    struct diff_case_run *run)
{
	struct diff_form f;
	if (find_form(m, ZYDIS_MNEMONIC_JZ, relative_form, &f)) {
		diff_run_case(m, &f, rng, 0, run);
		expect(verdict(m, run) == DIFF_PASS, "jz passes");
		check_corruption(m, run, other_exit, DIFF_FAIL, "a branch the other way is caught");
	}
	if (find_form(m, ZYDIS_MNEMONIC_SYSCALL, NULL, &f)) {
		diff_run_case(m, &f, rng, 0, run);
		expect(verdict(m, run) == DIFF_PASS, "syscall stops as a special instruction");
		check_corruption(m, run, say_cpuid, DIFF_FAIL, "the wrong special kind is caught");
		check_corruption(m, run, say_ran, DIFF_FAIL, "an executed syscall is caught");
	}
}

int diff_self_test(struct diff_machine *m, uint64_t seed)
{
	static struct diff_case_run run;
	struct diff_rng rng;
	diff_rng_seed(&rng, seed);
	check_state_round_trip(m, &rng, &run);
	check_undefined_flags(m, &rng, &run);
	check_faults(m, &rng, &run);
	check_flow_and_specials(m, &rng, &run);
	printf("self-test: %u checks, %u failed\n", checks, failures);
	return failures ? 1 : 0;
}
