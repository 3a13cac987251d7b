#!/usr/bin/env bash
# Backward continues answered from the log of the last instructions
# replayed (replayer/gdb_undo.c, target_undo_continue) stop where the
# replay's search stops and show what it shows: reverse-next over calls
# (gdb's backward continue to the call), reverse-step and reverse-finish,
# breakpoints and watchpoints (write, read, access) inside the stretch
# the log covers, and a signal's arrival at its start (where the log
# leaves the search to the replay). Each session is compared, move by
# move (registers, stack, frames, variables), with the same session with
# `monitor info` after each move, where every move replays; the first
# must have answered backward continues from the log.
set -u
src=$(cd "$(dirname "$0")" && pwd)
. "$src/shared/checks.sh"
. "$src/shared/undo_sessions.sh"
progs=$build/tests/reverse_programs
[ -x "$progs/stepping" ] || { bad "no programs in $progs (make builds them)"; finish undo_continues; exit; }
line_of() { grep -n -- "$2" "$src/$1" | head -1 | cut -d: -f1; }
# (With its replay index, so that both sessions read the first pass from
# it.)
record() { # NAME PROGRAM STATUS
	setarch -R "$build/ttrec" run -q -o "$1.idna" "$2" > "$1-rec.out" 2>&1
	status_is "$3" $? "ttrec run $1"
	"$build/ttreplay" --index "$1.idna" > "$1-index.out" 2>&1
	status_is 0 $? "ttreplay --index $1"
}
repeat() { local i; for ((i = 0; i < $1; i++)); do echo "$2"; done; }
dumps=('info registers' 'x/8gx $sp' 'bt')

# Back over calls: add() on three lines, qsort with its callback,
# strlen, the recursion.
record stepping "$progs/stepping" 0
undo_sessions stepping "$progs/stepping" stepping.idna \
	"break $(line_of reverse_programs/stepping.c 'return total == 132')
continue
set \$sorted = &sorted
set \$depth = &depth_seen" "$(repeat 11 reverse-next)
reverse-step
reverse-finish
break compare
$(repeat 3 reverse-continue)
reverse-finish
delete
break factorial
reverse-continue
reverse-continue
reverse-finish
delete
reverse-next
reverse-next" "${dumps[@]}" 'info locals' 'x/6dw $sorted' 'x/dw $depth'
undo_at_least stepping 'of those that were backward continues' 5

# Watchpoints hit inside the stretch: written in a loop and through a
# pointer, read and accessed.
record watch "$progs/watch" 1 # (its own status)
undo_sessions watch "$progs/watch" watch.idna \
	"break $(line_of reverse_programs/watch.c 'return counter')
continue
set \$counter = &counter
set \$where = &where" "reverse-stepi
rwatch where.y
reverse-continue
delete
reverse-stepi
awatch where.x
reverse-continue
delete
reverse-stepi
watch total
reverse-continue
delete
reverse-stepi
watch counter
$(repeat 3 reverse-continue)" "${dumps[@]}" 'info locals' 'x/dw $counter' 'x/2dw $where'
undo_at_least watch 'of those that were backward continues' 4

# A signal's arrival: from after the handler, back to a breakpoint in the
# loop the signal interrupted (the arrival stops it first), through the
# handler.
record alarm "$build/tests/programs/busy_alarm" 0
undo_sessions alarm "$build/tests/programs/busy_alarm" alarm.idna \
	"handle SIGALRM stop print
break $(line_of programs/busy_alarm.c 'printf(\"the busy loop')
continue
continue" "reverse-stepi
reverse-stepi
break $(line_of programs/busy_alarm.c 'spins++;')
reverse-continue
reverse-stepi
break on_alarm
reverse-continue
reverse-stepi
reverse-continue
reverse-continue" "${dumps[@]}" 'print fired' 'x/i $pc'
undo_at_least alarm 'of those that were backward continues' 2
finish undo_continues
