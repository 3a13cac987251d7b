#include <stdio.h>
#include <string.h>

struct account {
	char name[16];
	long *history;
};

static long ledger[4] = { 10, 20, 30, 40 };

static void rename_account(struct account *a, const char *name)
{
	strcpy(a->name, name); /* no bounds check: the bug */
}

static long total(const struct account *a)
{
	long sum = 0;
	for (int i = 0; i < 4; i++)
		sum += a->history[i];
	return sum;
}

int main(void)
{
	struct account acct = { "alice", ledger };
	printf("total before: %ld\n", total(&acct));
	rename_account(&acct, "alice-with-a-long-name");
	printf("total after: %ld\n", total(&acct));
	return 0;
}
