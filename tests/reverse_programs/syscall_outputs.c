/*
 * syscall_outputs.c — memory only the kernel fills: one system call per
 * line, each into its own global, and nothing reads those globals until
 * the end. tests/reverse_oracle.sh steps back over each call under gdb's
 * `record full` and under ttreplay and compares what gdb prints.
 *
 * time and gettimeofday are made as system calls: `record full` cannot
 * record the vDSO's clock reads (rdtscp).
 *
 * Values that differ from run to run (random bytes, clocks, the child's
 * pid) are copied at the end into *_seen, so a script can compare them
 * with the value at an earlier time instead of printing them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int pipe_fds[2] = { -1, -1 };
char part1[6] = "xxxxx";
char part2[8] = "yyyyyyy";
char msg_buf[12] = "zzzzzzzzzzz";
int sock_fds[2] = { -1, -1 };
struct stat root_stat;
unsigned char random_bytes[16];
time_t now;
struct timeval tv;
int child_status = -1;
pid_t child_pid;
uid_t ruid = 12345, euid = 12345, suid = 12345;
ssize_t readv_count, recv_count;

/* Copies of the values that change between runs, made at the end. */
unsigned long random_seen;
time_t now_seen;
long tv_sec_seen;
pid_t child_pid_seen;

static void send_and_receive(void)
{
	struct iovec iov = { msg_buf, sizeof(msg_buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	send(sock_fds[0], "socket-data", 11, 0);
	recv_count = recvmsg(sock_fds[1], &msg, 0);
}

/* getrandom as a bare syscall instruction a script can break on. */
static void fill_random(void)
{
	long ret;
	__asm__ volatile(".globl getrandom_insn\ngetrandom_insn: syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_getrandom), "D"(random_bytes), "S"(sizeof(random_bytes)),
			   "d"(0)
			 : "rcx", "r11", "memory");
	(void)ret;
}

int main(void)
{
	struct iovec parts[2] = { { part1, 5 }, { part2, 7 } };
	pipe(pipe_fds);
	write(pipe_fds[1], "abcdeFGHIJKL", 12);
	readv_count = readv(pipe_fds[0], parts, 2);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fds);
	send_and_receive();
	fstatat(AT_FDCWD, "/", &root_stat, 0);
	fill_random();
	syscall(SYS_time, &now);
	syscall(SYS_gettimeofday, &tv, NULL);
	getresuid(&ruid, &euid, &suid);
	child_pid = fork();
	if (child_pid == 0)
		_exit(7);
	waitpid(child_pid, &child_status, 0);
	memcpy(&random_seen, random_bytes, sizeof(random_seen));
	now_seen = now;
	tv_sec_seen = tv.tv_sec;
	child_pid_seen = child_pid;
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	printf("%zd %zd %d\n", readv_count, recv_count, child_status);
	return 0;
}
