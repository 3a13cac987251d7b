#!/usr/bin/env bash
# ttrec pack: a trace whose program was rebuilt since still debugs, from
# the copies kept beside it; ttreplay serves gdb the recorded files (Host
# I/O) and says when this machine's files are not the recorded ones; a
# damaged or planted copy in the pack is never served.
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cp "$here/programs/counter.c" .
cc -g -O0 -o counter counter.c || exit 1
"$build/ttrec" run -q -o c.idna ./counter 5 > /dev/null
debug() { # OUT: break in bump, the backtrace and a global, gdb given no program
	gdb -batch -nx -ex 'set remotetimeout 600' -ex "target remote | $build/ttreplay c.idna" \
		-ex 'break bump' -ex continue -ex bt -ex 'print counter' > "$1" 2>&1
}

# Files as recorded: served through the stub, no warning.
debug same.out
expect same.out '^#0  bump \(by=3\) at counter.c:16' "the recorded program's symbols"
expect same.out '^\$1 = 15$' "the recorded value"
refuse same.out 'does not support file transfer' "gdb reads the files through the stub"
refuse same.out 'ttreplay: warning' "no warning when the files are the recorded ones"

# What gdb reads before the program itself does: its arguments on the
# initial stack and the vDSO (its link-map entry), as the kernel made them.
gdb -batch -nx -ex 'set remotetimeout 600' -ex "target remote | $build/ttreplay c.idna" \
	-ex 'x/s *(char **)($sp + 8)' -ex 'break bump' -ex continue -ex 'info sharedlibrary' \
	> image.out 2>&1
expect image.out '"\./counter"' "argv[0] at the first instruction"
refuse image.out "Can't read pathname for load map" "the vDSO's link-map entry is readable"

# Pack.
"$build/ttrec" pack c.idna > pack.out 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok || bad "ttrec pack: status $rc: $(cat pack.out)"
expect pack.out '^ttrec pack: [3-9] files packed into c.idna.pack' "the summary"
if [ "$(stat -c %a c.idna.pack)" = 700 ]; then ok; else bad "pack folder mode $(stat -c %a c.idna.pack)"; fi
id=$(readelf -n counter | sed -n 's/.*Build ID: //p')
[ -f "c.idna.pack/$id.zst" ] && ok || bad "the program is packed under its build-id $id"
"$build/ttrec" pack c.idna > again.out 2>&1
expect again.out ' 0 files packed .* [3-9] there already' "packing again copies nothing"

# The program is rebuilt: another layout, another build-id.
sed -e 's/^long counter;/long padding[64];\nlong counter;/' -e 's/counter \* 2/counter * 3/' counter.c > rebuilt.c
cc -g -O0 -o counter rebuilt.c || exit 1
debug rebuilt.out
expect rebuilt.out '^ttreplay: .*/counter is not the file recorded .*the packed copy serves' \
	"ttreplay says the packed copy serves"
expect rebuilt.out '^#0  bump \(by=3\) at counter.c:16' "the recorded program's symbols, from the pack"
expect rebuilt.out '^\$1 = 15$' "the recorded value, from the pack"

# Without the pack: a warning that names ttrec pack.
mv c.idna.pack kept.pack
debug nopack.out
expect nopack.out '^ttreplay: warning: .*/counter is not the file recorded .*ttrec pack' \
	"a warning when a file is not the recorded one"

# A planted copy (another file under the program's build-id) and a damaged
# one are refused: ttreplay warns as without a pack.
mkdir -m 700 c.idna.pack
for f in kept.pack/*.zst; do
	[ "$(basename "$f")" = "$id.zst" ] || { cp "$f" "c.idna.pack/$id.zst"; break; }
done
debug planted.out
expect planted.out '^ttreplay: warning: .*/counter is not the file recorded' "a planted copy is not served"
refuse planted.out 'packed copy serves' "... nor called the recorded one"
head -c 1000 /dev/urandom > "c.idna.pack/$id.zst"
debug damaged.out
expect damaged.out '^ttreplay: warning: .*/counter is not the file recorded' "a damaged copy is not served"

# `ttrec pack` with no trace packs latest.idna's, named after the trace the
# link points to: the pack stays with that trace when the next recording
# moves the link.
mkdir linked && cd linked || exit 1
cc -g -O0 -o counter ../counter.c || exit 1
"$build/ttrec" run -q ./counter 5 > /dev/null
"$build/ttrec" pack > pack.out 2>&1
expect pack.out '^ttrec pack: [3-9] files packed into counter-0\.idna\.pack' "the pack of the trace latest.idna points to"
"$build/ttrec" run -q ./counter 2 > /dev/null
cc -g -O0 -o counter ../rebuilt.c || exit 1
gdb -batch -nx -ex 'set remotetimeout 600' -ex "target remote | $build/ttreplay counter-0.idna" \
	-ex 'break bump' -ex continue -ex 'print counter' > linked.out 2>&1
expect linked.out 'the packed copy serves' "the trace finds its pack once latest.idna moved on"
expect linked.out '^\$1 = 15$' "the recorded value, from the pack"
cd .. || exit 1

# Bad input.
"$build/ttrec" pack missing.idna > missing.out 2>&1
rc=$?
if [ "$rc" -eq 65 ] && [ -s missing.out ]; then ok; else bad "pack of a missing trace: status $rc"; fi
"$build/ttrec" pack a.idna b.idna > usage.out 2>&1
rc=$?
[ "$rc" -eq 64 ] && ok || bad "pack of two traces: status $rc"

finish pack
