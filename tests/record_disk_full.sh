#!/bin/bash
# record_disk_full.sh — a trace that cannot be written (here: the file size
# limit, `ulimit -f`, which makes the trace's writes fail with EFBIG) must
# not harm the program: it runs on untraced with its own output and status,
# ttrec says so in one line and exits 74, and the trace is readable up to
# its last complete chunk (ttdump). ttrec ignores SIGXFSZ for itself only:
# the program keeps the disposition it would have had natively.
set -u
. "$(dirname "$0")/shared/checks.sh"
BUILD=$build
tmp=$work
TTREC=$BUILD/ttrec
TTDUMP=$BUILD/ttdump
PROGRAMS=$BUILD/tests/programs
LIMIT=60


# disk_full NAME KIB -- COMMAND...: COMMAND natively, then under ttrec with
# the file size limited to KIB KiB.
disk_full() {
	local name=$1 kib=$2
	shift 3
	"$@" </dev/null >"$name.native.out" 2>"$name.native.err"
	local native_rc=$?
	(ulimit -f "$kib" && timeout "$LIMIT" "$TTREC" run -o "$name.idna" -- "$@") \
		</dev/null >"$name.out" 2>"$name.err"
	local rc=$?
	local why=""
	[ $rc -eq 74 ] || why="exit status $rc, want 74"
	cmp -s "$name.native.out" "$name.out" || why="$why${why:+; }stdout differs"
	grep -v '^ttrec: ' "$name.err" >"$name.program.err"
	cmp -s "$name.native.err" "$name.program.err" || why="$why${why:+; }the program's stderr differs"
	local msg
	msg=$(grep '^ttrec: ' "$name.err")
	if [ "$(grep -c '^ttrec: ' "$name.err")" -ne 1 ] ||
		! grep -q 'File too large' <<<"$msg" ||
		! grep -q "readable up to its last complete chunk" <<<"$msg" ||
		! grep -q "exited with status $native_rc\$" <<<"$msg"; then
		why="$why${why:+; }message: $msg"
	fi
	local size
	size=$(stat -c %s "$name.idna" 2>/dev/null || echo 0)
	[ "$size" -le $((kib * 1024)) ] || why="$why${why:+; }trace of $size bytes beyond the limit"
	if ! "$TTDUMP" "$name.idna" >"$name.dump" 2>"$name.dump.err"; then
		why="$why${why:+; }ttdump: $(cat "$name.dump.err")"
	fi
	if [ -n "$why" ]; then
		bad "$name: $why"
		return 1
	fi
	passed "$name at ${kib} KiB: exit 74, program's status $native_rc and output kept, trace of $size bytes, $(grep '^chunks:' "$name.dump")"
}

# A limit the trace reaches after a few chunks, one it reaches at the
# first, and a program with timer signals whose handlers must go on running.
disk_full python 200 -- python3 -c '
import sys
print(sum(i * i for i in range(300000)))
sys.exit(5)'
disk_full python-first-chunk 32 -- python3 -c 'print(sum(range(10**5)))'
disk_full sigalrm 32 -- "$PROGRAMS/sigalrm_timer"
if ! grep -q '^chunks: [1-9]' python.dump; then
	bad "python: no complete chunk kept: $(grep '^chunks:' python.dump)"
fi

# The program's own SIGXFSZ disposition: the default kills it when it
# writes past the limit itself (153)...
write_big() { dd if=/dev/zero of=big bs=64k count=40 status=none; }
(ulimit -f 1024 && write_big) 2>/dev/null
native_rc=$?
rm -f big
(ulimit -f 1024 && timeout "$LIMIT" "$TTREC" run -q -o dd.idna -- dd if=/dev/zero of=big bs=64k count=40 status=none) \
	2>dd.err
rc=$?
rm -f big
if [ $native_rc -eq 153 ] && [ $rc -eq 153 ] && grep -q 'killed by signal 25 ' dd.err; then
	passed "the program dies of its own SIGXFSZ (153) as natively"
else
	bad "SIGXFSZ default: natively $native_rc, recorded $rc: $(cat dd.err)"
fi
# ... and an inherited "ignore" makes its write fail instead (dd: status 1).
(trap '' XFSZ; ulimit -f 1024 && write_big) 2>/dev/null
native_rc=$?
rm -f big
(trap '' XFSZ; ulimit -f 1024 && timeout "$LIMIT" "$TTREC" run -q -o dd.idna -- dd if=/dev/zero of=big bs=64k count=40 status=none) \
	2>/dev/null
rc=$?
if [ $native_rc -eq 1 ] && [ $rc -eq 1 ]; then
	passed "an inherited SIGXFSZ ignore reaches the program"
else
	bad "SIGXFSZ ignored: natively $native_rc, recorded $rc"
fi

finish record_disk_full
