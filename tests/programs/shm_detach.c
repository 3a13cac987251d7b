/*
 * shm_detach.c — a System V shared memory segment attached, split in two
 * by mprotect, written through, detached with a large garbage value in the
 * register of munmap's length (shmdt has one argument: the recorder must
 * take the segment's size from its mappings, not from rsi), attached
 * again and read.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>

#define SEGMENT (64 * 1024)

static long shmdt_with_garbage(const void *addr)
{
	long ret;
	register long rsi __asm__("rsi") = 0x7ffffffff000;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_shmdt), "D"(addr), "r"(rsi)
			 : "rcx", "r11", "memory");
	return ret;
}

int main(void)
{
	int id = shmget(IPC_PRIVATE, SEGMENT, IPC_CREAT | 0600);
	if (id < 0) {
		perror("shmget");
		return 1;
	}
	char *p = shmat(id, NULL, 0);
	if (p == (void *)-1) {
		perror("shmat");
		shmctl(id, IPC_RMID, NULL);
		return 1;
	}
	for (int i = 0; i < SEGMENT; i++)
		p[i] = (char)(i * 7);
	mprotect(p + SEGMENT / 2, SEGMENT / 2, PROT_READ);
	long sum = 0;
	for (int i = 0; i < SEGMENT; i++)
		sum += p[i];
	printf("sum %ld\n", sum);
	printf("shmdt: %ld\n", shmdt_with_garbage(p));
	char *q = shmat(id, NULL, SHM_RDONLY);
	shmctl(id, IPC_RMID, NULL);
	if (q == (void *)-1) {
		perror("shmat again");
		return 1;
	}
	long again = 0;
	for (int i = 0; i < SEGMENT; i++)
		again += q[i];
	printf("again %ld, same: %d\n", again, again == sum);
	return shmdt(q) == 0 ? 0 : 1;
}
