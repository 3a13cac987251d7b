/*
 * progress.c — the progress line of a recording on a terminal (progress.h).
 */
#include <time.h>
#include <unistd.h>

#include "recorder/progress.h"

#define FIRST_UPDATE_S 1.0  /* short recordings show nothing */
#define UPDATE_PERIOD_S 0.5

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(struct progress_line *p, FILE *out)
{
	p->out = out && isatty(fileno(out)) ? out : NULL;
	p->start = now_s();
	p->next_update = p->start + FIRST_UPDATE_S;
	p->shown = false;
}

/* n with a K/M/G suffix, so the line keeps about the same width. */
static void human(char *buf, size_t size, double n)
{
	static const char suffix[] = " KMGT";
	unsigned i = 0;
	while (n >= 1000.0 && i + 1 < sizeof(suffix) - 1) {
		n /= 1000.0;
		i++;
	}
	if (i == 0)
		snprintf(buf, size, "%.0f", n);
	else
		snprintf(buf, size, "%.1f%c", n, suffix[i]);
}

bool progress_due(struct progress_line *p)
{
	return p->out && now_s() >= p->next_update;
}

void progress_show(struct progress_line *p, uint64_t instructions, uint64_t syscalls,
		   uint64_t trace_bytes)
{
	if (!p->out)
		return;
	double t = now_s();
	p->next_update = t + UPDATE_PERIOD_S;
	double elapsed = t - p->start;
	char insns[16], bytes[16];
	human(insns, sizeof(insns), (double)instructions);
	human(bytes, sizeof(bytes), (double)trace_bytes);
	/* \033[K clears what a longer previous line left on the right. */
	fprintf(p->out, "\rttrec: %.1f s, %s instructions (%.1f M/s), %llu syscalls, %sB of trace\033[K",
		elapsed, insns, (double)instructions / elapsed * 1e-6,
		(unsigned long long)syscalls, bytes);
	fflush(p->out);
	p->shown = true;
}

void progress_erase(struct progress_line *p)
{
	if (!p->out || !p->shown)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->shown = false;
}
