#!/bin/bash
# record_follow_fork.sh — `ttrec run --follow-fork`: child processes are
# recorded into traces of their own (<trace minus .idna>.<pid>.idna, nested
# for grandchildren); the output and exit status are the native run's, and
# every trace replays (`ttreplay --verify`). Without the option, no child
# trace appears.
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
LIMIT=120
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

# follow NAME MIN_TRACES -- COMMAND...: MIN_TRACES: traces expected at least
# (the parent's included).
follow() {
	local name=$1 min=$2
	shift 3
	local d=$tmp/$name
	mkdir -p "$d"
	"$@" >"$d/native.out" 2>"$d/native.err" </dev/null
	local native_rc=$?
	timeout "$LIMIT" "$TTREC" run -q --follow-fork -o "$d/t.idna" -- "$@" \
		>"$d/rec.out" 2>"$d/rec.err" </dev/null
	local rec_rc=$?
	local why=""
	[ $rec_rc -eq $native_rc ] || why="exit status $rec_rc, natively $native_rc"
	cmp -s "$d/native.out" "$d/rec.out" || why="$why${why:+; }stdout differs"
	cmp -s "$d/native.err" "$d/rec.err" || why="$why${why:+; }stderr differs"
	local n=0 t
	for t in "$d"/t.idna "$d"/t.*.idna; do
		[ -e "$t" ] || continue
		n=$((n + 1))
		if ! timeout "$LIMIT" "$BUILD/ttreplay" --verify "$t" >"$t.verify" 2>&1; then
			why="$why${why:+; }$(basename "$t"): $(tail -1 "$t.verify")"
		fi
	done
	[ $n -ge "$min" ] || why="$why${why:+; }$n traces, want at least $min"
	if [ -n "$why" ]; then
		echo "FAIL: $name: $why"
		diff "$d/native.out" "$d/rec.out" | head -5
		diff "$d/native.err" "$d/rec.err" | head -5
		failed=1
		return 1
	fi
	echo "ok: $name ($n traces: $(cd "$d" && ls t*.idna | tr '\n' ' '))"
}

follow fork_pipe 2 -- "$BUILD/tests/programs/fork_pipe"
follow vfork_exec 2 -- "$BUILD/tests/programs/vfork_exec"
follow sh-pipe 3 -- sh -c 'echo a | tr a b'
# The hand-over to a child's recorder is invisible: no stop or continue
# for a parent that waits for them, the child's signal mask its own.
follow fork_wait_events 4 -- "$BUILD/tests/programs/fork_wait_events"
# The registers a bare syscall instruction leaves in the child.
follow fork_syscall_regs 2 -- "$BUILD/tests/programs/fork_syscall_regs"
# A clone(CLONE_VM) child writes the parent's memory while both run.
follow clone_vm_shared 2 -- "$BUILD/tests/programs/clone_vm_shared"
# Under a seccomp filter that refuses pause(): handed over all the same.
follow fork_seccomp 2 -- "$BUILD/tests/programs/fork_seccomp"
# Its syscalls run bound to the recorder's CPU, the child's to its
# recorder's: both see their own affinity.
follow affinity_view 2 -- "$BUILD/tests/programs/affinity_view"
# A child in a time namespace of its own reads its own clocks, not the
# recorder's (which answers the time syscalls of programs that share its
# clocks).
offset=$((1000 * 86400))
if unshare -T --monotonic $offset --fork true 2>/dev/null; then
	follow time-namespace 2 -- unshare -T --monotonic $offset --fork \
		"$BUILD/tests/programs/clock_syscalls" offset
	grep -q "past 900 days: yes" "$tmp/time-namespace/rec.out" ||
		{ echo "FAIL: time-namespace: $(cat "$tmp/time-namespace/rec.out")"; failed=1; }
else
	echo "skipped: time-namespace (no time namespaces here: unshare -T fails)"
fi
# Grandchildren: the inner sh's children are recorded by its recorder.
follow sh-nested 4 -- sh -c 'sh -c "echo x | tr x y"; echo done'
if ! ls "$tmp"/sh-nested/t.*.*.idna >/dev/null 2>&1; then
	echo "FAIL: sh-nested: no grandchild trace (t.CHILD.GRANDCHILD.idna)"
	failed=1
fi

# Without --follow-fork children run untraced: one trace only.
timeout "$LIMIT" "$TTREC" run -q -o "$tmp/plain.idna" -- sh -c 'echo a | tr a b' >/dev/null 2>&1
if ls "$tmp"/plain.*.idna >/dev/null 2>&1; then
	echo "FAIL: child traces without --follow-fork"
	failed=1
else
	echo "ok: no child traces without --follow-fork"
fi

exit $failed
