#!/usr/bin/env bash
# Snapshots within a memory budget (ttreplay --snapshot-memory): a session
# whose budget keeps only a few of them in memory (the others in a spill
# file, or, where none can be made, thinned away) answers a gdb script
# (goto back and forth, reverse-continue to breakpoints, watchpoints both
# ways, who wrote a value) exactly like one whose budget keeps them all,
# over a program that rewrites a megabyte all through its history; and
# so does one whose snapshots are closer or further apart
# (--snapshot-interval, or a long history's wider spacing).
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -g -O0 -o churn "$here/programs/churn.c" || exit 1
"$build/ttrec" run -q -o churn.idna ./churn > /dev/null || exit 1
"$build/ttreplay" --gdb-commands > commands.gdb

session() { # OUT OPTIONS [ENV...]: the script's answers, without the pass's progress
	local out=$1 options=$2; shift 2
	gdb -batch -nx -ex 'set remotetimeout 600' ./churn -x commands.gdb \
		-ex "target remote | env $* $build/ttreplay $options churn.idna" \
		-x "$here/budget.gdb" -ex 'monitor info' > "$out.raw" 2>&1
	grep -vE '^(ttreplay: reading the trace|snapshots|moves started from |segments [a-z ]* skipped: |first pass: (made|read) )' "$out.raw" > "$out"
}
session large.out '--no-index --snapshot-memory 4G'
session small.out '--no-index --snapshot-memory 1M'
# Spill rounds are written by a thread of their own while the pass goes on
# (reading the snapshots as the replay runs): at 1M the pass waits for each
# round at its next look at the budget; at 48M, churn's heap a little over
# it, it goes on past a look when a round is still being written then
# (which depends on timing: the answers may not).
session inflight.out '--no-index --snapshot-memory 48M'
# No spill file can be made: the snapshots are thinned instead.
session thin.out '--no-index --snapshot-memory 1M' XDG_CACHE_HOME=$PWD/none HOME=$PWD/none TMPDIR=$PWD/none
# The index a session with spilled snapshots writes holds every snapshot,
# the spilled ones read back: a session reading it (its 1M budget keeping
# one snapshot decoded at a time) has them all and answers the same.
session write-index.out '--snapshot-memory 1M'
session read-index.out '--snapshot-memory 1M'
field() { sed -n "s/^$2: \([0-9]*\).*/\1/p" "$1"; }
all=$(field large.out.raw snapshots)
if [ -n "$all" ] && [ "$(field large.out.raw 'snapshots in the spill file')" = 0 ]; then ok
else bad "a 4G budget spilled snapshots: $(grep '^snapshots' large.out.raw | tr '\n' ' ')"; fi
spilled=$(field small.out.raw 'snapshots in the spill file')
if [ "$(field small.out.raw snapshots)" = "$all" ] && [ -n "$spilled" ] && [ "$spilled" -gt 0 ]; then ok
else bad "a 1M budget kept its snapshots in a file: $(grep '^snapshots' small.out.raw | tr '\n' ' ')"; fi
kept=$(field thin.out.raw snapshots)
if [ -n "$kept" ] && [ -n "$all" ] && [ "$kept" -lt "$all" ] &&
   [ "$(field thin.out.raw 'snapshots in the spill file')" = 0 ]; then ok
else bad "without a spill file a 1M budget thins: $(grep '^snapshots' thin.out.raw | tr '\n' ' ')"; fi
expect large.out '^next-write of ' "the script ran to its end"
expect large.out '^Old value = 13$' "a watchpoint back to the first of three writes"
expect large.out 'Breakpoint 1, start_round \(k=34\)' "reverse-continue twice to a breakpoint"
same large.out small.out "a 1M budget (snapshots in the spill file)"
same large.out inflight.out "a 48M budget (the pass going on while snapshots are written)"
same large.out thin.out "a 1M budget without a spill file (thinned)"
expect read-index.out.raw '^first pass: read from .*churn\.idna\.idx$' "the index was read"
same large.out write-index.out "a 1M budget writing the index"
same large.out read-index.out "the index of a session that spilled snapshots"
[ "$(field read-index.out.raw snapshots)" = "$all" ] && ok ||
	bad "the index holds $(field read-index.out.raw snapshots) snapshots of $all"
