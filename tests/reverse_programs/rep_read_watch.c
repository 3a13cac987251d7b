/*
 * rep_read_watch.c — rep string instructions whose iterations read
 * bytes a script watches with read and access watchpoints: a forward and
 * a backward movsb, a lodsb, a repe cmpsb (reading at rsi and rdi) that
 * a difference ends early and a repne scasb that finds its byte. A
 * hardware watchpoint traps after the iteration that read, rip still on
 * the instruction unless that iteration was its last. No iteration
 * writes a byte the script watches for reads.
 */
unsigned char src[16] = "abcdefghijklmno";
unsigned char dst[16];
unsigned char cmp_a[8] = "abcXefg";
unsigned char cmp_b[8] = "abcYefg";

void rep_reads(void);
__asm__(".text\n"
	".globl rep_reads\n"
	".type rep_reads, @function\n"
	"rep_reads:\n"
	"lea src(%rip), %rsi\n"
	"lea dst(%rip), %rdi\n"
	"mov $6, %ecx\n"
	"cld\n"
	"rep movsb\n"
	"lea src+8(%rip), %rsi\n"
	"mov $4, %ecx\n"
	"rep lodsb\n"
	"lea cmp_a(%rip), %rsi\n"
	"lea cmp_b(%rip), %rdi\n"
	"mov $7, %ecx\n"
	"repe cmpsb\n"
	"lea cmp_a(%rip), %rdi\n"
	"mov $0x65, %eax\n"
	"mov $8, %ecx\n"
	"repne scasb\n"
	"lea src+14(%rip), %rsi\n"
	"lea dst+15(%rip), %rdi\n"
	"mov $4, %ecx\n"
	"std\n"
	"rep movsb\n"
	"cld\n"
	"ret\n"
	".size rep_reads, .-rep_reads\n");

int main(void)
{
	rep_reads();
	return dst[0] == 'a' ? 0 : 1;
}
