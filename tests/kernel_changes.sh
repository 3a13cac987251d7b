#!/usr/bin/env bash
# Memory the kernel changed without the trace holding the bytes
# (KERNEL_WRITE ranges, man/idna.5): at the line after an ioctl the
# recorder does not describe, MADV_DONTNEED, mmap(MAP_FIXED) and munmap,
# gdb shows the new bytes or "Cannot access memory", never the old ones;
# back before each, the old ones again. A first pass that made the replay
# index shows the same.
set -u
src=$(cd "$(dirname "$0")/programs" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -D_GNU_SOURCE -g -O0 -o kernel_changes "$src/kernel_changes.c" || exit 1
"$build/ttrec" run -q -o kc.idna ./kernel_changes > kc.out 2> kc.err
status_is 0 $? "recording kernel_changes"
expect kc.out '^after: changed 0 0 0$' "kernel_changes ran"

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
visit outq 'ioctl(pty, TIOCOUTQ' 'after TIOCOUTQ' outq
visit anon 'madvise(anon_page' 'after MADV_DONTNEED' 'anon_page[0]'
visit fixed 'mmap(fixed_page' 'after MAP_FIXED' 'fixed_page[0]'
visit gone 'munmap(gone_page' 'after munmap' 'gone_page[0]'

# answer OUT MARK: the line gdb printed after the marker.
answer() { sed -n "/^@$2\$/{n;p;q}" "$1"; }
# is ANSWER PATTERN DESCRIPTION
is() {
	if printf '%s\n' "$1" | grep -qE -- "$2"; then ok; else bad "$3: '$1' (not '$2')"; fi
}
unavailable='Cannot access memory at address'
check_session() { # OUT WHICH
	local o=$1 w=$2
	is "$(answer "$o" ptn-after)" "$unavailable|^\\\$[0-9]+ = [0-9]{1,4}\$" "$w: TIOCGPTN's output after it"
	is "$(answer "$o" ptn-before)" '= 12345$' "$w: TIOCGPTN's output before it"
	is "$(answer "$o" outq-after)" "$unavailable|^\\\$[0-9]+ = 0\$" "$w: TIOCOUTQ's output after it"
	is "$(answer "$o" outq-before)" '= 23456$' "$w: TIOCOUTQ's output before it"
	is "$(answer "$o" anon-after)" "= 0 '\\\\000'\$" "$w: a page MADV_DONTNEED dropped"
	is "$(answer "$o" anon-before)" "= 65 'A'\$" "$w: the page before MADV_DONTNEED"
	is "$(answer "$o" fixed-after)" "= 0 '\\\\000'\$" "$w: a page mapped over"
	is "$(answer "$o" fixed-before)" "= 70 'F'\$" "$w: the page before it was mapped over"
	is "$(answer "$o" gone-after)" "$unavailable" "$w: an unmapped page"
	is "$(answer "$o" gone-before)" "= 85 'U'\$" "$w: the page before munmap"
}
gdb -batch -nx -ex 'set remotetimeout 600' ./kernel_changes \
	-ex "target remote | $build/ttreplay kc.idna" "${gdb_args[@]}" > first.out 2>&1
check_session first.out "first pass"
# The second session reads the index the first one wrote (its future image).
gdb -batch -nx -ex 'set remotetimeout 600' ./kernel_changes \
	-ex "target remote | $build/ttreplay kc.idna" "${gdb_args[@]}" > indexed.out 2>&1
check_session indexed.out "from the index"
finish kernel_changes
