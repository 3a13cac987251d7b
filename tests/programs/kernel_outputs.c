/*
 * kernel_outputs.c — system calls whose writes into the program's memory
 * the recorder once missed: offsets copy_file_range and splice move,
 * fcntl's F_GETOWN_EX and read/write hints, prctl(PR_GET_TSC), a madvise
 * that fails yet zeroes pages, clone's CLONE_PIDFD, process_vm_readv and
 * process_vm_writev on itself, and writes through /proc/self/mem to data
 * and to code; and an ioctl the recorder does not describe (it forgets all
 * it cached, and its summary counts the call). Each output is read once before the call, so a recorder
 * that kept the stale value would print it. Prints what it sees; natively
 * and recorded must agree.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads x through a volatile access: the recorder now caches its value. */
#define TOUCH(x) ((void)*(volatile __typeof__(x) *)&(x))

static int temp_file(const char *name, const char *text)
{
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	unlink(name);
	return fd;
}

static void offsets_moved(void)
{
	int in = temp_file("kernel_outputs.in", "0123456789abcdef");
	int out = temp_file("kernel_outputs.out", "");
	loff_t off_in = 2, off_out = 0;
	TOUCH(off_in);
	TOUCH(off_out);
	ssize_t n = copy_file_range(in, &off_in, out, &off_out, 5, 0);
	printf("copy_file_range: %zd, offsets %lld %lld\n", n, (long long)off_in, (long long)off_out);
	int p[2];
	if (pipe(p) != 0)
		return;
	loff_t off_splice = 10;
	TOUCH(off_splice);
	n = splice(in, &off_splice, p[1], NULL, 4, 0);
	char got[8] = { 0 };
	ssize_t r = read(p[0], got, sizeof(got) - 1);
	printf("splice: %zd, offset %lld, read %zd '%s'\n", n, (long long)off_splice, r, got);
	close(p[0]);
	close(p[1]);
	close(in);
	close(out);
}

static void fcntl_outputs(void)
{
	int fd = temp_file("kernel_outputs.f", "x");
	struct f_owner_ex owner = { F_OWNER_PID, getpid() }, back = { 0, 0 };
	TOUCH(back);
	int r1 = fcntl(fd, F_SETOWN_EX, &owner);
	int r2 = fcntl(fd, F_GETOWN_EX, &back);
	printf("F_GETOWN_EX: %d %d, type %d, pid is ours: %d\n", r1, r2, back.type,
	       back.pid == getpid());
	uint64_t hint = 3 /* RWH_WRITE_LIFE_MEDIUM */, hint_back = 77;
	TOUCH(hint_back);
	r1 = fcntl(fd, F_SET_RW_HINT, &hint);
	r2 = fcntl(fd, F_GET_RW_HINT, &hint_back);
	printf("F_GET_RW_HINT: %d %d, hint %llu\n", r1, r2,
	       r2 == 0 ? (unsigned long long)hint_back : 0ull);
	close(fd);
}

static void prctl_tsc(void)
{
	int tsc = 99;
	TOUCH(tsc);
	int r = prctl(PR_GET_TSC, &tsc, 0, 0, 0);
	printf("PR_GET_TSC: %d, mode %d\n", r, tsc);
}

/* MADV_DONTNEED over a hole fails with ENOMEM, but the pages before the
 * hole are zeroed all the same. */
static void madvise_over_hole(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)(3 * page), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	m[0] = 'A';
	m[2 * page] = 'C';
	munmap(m + page, (size_t)page);
	TOUCH(m[0]);
	int r = madvise(m, (size_t)(3 * page), MADV_DONTNEED);
	printf("madvise over a hole: %d, first byte %d, last page's %d\n", r, m[0], m[2 * page]);
}

static void clone_pidfd(void)
{
	int pidfd = -7;
	TOUCH(pidfd);
	long child = syscall(SYS_clone, (unsigned long)(CLONE_PIDFD | SIGCHLD), NULL, &pidfd,
			     NULL, 0);
	if (child == 0)
		_exit(5);
	int status = 0;
	waitpid((pid_t)child, &status, 0);
	printf("clone CLONE_PIDFD: pidfd is a descriptor: %d, child status %d\n",
	       child > 0 && pidfd >= 0 && fcntl(pidfd, F_GETFD) >= 0, WEXITSTATUS(status));
	if (pidfd >= 0)
		close(pidfd);
}

static char target[16] = "untouched";

static void process_vm_on_self(void)
{
	TOUCH(target);
	char text[] = "vm-written";
	struct iovec local = { text, sizeof(text) }, remote = { target, sizeof(text) };
	ssize_t n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
	printf("process_vm_writev on itself: %zd, '%s'\n", n, target);
	char copy[16] = "stale";
	TOUCH(copy);
	struct iovec into = { copy, 6 }, from = { (char *)"fresh", 6 };
	n = process_vm_readv(getpid(), &into, 1, &from, 1, 0);
	printf("process_vm_readv into itself: %zd, '%s'\n", n, copy);
}

static int __attribute__((noipa)) answer(void)
{
	return 1;
}

/* The kernel writes what the program writes to /proc/self/mem: data,
 * and code (answer() patched to return 42). */
static void proc_self_mem(void)
{
	int fd = open("/proc/self/mem", O_RDWR);
	if (fd < 0) {
		printf("/proc/self/mem: cannot open\n");
		return;
	}
	static char data[16] = "old-bytes";
	TOUCH(data);
	ssize_t n = pwrite(fd, "new", 3, (off_t)(uintptr_t)data);
	printf("pwrite to /proc/self/mem: %zd, '%s'\n", n, data);
	lseek(fd, (off_t)(uintptr_t)(data + 4), SEEK_SET);
	n = write(fd, "BYTES", 5);
	printf("write to /proc/self/mem: %zd, '%s'\n", n, data);
	int before = answer();
	/* mov eax, 42; ret */
	static const unsigned char patch[] = { 0xb8, 42, 0, 0, 0, 0xc3 };
	n = pwrite(fd, patch, sizeof(patch), (off_t)(uintptr_t)answer);
	printf("code patched through /proc/self/mem: %zd, answer %d then %d\n", n, before,
	       answer());
	close(fd);
}

static void undescribed_ioctl(void)
{
	int fd = open(".", O_RDONLY);
	long flags = -1;
	TOUCH(flags);
	int r = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	printf("FS_IOC_GETFLAGS: %s, flags %s\n", r == 0 ? "answered" : "refused",
	       r == 0 ? (flags != -1 ? "written" : "not written") : "-");
	close(fd);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	offsets_moved();
	fcntl_outputs();
	prctl_tsc();
	madvise_over_hole();
	clone_pidfd();
	process_vm_on_self();
	proc_self_mem();
	undescribed_ioctl();
	return 0;
}
