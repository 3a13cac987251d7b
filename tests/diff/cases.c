/*
 * cases.c — one case from start to end: the input, the immediate, the
 * native run and the emulated run of the same instruction bytes.
 */
#include <string.h>

#include "diff.h"

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

void diff_run_case(struct diff_machine *m, const struct diff_form *f,
		   struct diff_rng *r, unsigned index, struct diff_case_run *run)
{
	run->form = *f;
	/* Case 0 keeps the immediate the form was found with. */
	if (index > 0 && f->imm_operand >= 0)
		diff_form_set_imm(&run->form, diff_make_imm(r, f->imm_size), m->insn_addr);
	load_code(m, run->form.bytes, run->form.len);

	bool fault = f->fault_base >= 0 && index % 16 == 15;
	diff_make_input(r, &run->form, m, &run->input, fault);
	if (run->form.kind == DIFF_FORM_COMPARE)
		diff_native_run(m, &run->input, &run->native);
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
