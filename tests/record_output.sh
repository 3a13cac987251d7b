#!/bin/bash
# record_output.sh — the trace file never harms what is on disk
# (man/ttrec.1, FILES): traces are created mode 0600 whatever the umask; a
# program that cannot run leaves every file as it was; an existing file is
# replaced only when it is a trace (or with --force), through a temporary
# trace renamed into place at the end, which a killed recorder leaves
# readable; devices, FIFOs, and the program itself are never replaced;
# links are never followed (a dangling link at the default name is
# skipped, the latest.idna link never replaces a regular file).
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
TTDUMP=$BUILD/ttdump
TTREPLAY=$BUILD/ttreplay
MARKER=$BUILD/tests/programs/marker_then
failed=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
umask 022

fail() {
	echo "FAIL: $*"
	failed=1
}
ok() { echo "ok: $*"; }

# expect_status WANT NAME COMMAND...: runs COMMAND, stderr to NAME.err.
expect_status() {
	local want=$1 name=$2
	shift 2
	"$@" >"$name.out" 2>"$name.err" </dev/null
	local rc=$?
	[ $rc -eq "$want" ] || { fail "$name: exit $rc, want $want: $(cat "$name.err")"; return 1; }
}

# The program the trace is made of, as the trace's header names it.
recorded_args() {
	"$TTREPLAY" --info "$1" 2>/dev/null | sed -n 's/^arguments: *//p'
}

# 1. Mode 0600, even under umask 022.
expect_status 0 mode "$TTREC" run -q -o mode.idna true &&
	if [ "$(stat -c %a mode.idna)" = 600 ]; then ok "a new trace is mode 600"
	else fail "new trace has mode $(stat -c %a mode.idna)"; fi

# 2. A program that does not exist or cannot be executed: the existing
# trace named by -o stays, nothing else is created.
cp mode.idna old.idna
cp old.idna old.copy
ls -A >before.list
expect_status 66 missing "$TTREC" run -o old.idna ./no-such-program &&
	expect_status 77 noexec "$TTREC" run -o old.idna ./old.copy &&
	if cmp -s old.idna old.copy && ls -A | grep -v -e '^missing\.' -e '^noexec\.' | cmp -s - before.list
	then ok "a program that cannot run touches no file (66, 77)"
	else fail "files changed by a program that cannot run: $(ls -A)"; fi

# 3. -o the program itself, a regular file that is not a trace, a FIFO, a
# device: refused with 73, left as they were.
cp "$(type -P true)" prog
cp prog prog.copy
echo "precious" >notes.txt
mkfifo fifo
expect_status 73 self "$TTREC" run -o ./prog ./prog && cmp -s prog prog.copy &&
	grep -q 'not a trace' self.err && ok "-o the program itself: refused, program intact" ||
	fail "-o the program itself: $(cat self.err)"
expect_status 73 text "$TTREC" run -o notes.txt true && [ "$(cat notes.txt)" = precious ] &&
	ok "-o a file that is not a trace: refused, file intact" || fail "-o notes.txt"
expect_status 73 fifo "$TTREC" run --force -o fifo true && [ -p fifo ] &&
	grep -q 'not a regular file' fifo.err && ok "-o a FIFO, even with --force: refused" ||
	fail "-o a FIFO: $(cat fifo.err)"
if [ "$(id -u)" = 0 ] && mknod nulldev c 1 3 2>/dev/null; then
	expect_status 73 dev "$TTREC" run --force -o nulldev true && [ -c nulldev ] &&
		ok "-o a device node, even with --force: refused" || fail "-o a device node"
fi

# 4. --force replaces a regular file, and a link without touching what it
# points to.
expect_status 0 force "$TTREC" run -q --force -o notes.txt true &&
	"$TTDUMP" notes.txt >/dev/null 2>&1 && ok "--force replaces a file that is not a trace" ||
	fail "--force: $(cat force.err)"
echo "target" >target.txt
ln -s target.txt link.idna
expect_status 73 link "$TTREC" run -o link.idna true && grep -q 'symbolic link' link.err &&
	expect_status 0 forcelink "$TTREC" run -q --force -o link.idna true &&
	[ ! -L link.idna ] && [ "$(cat target.txt)" = target ] &&
	ok "a link given as -o: refused, with --force the link is replaced, not its target" ||
	fail "link as -o: $(cat link.err forcelink.err)"

# 5. An existing trace is replaced, through a temporary name that is gone
# at the end.
expect_status 0 replace "$TTREC" run -o old.idna echo replaced &&
	[ "$(recorded_args old.idna)" = replaced ] && [ ! -e old.partial.idna ] &&
	grep -q 'recording into old.partial.idna' replace.err &&
	ok "an existing trace is replaced through old.partial.idna" ||
	fail "replacing a trace: $(cat replace.err)"

# 6. A recorder killed while replacing: the old trace is intact, and the
# temporary name it announced holds a readable trace.
cp old.idna old.copy
"$TTREC" run -o old.idna "$MARKER" sleep >killed.out 2>killed.err &
ttrec_pid=$!
disown $ttrec_pid # its death by SIGKILL is the point, not news
while kill -0 $ttrec_pid 2>/dev/null && ! grep -q ready killed.out; do sleep 0.05; done
kill -KILL $ttrec_pid
while kill -0 $ttrec_pid 2>/dev/null; do sleep 0.05; done
if cmp -s old.idna old.copy && grep -q 'recording into old.partial.idna' killed.err &&
	"$TTREPLAY" --info old.partial.idna >killed.info 2>&1 &&
	grep -q '^arguments: sleep' killed.info; then
	ok "a killed recorder leaves the old trace and a readable old.partial.idna"
else
	fail "killed while replacing: $(cat killed.err killed.info 2>/dev/null)"
fi
# The next replacement picks a free temporary name beside the leftover.
expect_status 0 again "$TTREC" run -o old.idna echo again &&
	[ "$(recorded_args old.idna)" = again ] && [ -e old.partial.idna ] &&
	ok "the leftover temporary trace is not reused" || fail "replace beside a leftover"

# 7. Default names: a dangling link is not followed; latest.idna is a link
# only when it is one already or missing.
mkdir sub && cd sub || exit 1
ln -s "$tmp/elsewhere.idna" true-0.idna
expect_status 0 dangling "$TTREC" run -q true &&
	[ ! -e "$tmp/elsewhere.idna" ] && [ -f true-1.idna ] &&
	[ "$(readlink latest.idna)" = true-1.idna ] &&
	ok "a dangling link at the default name is skipped" ||
	fail "dangling link: $(ls -l)"
rm latest.idna
echo "mine" >latest.idna
expect_status 0 latest "$TTREC" run true && [ "$(cat latest.idna)" = mine ] &&
	grep -q 'latest.idna is not a link' latest.err &&
	ok "latest.idna that is a regular file is left alone" || fail "latest.idna: $(cat latest.err)"
cd "$tmp" || exit 1

exit $failed
