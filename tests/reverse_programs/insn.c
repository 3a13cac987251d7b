/*
 * insn.c — a run of varied instructions in one assembly function, for a
 * script that steps over each with stepi and reverse-stepi and prints the
 * registers: general-purpose arithmetic and moves, SSE, x87, string
 * instructions with rep prefixes, and the nondeterministic rdtsc, rdrand
 * and cpuid. Their results differ between two runs (and cpuid's between
 * a CPU and ttrec's CPUID policy), so the function copies them to
 * nondet_seen and clears the registers at once: the script compares them
 * through convenience variables, never prints them. Only instructions
 * whose flags the architecture defines run here: a CPU of another
 * vendor than the emulator's model would show other undefined flags.
 */
unsigned char src_bytes[32] = "abcdefghijklmnopqrstuvwxyz01234";
unsigned char dst_bytes[32];
double x87_in[2] = { 1.5, -2.25 };
double x87_out[2];
float sse_in[8] = { 1.0f, 4.0f, 9.0f, 16.0f, 0.5f, 0.25f, 2.0f, 3.0f };
float sse_out[4];
unsigned long nondet_seen[3];

void insn_sequence(void);
__asm__(".text\n"
	".globl insn_sequence\n"
	".type insn_sequence, @function\n"
	"insn_sequence:\n"
	"push %rbx\n"
	/* General purpose. */
	"mov $0x1234, %eax\n"
	"mov $7, %ecx\n"
	"add %ecx, %eax\n"
	"add %eax, %eax\n"
	"bswap %eax\n"
	"neg %rax\n"
	"xchg %rax, %rcx\n"
	"cmpxchg %ecx, %edx\n"
	"lea 0x10(%rax,%rcx,4), %rdx\n"
	"movzbl %dl, %ebx\n"
	"sub $3, %ebx\n"
	"cmovs %ecx, %ebx\n"
	"sete %dl\n"
	"popcnt %rcx, %rdx\n"
	/* SSE. */
	"movups sse_in(%rip), %xmm0\n"
	"movups sse_in+16(%rip), %xmm1\n"
	"addps %xmm1, %xmm0\n"
	"mulps %xmm0, %xmm1\n"
	"pshufd $0x1b, %xmm1, %xmm2\n"
	"pxor %xmm3, %xmm3\n"
	"sqrtps %xmm0, %xmm3\n"
	"cvttss2si %xmm3, %eax\n"
	"movups %xmm2, sse_out(%rip)\n"
	/* x87. */
	"fldl x87_in(%rip)\n"
	"fldl x87_in+8(%rip)\n"
	"fmul %st(1), %st\n"
	"fldpi\n"
	"faddp\n"
	"fstpl x87_out(%rip)\n"
	"fstpl x87_out+8(%rip)\n"
	/* Strings. */
	"lea src_bytes(%rip), %rsi\n"
	"lea dst_bytes(%rip), %rdi\n"
	"mov $16, %ecx\n"
	"cld\n"
	"rep movsb\n"
	"lea dst_bytes+16(%rip), %rdi\n"
	"mov $0x2a, %eax\n"
	"mov $2, %ecx\n"
	"rep stosq\n"
	"lea src_bytes(%rip), %rsi\n"
	"lea dst_bytes(%rip), %rdi\n"
	"mov $16, %ecx\n"
	"repe cmpsb\n"
	"lea src_bytes(%rip), %rdi\n"
	"mov $0x6b, %eax\n"
	"mov $32, %ecx\n"
	"repne scasb\n"
	"lodsb\n"
	/* Nondeterministic: kept aside, the registers cleared. */
	"rdtsc\n"
	"mov %eax, nondet_seen(%rip)\n"
	"xor %eax, %eax\n"
	"xor %edx, %edx\n"
	"rdrand %rax\n"
	"mov %rax, nondet_seen+8(%rip)\n"
	"xor %eax, %eax\n"
	"mov $1, %eax\n"
	"xor %ecx, %ecx\n"
	"cpuid\n"
	"mov %eax, nondet_seen+16(%rip)\n"
	"xor %eax, %eax\n"
	"xor %ebx, %ebx\n"
	"xor %ecx, %ecx\n"
	"xor %edx, %edx\n"
	"pop %rbx\n"
	"ret\n"
	".size insn_sequence, .-insn_sequence\n");

int main(void)
{
	insn_sequence();
	return (int)dst_bytes[0] - 'a';
}
