# checks.sh — what the end-to-end test scripts share, sourced after
# `set -u`: the build and a scratch folder (removed on exit, and the
# current folder), counted checks, and the closing line every script
# prints ("NAME: N passed, N failed", its status non-zero on a failure).
#   . "$(dirname "$0")/shared/checks.sh"
build=$(cd "${BUILD:-build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# passed MESSAGE: a check that passed, said on a line of its own.
passed() { echo "ok: $*"; ok; }
# verdict NAME WHY: passed when WHY is empty, else a failure saying why.
verdict() {
	if [ -z "$2" ]; then passed "$1"; else bad "$1: $2"; fi
}
# same REFERENCE OUT DESCRIPTION: the two files are alike to the byte.
same() {
	if cmp -s "$1" "$2"; then ok; else bad "$3: $(diff "$1" "$2" | head -6 | tr '\n' ' ')"; fi
}
# expect FILE PATTERN DESCRIPTION: a line of FILE matches PATTERN (ERE).
expect() {
	if grep -qE -- "$2" "$1"; then ok; else bad "$3 (no '$2' in $1)"; fi
}
# refuse FILE PATTERN DESCRIPTION: no line of FILE matches PATTERN.
refuse() {
	if grep -qE -- "$2" "$1"; then bad "$3 ('$2' in $1)"; else ok; fi
}
# status_is WANT GOT DESCRIPTION
status_is() {
	if [ "$1" -eq "$2" ]; then ok; else bad "$3: status $2, not $1"; fi
}
# wait_bounded PID SECONDS: `wait PID` for a child in the background, but
# one still there after SECONDS is shown (its state, its tracer, where it
# is) and killed with its children, and the status is then 124: a hang is
# a failed check with a clue, not a suite stopped by its time limit.
wait_bounded() {
	local pid=$1 tenths=$(($2 * 10))
	while [ "$tenths" -gt 0 ] && [ -e "/proc/$pid" ] &&
	      ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null; do
		sleep 0.1
		tenths=$((tenths - 1))
	done
	[ "$tenths" -gt 0 ] && { wait "$pid"; return; }
	local p
	for p in "$pid" $(pgrep -P "$pid"); do
		echo "still running after $2 s: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" \
		     "$(grep -E '^(State|TracerPid)' "/proc/$p/status" 2>/dev/null | tr -s '\t\n' '  ')" \
		     "wchan $(cat "/proc/$p/wchan" 2>/dev/null), syscall $(cat "/proc/$p/syscall" 2>/dev/null)"
		if grep -q '^TracerPid:[[:space:]]*0$' "/proc/$p/status" 2>/dev/null && command -v gdb >/dev/null; then
			timeout 20 gdb -batch -p "$p" -ex 'info registers rip' -ex bt 2>/dev/null | grep -E '^(rip|#)' | head -8
		fi
	done
	pkill -KILL -P "$pid" 2>/dev/null
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	return 124
}
# finish NAME: the closing line, and the script's status.
finish() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
