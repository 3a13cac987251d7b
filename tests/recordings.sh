#!/usr/bin/env bash
# Finding and choosing recordings: ttrec ls (the traces of a folder,
# newest first, with what each recorded), ttrec ps (a recording's
# processes: the child traces of --follow-fork), ttreplay -p PID (replay
# a child's trace) and -g TIME (start a gdb session there).
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -g -O0 -o counter "$here/programs/counter.c" || exit 1
"$build/ttrec" run -q ./counter 4 > /dev/null
touch -d '2020-01-01' counter-0.idna  # older than the next one, whatever the clock does
"$build/ttrec" run -q --follow-fork sh -c './counter 2 > /dev/null; exit 3' > /dev/null
echo "not a trace" > junk.idna
touch -d '2019-01-01' junk.idna

"$build/ttrec" ls > ls.out 2>&1
status_is 0 $? "ttrec ls"
expect ls.out '^TRACE +RECORDED +SIZE +INSTRUCTIONS +EXIT +COMMAND$' "the heading"
# Newest first: sh's trace (and its child's), then counter's, then junk.
order=$(sed -n 's/^\([^ ]*\.idna\) .*/\1/p' ls.out | tr '\n' ' ')
case "$order" in
	sh-0*counter-0.idna*junk.idna*) ok ;;
	*) bad "ttrec ls order: $order" ;;
esac
instructions=$("$build/ttreplay" --info counter-0.idna | sed -n 's/^instructions: //p')
expect ls.out "^counter-0.idna +[0-9-]+ [0-9:]+ +[0-9.]+[BKMG] +$instructions +[0-9]+ +\./counter 4\$" \
	"counter's line: as many instructions as --info replays, its exit status, its command"
expect ls.out '^sh-0.idna .* 3 +sh -c .*\(latest\)$' "the latest trace is marked, with its exit status"
expect ls.out '^junk.idna .*not a usable trace' "a damaged trace is listed as such"

"$build/ttrec" ps > ps.out 2>&1
status_is 0 $? "ttrec ps"
child=$(sed -n 's/^\([0-9][0-9]*\) .*sh-0\.\([0-9]*\)\.idna .*/\1/p' ps.out)
expect ps.out '^[0-9]+ +- +3 +1 +sh-0.idna +sh -c' "the recorded process, with its pid"
if [ -n "$child" ]; then ok; else bad "ttrec ps lists the child: $(cat ps.out)"; fi
expect ps.out "^$child .*sh-0.$child.idna .*then exec'd .*counter" "the child, with what it exec'd"

"$build/ttreplay" -p "$child" --info > child.out 2>&1
status_is 0 $? "ttreplay -p"
expect child.out '^exit-status: 1$' "ttreplay -p replays the child's trace (counter 2 exits 1)"
"$build/ttreplay" -p 999999 --info > nochild.out 2>&1
status_is 65 $? "ttreplay -p of a process not recorded"
expect nochild.out 'no trace of process 999999 .*ttrec ps' "... says so"

gdb -batch -nx -ex 'set remotetimeout 600' ./counter \
	-ex "target remote | $build/ttreplay -g 20000 counter-0.idna" -ex 'monitor when' > goto.out 2>&1
expect goto.out '^time 20000 of [0-9]+' "ttreplay -g starts there"

# A program started through a wrapper that execs it: gdb sees the program,
# from its first instruction (its symbols, its main), and going back stops
# at the exec as at the start of history.
printf '#!/bin/sh\nexec ./counter "$@"\n' > wrap.sh
chmod +x wrap.sh
"$build/ttrec" run -q -o wrap.idna ./wrap.sh 3 > /dev/null
gdb -batch -nx -ex 'set remotetimeout 600' ./counter -ex "target remote | $build/ttreplay wrap.idna" \
	-ex 'info sharedlibrary' -ex 'break main' -ex continue -ex bt -ex reverse-continue \
	-ex 'x/s *(char **)($sp + 8)' > wrap.out 2>&1
expect wrap.out '^Breakpoint 1, main \(argc=2, ' "break main in a program a wrapper exec'd"
expect wrap.out '^#0  main \(argc=2' "its backtrace"
expect wrap.out 'No more reverse-execution history' "going back stops at the exec"
expect wrap.out '"\./counter"' "the start of history is the exec'd program's (its argv[0])"
refuse wrap.out '/usr/bin/dash' "the wrapper's shell is not among the libraries"

# Bad input.
"$build/ttrec" ls no-such-folder > /dev/null 2>&1
status_is 66 $? "ttrec ls of a missing folder"
"$build/ttrec" ps missing.idna > /dev/null 2>&1
status_is 65 $? "ttrec ps of a missing trace"
for bad_arg in "-p 0" "-p a/b" "-g abc" "-g -1" "--exec 0" "--exec x"; do
	# shellcheck disable=SC2086
	"$build/ttreplay" $bad_arg counter-0.idna < /dev/null > /dev/null 2>&1
	status_is 64 $? "ttreplay $bad_arg"
done
"$build/ttreplay" -g 5 --verify counter-0.idna > /dev/null 2>&1
status_is 64 $? "-g with --verify"

finish recordings
