/*
 * rep_steps.c — rep-prefixed string instructions that run several
 * iterations, for a script that single-steps them both ways: the CPU
 * stops after each iteration with rip still on the instruction, so stepi
 * shows rcx, rsi, rdi (and a comparison's flags) advancing one iteration
 * at a time and the memory written so far; reverse-stepi undoes one. A
 * forward and a backward copy (the direction flag set), stores of
 * quadwords, a repe cmpsb that a difference ends early and a repne scasb
 * that finds its byte; a breakpoint on an instruction stops at each
 * iteration.
 */
unsigned char src_bytes[16] = "abcdefghijklmno";
unsigned char dst_bytes[16];
unsigned long quads[4];
unsigned char cmp_a[8] = "abcXefg";
unsigned char cmp_b[8] = "abcYefg";

void rep_sequence(void);
__asm__(".text\n"
	".globl rep_sequence\n"
	".type rep_sequence, @function\n"
	"rep_sequence:\n"
	"lea src_bytes(%rip), %rsi\n"
	"lea dst_bytes(%rip), %rdi\n"
	"mov $5, %ecx\n"
	"cld\n"
	"rep movsb\n"
	"lea quads(%rip), %rdi\n"
	"mov $0x2a, %eax\n"
	"mov $3, %ecx\n"
	"rep stosq\n"
	"lea cmp_a(%rip), %rsi\n"
	"lea cmp_b(%rip), %rdi\n"
	"mov $7, %ecx\n"
	"repe cmpsb\n"
	"lea cmp_a(%rip), %rdi\n"
	"mov $0x65, %eax\n"
	"mov $8, %ecx\n"
	"repne scasb\n"
	"lea src_bytes+14(%rip), %rsi\n"
	"lea dst_bytes+15(%rip), %rdi\n"
	"mov $3, %ecx\n"
	"std\n"
	"rep movsb\n"
	"cld\n"
	"ret\n"
	".size rep_sequence, .-rep_sequence\n");

int main(void)
{
	rep_sequence();
	return dst_bytes[0] == 'a' ? 0 : 1;
}
