#!/usr/bin/env bash
# A stop at a signal's arrival (between the instruction before it and the
# handler's first) stays that stop when the first pass has to finish
# under it: a backward move, or a monitor command needing the whole
# history, from the arrival a forward continue reached while running the
# pass (--no-index: nothing run first) finds the replay where it was, not
# at the handler (replay_session.c, return_to). Each gdb script is
# answered identically by such a session and one that read the replay
# index, and stops where a live process would.
set -u
. "$(dirname "$0")/shared/checks.sh"
prog=$build/tests/programs/busy_alarm
[ -x "$prog" ] || { bad "no $prog (make builds it)"; finish signal_first_pass; exit; }
"$build/ttrec" run -q -o ba.idna "$prog" > rec.out 2>&1
status_is 0 $? "ttrec run busy_alarm"

# Each move shows the stop, the instruction and the time.
show=$'x/i $pc\nmonitor when'
scripts=(
	# back one instruction from the arrival
	"continue
$show
reverse-stepi
$show"
	# back and forth around the arrival, then back through it
	"continue
reverse-stepi
$show
stepi
$show
stepi
$show
stepi
$show
reverse-stepi
$show
stepi
$show
reverse-continue
$show
reverse-continue
$show"
	# back from the arrival to the start of history
	"continue
reverse-continue
$show"
	# the whole history needed at the arrival: the step then delivers
	"continue
monitor snapshots
stepi
$show"
)

# session N OUT [TTREPLAY-OPTIONS]: what gdb shows for script N, from its
# first stop on (what differs by how the pass was made left out).
session() {
	local n=$1 out=$2; shift 2
	printf 'handle SIGALRM stop print\n%s\n' "${scripts[$n]}" > "script$n.gdb"
	gdb -batch -nx -ex 'set remotetimeout 600' "$prog" \
		-ex "target remote | $build/ttreplay $* ba.idna" -x "script$n.gdb" > "$out.raw" 2>&1
	sed -n '/^Program received signal /,$p' "$out.raw" | grep -vE '^(ttreplay: |first pass: |snapshot |warning: |Reading )' > "$out"
}

for n in "${!scripts[@]}"; do
	session "$n" "ahead$n.out" --no-index
done
[ ! -e ba.idna.idx ] && ok || bad "--no-index wrote an index"
"$build/ttreplay" --index ba.idna > index.out 2>&1
status_is 0 $? "ttreplay --index"
for n in "${!scripts[@]}"; do
	session "$n" "index$n.out"
	same "index$n.out" "ahead$n.out" "script $n: --no-index and the index differ"
done

# Where the stops are (the index's session, which was right before).
arrival=$(sed -n 's/^time \([0-9]*\) of .*/\1/p' index0.out | head -1)
before=$(sed -n 's/^time \([0-9]*\) of .*/\1/p' index0.out | sed -n 2p)
[ -n "$arrival" ] && [ "$before" = $((arrival - 1)) ] && ok ||
	bad "reverse-stepi from the arrival (time $arrival) went to time $before, not the one before"
count() { # count FILE PATTERN N DESCRIPTION
	local n
	n=$(grep -cE -- "$2" "$1")
	[ "$n" = "$3" ] && ok || bad "$4: '$2' $n times, not $3"
}
for n in "${!scripts[@]}"; do
	expect "ahead$n.out" 'received signal SIGALRM' "script $n: the continue stops at the arrival"
done
count ahead0.out 'received signal SIGALRM' 1 "reverse-stepi from the arrival is a step, no signal"
expect ahead0.out '<main\+[0-9]+>:' "reverse-stepi from the arrival stays in main"
# The second script: the arrival (continue), back one, the step's stop
# and the signal it left due, the handler, back to the arrival, the
# handler, back to the arrival again, then the start of history.
count ahead1.out 'received signal SIGALRM' 4 "script 1: the arrival each time it is met"
count ahead1.out '<on_alarm(\+[0-9]+)?>:' 2 "script 1: the handler's first instruction after each step through"
expect ahead1.out 'No more reverse-execution history' "script 1: back to the start"
expect ahead2.out 'No more reverse-execution history' "reverse-continue from the arrival goes on behind it"
expect ahead3.out '<on_alarm>:' "a step from the arrival enters the handler"
finish signal_first_pass
