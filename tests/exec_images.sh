#!/usr/bin/env bash
# A process that execs runs several programs: ttrec ps lists each
# process's program images (exec times, paths) and a gdb session debugs
# one of them (ttreplay --exec N, -p PID, -p COMMAND; the last by
# default): its symbols, its breakpoints, backward to the exec that
# started it (the start of history), forward to the exec that ends it
# (the end of history, with a console line naming how to debug the next).
set -u
. "$(dirname "$0")/shared/checks.sh"

cp "$build/tests/programs/exec_other" ./exec_other  # execs itself with arguments
cp "$build/tests/programs/calls_from_gdb" ./calls_from_gdb
slow_link='set remotetimeout 600'
# session NAME TTREPLAY-ARGS GDB-COMMANDS...: gdb on exec_other, output in NAME.out.
session() {
	local name=$1 args=$2 cmds=() c
	shift 2
	for c in "$@"; do cmds+=(-ex "$c"); done
	timeout 300 gdb -batch -nx -ex "$slow_link" ./exec_other \
		-ex "target remote | $build/ttreplay $args" "${cmds[@]}" > "$name.out" 2>&1
}
# A time `monitor when` printed in a session's output (the Nth).
when_of() { sed -n 's/^time \([0-9]*\) of .*/\1/p' "$1" | sed -n "${2}p"; }

# A wrapper script that execs a program that execs itself: three images.
printf '#!/bin/sh\nexec ./exec_other "$@"\n' > wrap.sh
chmod +x wrap.sh
"$build/ttrec" run -q -o wrap.idna ./wrap.sh > wrap.run 2>&1
status_is 3 $? "ttrec run of the wrapper (exec_other's second image exits 3)"
"$build/ttrec" ps wrap.idna > ps.out 2>&1
status_is 0 $? "ttrec ps"
pid=$(sed -n 's/^\([0-9][0-9]*\) .*wrap\.idna .*/\1/p' ps.out)
if [ -n "$pid" ]; then ok; else bad "ttrec ps shows the recorded pid: $(cat ps.out)"; fi
expect ps.out '^ +exec 1 +at time 0 +/.*/(dash|sh|bash)$' "the first image: the wrapper's shell, from time 0"
expect ps.out '^ +exec 2 +at time [1-9][0-9]* +/.*/exec_other$' "the second: the program the wrapper exec'd"
expect ps.out '^ +exec 3 +at time [1-9][0-9]* +/.*/exec_other$' "the third: the program's exec of itself"
t2=$(sed -n 's/^ *exec 2 *at time \([0-9]*\) .*/\1/p' ps.out)
t3=$(sed -n 's/^ *exec 3 *at time \([0-9]*\) .*/\1/p' ps.out)

# By name, the first exec of that name: image 2. A breakpoint in it hits
# with its symbols; backward, history starts at its exec (ttrec ps's time);
# forward, it ends at the next exec, in the image's own execve call.
session name "-p exec_other wrap.idna" 'monitor when' 'break main' continue bt \
	'info inferiors' continue 'monitor when' bt reverse-continue 'print argc' reverse-continue \
	'monitor when'
expect name.out '^Breakpoint 1, main \(argc=1, ' "a breakpoint in an image before the last hits"
expect name.out '^#0  main \(argc=1, ' "bt in that image has its symbols"
expect name.out 'execs here \(time [0-9]+\): .*image 2 of 3 .*ttreplay --exec 3 wrap.idna' \
	"continuing to the next exec says where this image's history ends and how to go on"
expect name.out '^No more reverse-execution history' "the next exec is the end of this session's history"
expect name.out '^#[0-9]+ .* in main \(argc=' "the end of history stands in the image's own call of execv"
if [ "$(when_of name.out 1)" = "$t2" ]; then ok
else bad "the session starts at the image's exec: $(when_of name.out 1), ttrec ps says $t2"; fi
if [ "$(when_of name.out 2)" = "$((t3 - 1))" ]; then ok
else bad "the session ends just before the next exec: $(when_of name.out 2), the exec is at $t3"; fi
expect name.out '^\$1 = 1$' "reverse-continue from the end reaches main's breakpoint"
if [ "$(when_of name.out 3)" = "$t2" ]; then ok
else bad "going back stops at the image's exec: $(when_of name.out 3)"; fi

# By number and by pid: the wrapper's shell (image 1) from time 0 to the exec.
session first "-p $pid --exec 1 wrap.idna" 'monitor when' 'info inferiors' continue 'monitor when'
if [ "$(when_of first.out 1)" = 0 ] && [ "$(when_of first.out 2)" = "$((t2 - 1))" ]; then ok
else bad "image 1 spans [0, its exec): $(when_of first.out 1) to $(when_of first.out 2)"; fi
expect first.out '/(dash|sh|bash) *$' "gdb is given image 1's program"
expect first.out 'image 1 of 3 .*ttreplay --exec 2 ' "its end names the next image"

# The default stays the last image: from its exec to the end of the trace.
session last "wrap.idna" 'monitor when' 'break main' continue 'print argc' continue
expect last.out '^\$1 = 4$' "by default the last image (exec_other's second run, argc 4)"
if [ "$(when_of last.out 1)" = "$t3" ]; then ok; else bad "the last image starts at $(when_of last.out 1)"; fi
refuse last.out 'execs here' "the last image ends with the trace"

# sh -c './a; exec ./b' recorded with --follow-fork: -p COMMAND finds the
# child that ran it; -p PID --exec N chooses in the child's trace.
"$build/ttrec" run -q --follow-fork -o sh.idna sh -c './exec_other > /dev/null; exec ./calls_from_gdb' \
	> sh.run 2>&1
status_is 0 $? "ttrec run --follow-fork sh -c"
"$build/ttrec" ps sh.idna > sh.ps 2>&1
child=$(sed -n 's/^\([0-9][0-9]*\) .*sh\.\([0-9]*\)\.idna .*/\1/p' sh.ps)
expect sh.ps '^ +exec 2 +at time [0-9]+ +/.*/calls_from_gdb$' "the shell's own exec"
expect sh.ps '^ +exec 3 +at time [0-9]+ +/.*/exec_other$' "the child's images are listed under it"
session child "-p exec_other sh.idna" 'break main' continue bt
expect child.out '^#0  main \(argc=1, ' "-p COMMAND finds the child process that ran it"
session child_pid "-p $child --exec 3 sh.idna" 'break main' continue 'print argc'
expect child_pid.out '^\$1 = 4$' "-p PID --exec N in a child's trace"

# Bad choices: a clear message and status.
"$build/ttreplay" -p no_such_program wrap.idna < /dev/null > bad1.out 2>&1
status_is 65 $? "-p of a program no process ran"
expect bad1.out 'no process of wrap.idna ran a program named no_such_program' "... says so"
"$build/ttreplay" --exec 4 wrap.idna < /dev/null > bad2.out 2>&1
status_is 65 $? "--exec past the last image"
expect bad2.out '--exec 4: the process of wrap.idna ran 3 program images' "... says so"
"$build/ttreplay" -p exec_other --exec 2 wrap.idna < /dev/null > /dev/null 2>&1
status_is 64 $? "-p COMMAND with --exec"
"$build/ttreplay" --exec 1 -g 999999999 wrap.idna < /dev/null > bad3.out 2>&1
status_is 1 $? "-g after the image's history"
expect bad3.out "after program image 1's history" "... says so"

finish exec_images
