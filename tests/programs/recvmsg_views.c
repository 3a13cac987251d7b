/*
 * recvmsg_views.c — what recvmsg and recvmmsg write, read back at once:
 * the data over two iovecs, the sender's address (UDP on the loopback),
 * a file descriptor passed as control data, the lengths and flags the
 * kernel writes into the headers. Every buffer is filled and read before
 * the call, so a recorder that kept its old bytes would print them.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned sum(const void *p, size_t n)
{
	unsigned s = 0;
	for (size_t i = 0; i < n; i++)
		s = s * 31 + ((const unsigned char *)p)[i];
	return s;
}

static void passed_fd(void)
{
	int sv[2], pipefd[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0 || pipe(pipefd) != 0)
		return perror("socketpair"), (void)0;
	char payload[] = "fd attached";
	struct iovec out_iov = { payload, sizeof(payload) };
	union { struct cmsghdr h; char bytes[CMSG_SPACE(sizeof(int))]; } out_ctl;
	memset(&out_ctl, 0, sizeof(out_ctl));
	struct msghdr out = { .msg_iov = &out_iov, .msg_iovlen = 1,
			      .msg_control = out_ctl.bytes, .msg_controllen = sizeof(out_ctl.bytes) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&out);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &pipefd[1], sizeof(int));
	sendmsg(sv[0], &out, 0);

	char a[4], b[32];
	union { struct cmsghdr h; char bytes[64]; } ctl;
	memset(a, 'x', sizeof(a));
	memset(b, 'y', sizeof(b));
	memset(&ctl, 0x55, sizeof(ctl));
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct msghdr in = { .msg_iov = iov, .msg_iovlen = 2, .msg_control = ctl.bytes,
			     .msg_controllen = sizeof(ctl.bytes), .msg_flags = 0x7777 };
	printf("before: %u %u %u\n", sum(a, sizeof(a)), sum(b, sizeof(b)), sum(&ctl, sizeof(ctl)));
	ssize_t n = recvmsg(sv[1], &in, 0);
	printf("recvmsg: %zd bytes, \"%.4s\" \"%s\", flags %#x, controllen %zu\n", n, a, b,
	       (unsigned)in.msg_flags, (size_t)in.msg_controllen);
	struct cmsghdr *got = CMSG_FIRSTHDR(&in);
	if (got && got->cmsg_type == SCM_RIGHTS) {
		int fd;
		memcpy(&fd, CMSG_DATA(got), sizeof(fd));
		printf("passed fd writes to the pipe: %s\n",
		       write(fd, "ok", 2) == 2 && read(pipefd[0], b, 2) == 2 && memcmp(b, "ok", 2) == 0
			       ? "yes" : "no");
	} else {
		printf("no fd passed\n");
	}
}

static void sender_address(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(me);
	if (s < 0 || bind(s, (struct sockaddr *)&me, sizeof(me)) != 0 ||
	    getsockname(s, (struct sockaddr *)&me, &len) != 0) {
		printf("no loopback UDP\n");
		return;
	}
	for (int i = 0; i < 2; i++)
		sendto(s, i ? "second" : "first", i ? 7 : 6, 0, (struct sockaddr *)&me, sizeof(me));

	struct sockaddr_in from[2];
	char data[2][16];
	struct iovec iov[2] = { { data[0], sizeof(data[0]) }, { data[1], sizeof(data[1]) } };
	struct mmsghdr msgs[2];
	memset(from, 0x33, sizeof(from));
	memset(data, 0x44, sizeof(data));
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < 2; i++) {
		msgs[i].msg_hdr.msg_name = &from[i];
		msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_len = 12345;
	}
	printf("before: %u %u\n", sum(from, sizeof(from)), sum(data, sizeof(data)));
	int got = recvmmsg(s, msgs, 2, 0, NULL);
	printf("recvmmsg: %d messages\n", got);
	for (int i = 0; i < got; i++)
		printf("  %u bytes \"%s\" from the socket itself: %s, namelen %u\n", msgs[i].msg_len,
		       data[i], from[i].sin_port == me.sin_port ? "yes" : "no",
		       (unsigned)msgs[i].msg_hdr.msg_namelen);
}

int main(void)
{
	passed_fd();
	sender_address();
	return 0;
}
