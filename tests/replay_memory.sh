#!/usr/bin/env bash
# Snapshots within a memory budget (ttreplay --snapshot-memory): a session
# whose budget keeps only a few of them answers a gdb script (goto back
# and forth, reverse-continue to breakpoints, watchpoints both ways, who
# wrote a value) exactly like one whose budget keeps them all, over a
# program that rewrites a megabyte all through its history.
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -g -O0 -o churn "$here/programs/churn.c" || exit 1
"$build/ttrec" run -q -o churn.idna ./churn > /dev/null || exit 1
"$build/ttreplay" --gdb-commands > commands.gdb

session() { # OUT BUDGET: the script's answers, without the pass's progress
	gdb -batch -nx -ex 'set remotetimeout 600' ./churn -x commands.gdb \
		-ex "target remote | $build/ttreplay --no-index --snapshot-memory $2 churn.idna" \
		-x "$here/budget.gdb" -ex 'monitor info' > "$1.raw" 2>&1
	grep -vE '^(ttreplay: reading the trace|snapshots: |moves started from )' "$1.raw" > "$1"
}
session small.out 1M
session large.out 4G
snapshots() { sed -n 's/^snapshots: //p' "$1"; }
small=$(snapshots small.out.raw) large=$(snapshots large.out.raw)
if [ -n "$small" ] && [ -n "$large" ] && [ "$small" -lt "$large" ]; then ok
else bad "a 1M budget kept $small snapshots, a 4G one $large"; fi
expect large.out '^next-write of ' "the script ran to its end"
expect large.out '^Old value = 13$' "a watchpoint back to the first of three writes"
expect large.out 'Breakpoint 1, start_round \(k=34\)' "reverse-continue twice to a breakpoint"
if cmp -s large.out small.out; then ok
else bad "a small budget answers otherwise: $(diff large.out small.out | head -6 | tr '\n' ' ')"; fi

finish replay_memory
