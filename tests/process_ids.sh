#!/usr/bin/env bash
# The recorded process's ids: the trace keeps the pid (ttdump shows it),
# and gdb (batch and GDB/MI, as IDEs ask) shows the replay under the
# recorded pid and tids (`info inferiors`, `info threads`,
# -list-thread-groups, -thread-info). A thread exists for gdb from the
# moment its clone returned in the parent, before it first runs, with the
# registers it starts with.
set -u
. "$(dirname "$0")/shared/checks.sh"

prog="$build/tests/programs/thread_ids"
"$build/ttrec" run -q -o ids.idna "$prog" > ids.out 2> ids.err
status_is 0 $? "ttrec run thread_ids"
pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' ids.out)
tid=$(sed -n 's/^tid \([0-9]*\)$/\1/p' ids.out)
if [ -n "$pid" ] && [ -n "$tid" ]; then ok; else bad "the program's ids: $(cat ids.out)"; fi
pid=${pid:-none} tid=${tid:-none}

"$build/ttdump" ids.idna > dump.out 2>&1
expect dump.out "^pid: $pid\$" "ttdump shows the recorded pid"
expect dump.out '^trace format 1\.6,' "the trace is of format 1.6"

slow_link='set remotetimeout 600'
timeout 300 gdb -batch -nx -ex "$slow_link" "$prog" -ex "target remote | $build/ttreplay ids.idna" \
	-ex 'info inferiors' -ex 'echo ==start==\n' -ex 'info threads' \
	-ex 'catch syscall clone clone3' -ex continue -ex 'echo ==entry==\n' -ex 'info threads' \
	-ex continue -ex 'echo ==return==\n' -ex 'info threads' -ex 'thread 2' -ex 'print $rax' \
	-ex 'thread 1' -ex 'reverse-stepi' -ex 'echo ==back==\n' -ex 'info threads' \
	-ex 'echo ==end==\n' > gdb.out 2>&1
section() { sed -n "/^==$1==/,/^==/p" gdb.out; }
expect gdb.out "^\\* 1 +process $pid " "info inferiors: the recorded pid"
section start > start.out
expect start.out "^\\* 1 +Thread $pid\\.$pid " "info threads at the start: the initial thread's tid is the pid"
section entry > entry.out
refuse entry.out "^[* ] +[0-9]+ +Thread $pid\\.$tid" "at the clone's entry the new thread does not exist yet"
section return > return.out
expect return.out "^\\* 1 +Thread $pid\\.$pid " "at the clone's return: the parent"
expect return.out "^  2 +Thread $pid\\.$tid " "at the clone's return: the new thread, before it ran"
expect gdb.out '^\$1 = 0$' "the new thread's registers: clone returns 0 in it"
section back > back.out
refuse back.out "^[* ] +[0-9]+ +Thread $pid\\.$tid" "one instruction back, before the clone returned, it is gone again"
expect back.out "^\\* 1 +Thread $pid\\.$pid " "and the parent is there"

# GDB/MI, as IDEs ask.
printf '%s\n' '-list-thread-groups' 'catch syscall clone clone3' '-exec-continue' '-exec-continue' \
	'-thread-info' '-gdb-exit' |
	timeout 300 gdb --interpreter=mi2 -nx -q -ex "$slow_link" "$prog" \
		-ex "target remote | $build/ttreplay ids.idna" > mi.out 2>&1
expect mi.out "id=\"i1\",type=\"process\",pid=\"$pid\"" "MI -list-thread-groups: the recorded pid"
expect mi.out "target-id=\"Thread $pid\\.$tid\"" "MI -thread-info: the new thread by its recorded tid"

finish process_ids
