/*
 * watch.c — values a watchpoint follows: a global written in a loop and by
 * a helper, a static, a local of main written through a pointer, and a
 * struct field, so a script can watch them forwards and backwards with
 * hardware and software watchpoints.
 */
struct point {
	int x, y;
};

int counter;
static long total;
struct point where;

static void bump(int *p, int by)
{
	*p += by;
}

int main(void)
{
	int local = 10;
	for (int i = 0; i < 5; i++) {
		counter += i;
		total += counter;
	}
	bump(&local, 5);
	bump(&counter, 100);
	where.x = 3;
	where.y = local;
	where.x += where.y;
	total = 0;
	return counter + where.x == 138 ? 0 : 1;
}