# ttreplay --index says how many snapshots the index holds: all of them,
# the spilled ones too.
rm -f churn.idna.idx
"$build/ttreplay" --index --snapshot-memory 1M churn.idna > index.out 2>&1
held=$(sed -n 's/^ttreplay: wrote .*, \([0-9]*\) snapshots)$/\1/p' index.out)
if [ -n "$held" ] && [ "$held" = "$all" ]; then ok
else bad "--index with a 1M budget: $(cat index.out)"; fi
# --index-snapshots bounds what an index holds (a long history's index
# would otherwise be many times its trace): the kept ones spread over the
# history, the others' summaries joined into them, the answers the same.
rm -f churn.idna.idx
"$build/ttreplay" --index --index-snapshots 4 churn.idna > index4.out 2>&1
held=$(sed -n 's/^ttreplay: wrote .*, \([0-9]*\) snapshots)$/\1/p' index4.out)
if [ -n "$held" ] && [ "$held" -ge 2 ] && [ "$held" -le 5 ] && [ "$all" -gt 5 ]; then ok
else bad "--index-snapshots 4 with $all snapshots: $(cat index4.out)"; fi
# The pass itself took its snapshots about that far apart (on its grid of
# 4M instructions), not every 4M to drop most of them; it knows the
# history's length up to its last checkpoint, so at least a quarter of that.
apart=$(sed -n 's/^ttreplay: the first pass took a snapshot every \([0-9]*\) instructions$/\1/p' index4.out)
length=$(field large.out.raw instructions)
if [ -n "$apart" ] && [ -n "$length" ] && [ "$apart" -ge $((2 * 4194304)) ] &&
   [ "$apart" -le $((length / 4 + 4194304)) ] && [ $((apart % 4194304)) = 0 ]; then ok
else bad "--index-snapshots 4 over $length instructions: a snapshot every '$apart'"; fi
apart=$(sed -n 's/^ttreplay: the first pass took a snapshot every \([0-9]*\) instructions$/\1/p' index.out)
[ "$apart" = 4194304 ] && ok || bad "--index of a short history: a snapshot every '$apart'"
session read-index4.out ''
expect read-index4.out.raw '^first pass: read from .*churn\.idna\.idx$' "the bounded index was read"
same large.out read-index4.out "an index of at most 4 snapshots"
# Every first pass, not only --index's, takes its snapshots that far apart
# when the history is twice that many intervals or longer (the default of
# 256: from 2 G instructions; 4 here, over churn's), and answers the same.
session spaced.out '--no-index --index-snapshots 4'
spaced=$(field spaced.out.raw snapshots)
# (Counted with the opening ones and those the script's moves kept.)
if [ -n "$spaced" ] && [ "$spaced" -ge 2 ] && [ $((3 * spaced)) -lt "$all" ]; then ok
else bad "a session's pass over 4 snapshots' spacing took '$spaced' of $all"; fi
same large.out spaced.out "a pass with snapshots a quarter of the history apart"
# --snapshot-interval: snapshots closer together or further apart than the
# default's 4M instructions (more of them, or fewer page copies), the
# answers the same, and an index made with the wider spacing too.
session narrow.out '--no-index --snapshot-interval 1M'
session wide.out '--no-index --snapshot-interval 32M'
narrow=$(field narrow.out.raw snapshots) wide=$(field wide.out.raw snapshots)
if [ -n "$narrow" ] && [ -n "$wide" ] && [ "$narrow" -gt "$all" ] && [ "$wide" -lt "$all" ]; then ok
else bad "snapshots with 1M / 4M / 32M intervals: '$narrow' / '$all' / '$wide'"; fi
same large.out narrow.out "snapshots every 1M instructions"
same large.out wide.out "snapshots every 32M instructions"
rm -f churn.idna.idx
"$build/ttreplay" --index --snapshot-interval 32M churn.idna > index-wide.out 2>&1
status_is 0 $? "--index --snapshot-interval 32M"
session read-wide-index.out ''
expect read-wide-index.out.raw '^first pass: read from .*churn\.idna\.idx$' "the wide index was read"
same large.out read-wide-index.out "an index of snapshots 32M instructions apart"
rm -f churn.idna.idx
for bad_interval in 0 1000 2G many; do
	"$build/ttreplay" --snapshot-interval "$bad_interval" churn.idna > interval.out 2>&1
	status_is 64 $? "--snapshot-interval $bad_interval"
	expect interval.out "bad --snapshot-interval '$bad_interval'" "--snapshot-interval $bad_interval says why"
done
"$build/ttreplay" --index-snapshots 0 churn.idna > zero.out 2>&1
status_is 64 $? "--index-snapshots 0"
expect zero.out "bad --index-snapshots" "--index-snapshots 0 says why"

finish replay_memory
