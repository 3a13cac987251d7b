#!/usr/bin/env bash
# Memory the kernel changed behind the recorder's syscall table
# (KERNEL_WRITE records, man/idna.5): at the line after an ioctl the
# recorder does not describe, gdb shows its output as the program had it
# (read back after the call: TIOCGPTN, whose number gives the size;
# TIOCOUTQ and FIOQSIZE, a page behind the pointer), and a watchpoint on
# it stops at the ioctl going backwards; after MADV_DONTNEED, mmap(MAP_FIXED)
# and brk taking a heap page back and giving it again the zeros, after
# munmap and that brk "Cannot access memory", also where munmap took 300
# pages of a 512-page file mapping the program never read (the file's
# bytes before, and in the pages left); never the old bytes. Back before each, the old ones again. A first pass that
# made the replay index shows the same.
set -u
src=$(cd "$(dirname "$0")/programs" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -D_GNU_SOURCE -g -O0 -o kernel_changes "$src/kernel_changes.c" || exit 1
"$build/ttrec" run -q -o kc.idna ./kernel_changes show > kc.out 2> kc.err
status_is 0 $? "recording kernel_changes"
expect kc.out '^after: changed 0 0 0 0$' "kernel_changes ran"
# The ioctls' outputs as the recorded program printed them.
read -r ptn_real outq_real qsize_real libc_path < <(sed -n 's/^outputs: //p' kc.out)
# The bytes of the C library's file the program mapped and never read.
file_byte() { od -An -tu1 -j $(($1 * 4096)) -N1 "$libc_path" | tr -d ' '; }

line_of() { grep -n "$1" "$src/kernel_changes.c" | cut -d: -f1; }
# visit NAME CHANGE COMMENT EXPR: EXPR at the line the comment marks,
# after the change, then back (reverse-continue) at the change's line,
# before it.
gdb_args=()
visit() {
	gdb_args+=(-ex "tbreak kernel_changes.c:$(line_of "/\* $3 \*/")" -ex continue
		   -ex "echo @$1-after\\n" -ex "print $4"
		   -ex "break kernel_changes.c:$(line_of "$2")" -ex reverse-continue
		   -ex "echo @$1-before\\n" -ex "print $4" -ex delete)
}
visit ptn 'ioctl(pty, TIOCGPTN' 'after TIOCGPTN' ptn
visit outq 'ioctl(pty, TIOCOUTQ, &outq' 'after TIOCOUTQ' outq
visit qsize 'ioctl(root, FIOQSIZE' 'after FIOQSIZE' qsize
visit anon 'madvise(anon_page' 'after MADV_DONTNEED' 'anon_page[0]'
visit fixed 'mmap(fixed_page' 'after MAP_FIXED' 'fixed_page[0]'
visit gone 'munmap(gone_page' 'after munmap' 'gone_page[0]'
visit shrunk 'sbrk(-8' 'after brk shrank' 'heap_page[0]'
visit grew 'if (sbrk(8' 'after brk grew' 'heap_page[0]'
visit edge 'ioctl(pty, TIOCOUTQ, edge_outq)' 'after the edge' '*edge_outq'
visit wide 'munmap(wide_map' 'after the wide munmap' '(unsigned char)wide_map[250 * 4096]'
visit kept 'munmap(wide_map' 'after the wide munmap' '(unsigned char)wide_map[20 * 4096]'
# watch NAME COMMENT EXPR: from the line after the ioctl back to it.
watch_args=()
watch() {
	watch_args+=(-ex "tbreak kernel_changes.c:$(line_of "/\* $2 \*/")" -ex continue
		   -ex "watch $3" -ex reverse-continue -ex "echo @$1-watch\\n" -ex 'print $pc'
		   -ex 'x/i $pc' -ex delete)
}
watch ptn 'after TIOCGPTN' ptn
watch outq 'after TIOCOUTQ' outq
watch qsize 'after FIOQSIZE' qsize

# answer OUT MARK: the line gdb printed after the marker.
answer() { sed -n "/^@$2\$/{n;p;q}" "$1"; }
# is ANSWER PATTERN DESCRIPTION
is() {
	if printf '%s\n' "$1" | grep -qE -- "$2"; then ok; else bad "$3: '$1' (not '$2')"; fi
}
unavailable='Cannot access memory at address'
check_session() { # OUT WHICH
	local o=$1 w=$2
	is "$(answer "$o" ptn-after)" "^\\\$[0-9]+ = $ptn_real\$" "$w: TIOCGPTN's output after it"
	is "$(answer "$o" ptn-before)" '= 12345$' "$w: TIOCGPTN's output before it"
	is "$(answer "$o" outq-after)" "^\\\$[0-9]+ = $outq_real\$" "$w: TIOCOUTQ's output after it"
	is "$(answer "$o" outq-before)" '= 23456$' "$w: TIOCOUTQ's output before it"
	is "$(answer "$o" qsize-after)" "^\\\$[0-9]+ = $qsize_real\$" "$w: FIOQSIZE's output after it"
	is "$(answer "$o" qsize-before)" '= 34567$' "$w: FIOQSIZE's output before it"
	is "$(answer "$o" anon-after)" "= 0 '\\\\000'\$" "$w: a page MADV_DONTNEED dropped"
	is "$(answer "$o" anon-before)" "= 65 'A'\$" "$w: the page before MADV_DONTNEED"
	is "$(answer "$o" fixed-after)" "= 0 '\\\\000'\$" "$w: a page mapped over"
	is "$(answer "$o" fixed-before)" "= 70 'F'\$" "$w: the page before it was mapped over"
	is "$(answer "$o" gone-after)" "$unavailable" "$w: an unmapped page"
	is "$(answer "$o" gone-before)" "= 85 'U'\$" "$w: the page before munmap"
	is "$(answer "$o" shrunk-after)" "$unavailable" "$w: a heap page brk took away"
	is "$(answer "$o" shrunk-before)" "= 72 'H'\$" "$w: the heap page before brk took it"
	is "$(answer "$o" grew-after)" "= 0 '\\\\000'\$" "$w: the heap page brk gave back"
	is "$(answer "$o" grew-before)" "$unavailable" "$w: the heap page before brk gave it back"
	is "$(answer "$o" edge-after)" "^\\\$[0-9]+ = $outq_real\$" "$w: an output before the file's end"
	is "$(answer "$o" edge-before)" '= 34567$' "$w: that output before the ioctl"
	is "$(answer "$o" wide-after)" "$unavailable" "$w: a file's page munmap took (300 pages)"
	is "$(answer "$o" wide-before)" "= $(file_byte 250) " "$w: that page before munmap (the file's)"
	is "$(answer "$o" kept-after)" "= $(file_byte 20) " "$w: a page of the file left mapped"
}
# The page read back behind the edge's pointer: what lies past the file's
# end cannot be read, and is logged unknown.
"$build/ttdump" --records kc.idna > kc.records
expect kc.records 'kernel-write addr=0x[0-9a-f]+ len=4092 of="unknown"' "the unreadable part of a page read back"
gdb -batch -nx -ex 'set remotetimeout 600' ./kernel_changes \
	-ex "target remote | $build/ttreplay kc.idna" "${gdb_args[@]}" > first.out 2>&1
check_session first.out "first pass"
# The second session reads the index the first one wrote (its future image).
gdb -batch -nx -ex 'set remotetimeout 600' ./kernel_changes \
	-ex "target remote | $build/ttreplay kc.idna" "${gdb_args[@]}" > indexed.out 2>&1
check_session indexed.out "from the index"
gdb -batch -nx -ex 'set remotetimeout 600' ./kernel_changes \
	-ex "target remote | $build/ttreplay kc.idna" "${watch_args[@]}" > watch.out 2>&1
for v in "ptn $ptn_real 12345" "outq $outq_real 23456" "qsize $qsize_real 34567"; do
	set -- $v
	if grep -A3 "Old value = $2\$" watch.out | grep -q "New value = $3\$"; then ok
	else bad "watch $1: no stop where it changed from $2 back to $3"; fi
	if sed -n "/^@$1-watch\$/,/^=>/p" watch.out | grep -q '^=> .*:[[:space:]]*syscall'; then ok
	else bad "watch $1: the stop is not at the ioctl's syscall instruction"; fi
done
finish kernel_changes
