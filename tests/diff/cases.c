/*
 * cases.c — one case from start to end: the input, the immediate, the
 * native run and the emulated run of the same instruction bytes.
 */
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emulator/emu.h"
#include "tests/shared/model_specific.h"
#include "diff.h"

/* Tries before a case keeps an input that reaches foreign memory. */
#define MAX_REDRAWS 16

/* Whether this process can read the byte at addr (without touching it). */
static bool readable(uint64_t addr)
{
	uint8_t b;
	struct iovec local = { &b, 1 }, remote = { (void *)(uintptr_t)addr, 1 };
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1;
}

/*
 * The emulator sees only the scratch: any other address is a page fault to
 * it, as it is to the CPU for the guard pages and the unmapped rest of the
 * low 4 GiB. But an input can make the instruction reach memory this
 * process does own (a bit offset or an rbp that lands, after the 32-bit
 * address wrap, in the address sanitizer's shadow memory, which lies in the
 * low 4 GiB): there the CPU would read or even write memory the harness
 * does not control. Such an input is redrawn, never run natively; the
 * emulator's refused address tells where the instruction reaches.
 */
static bool reaches_foreign_memory(const struct diff_machine *m, const struct diff_result *e)
{
	if (e->outcome != DIFF_FAULTED || e->vector != EMU_FAULT_PF)
		return false;
	uint64_t s = (uint64_t)(uintptr_t)m->scratch;
	if (e->fault_addr >= s - 4096 && e->fault_addr < s + DIFF_SCRATCH_SIZE + 4096)
		return false; /* the scratch or its guard pages */
	return readable(e->fault_addr);
}

/* Puts the bytes in the stub unless they are already there. */
static void load_code(struct diff_machine *m, const uint8_t *bytes, uint8_t len)
{
	static uint8_t loaded[DIFF_MAX_INSN];
	static uint8_t loaded_len;
	if (len == loaded_len && !memcmp(loaded, bytes, len))
		return;
	diff_native_load(m, bytes, len);
	diff_emulate_code_changed(m);
	memcpy(loaded, bytes, len);
	loaded_len = len;
}

/*
 * The standard-format XSAVE layout is model-specific (CPUID leaf 0xD): on
 * a CPU whose component offsets differ from the modelled ones, the image
 * an xsave or xsaveopt writes is translated between the two around the
 * native run (tests/shared/model_specific.h), as the FPU state suite
 * does: the area's bytes are put in the host's layout before it and back
 * in the model's after it, so that bytes the CPU did not write return to
 * where they were. The scratch offset of the area, or -1 when the form
 * needs no translation or the area is not wholly in the scratch.
 */
static long std_xsave_area(const struct diff_machine *m, const struct diff_form *f,
			   const struct diff_state *in)
{
	switch ((ZydisMnemonic)f->mnemonic) {
	case ZYDIS_MNEMONIC_XSAVE: case ZYDIS_MNEMONIC_XSAVE64:
	case ZYDIS_MNEMONIC_XSAVEOPT: case ZYDIS_MNEMONIC_XSAVEOPT64:
		break;
	default:
		return -1;
	}
	size_t off;
	if (emu_host_is_modelled_vendor() || !xsave_std_layout_differs() ||
	    !diff_operand_offset(f, m, in, 0, XSAVE_STD_SIZE, &off))
		return -1;
	return (long)off;
}

static void native_run_translated(struct diff_machine *m, const struct diff_form *f,
				  const struct diff_state *in, struct diff_result *out)
{
	long area = std_xsave_area(m, f, in);
	if (area >= 0)
		xsave_std_model_to_host(m->initial_memory + area);
	diff_native_run(m, in, out);
	if (area >= 0) {
		xsave_std_host_to_model(m->initial_memory + area);
		xsave_std_host_to_model(m->native_memory + area);
	}
}

void diff_run_case(struct diff_machine *m, const struct diff_form *f,
		   struct diff_rng *r, unsigned index, struct diff_case_run *run)
{
	run->form = *f;
	/* Case 0 keeps the immediate the form was found with. */
	if (index > 0 && f->imm_operand >= 0)
		diff_form_set_imm(&run->form, diff_make_imm(r, f->imm_size), m->insn_addr);
	load_code(m, run->form.bytes, run->form.len);

	bool fault = f->fault_base >= 0 && index % 16 == 15;
	run->redraws = 0;
	diff_make_input(r, &run->form, m, &run->input, fault);
	if (run->form.kind == DIFF_FORM_COMPARE) {
		diff_emulate_run(m, &run->input, &run->emulated);
		while (reaches_foreign_memory(m, &run->emulated) && run->redraws < MAX_REDRAWS) {
			run->redraws++;
			diff_make_input(r, &run->form, m, &run->input, fault);
			diff_emulate_run(m, &run->input, &run->emulated);
		}
		native_run_translated(m, &run->form, &run->input, &run->native);
	}
	/* (Again) last: the scratch then holds the emulator's memory. */
	diff_emulate_run(m, &run->input, &run->emulated);

	run->c = (struct diff_case){
		.form = &run->form,
		.m = m,
		.input = &run->input,
		.native = run->form.kind == DIFF_FORM_COMPARE ? &run->native : NULL,
		.emulated = &run->emulated,
		.native_memory = m->native_memory,
		.emulated_memory = m->scratch,
	};
}
