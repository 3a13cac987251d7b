#!/usr/bin/env bash
# The man pages and the commands agree: every option a command's --help
# lists is documented in its man page, and every option the man page
# documents is one the command accepts (it does not answer "unrecognized
# option"); every monitor command `monitor help` lists is in ttreplay(1).
# The pages render without warnings.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/shared/checks.sh"

# The long options of a man page: \-\-name as the roff source writes them.
man_options() {
	grep -oE '\\-\\-[a-z]([a-z0-9]|\\-)*' "$1" | sed -e 's/\\-/-/g' | sort -u
}
help_options() {
	grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

check_tool() { # TOOL PAGE RUN-PREFIX...
	local tool=$1 page=$2
	shift 2
	local in_help in_man
	in_help=$("$build/$tool" --help 2>&1 | help_options)
	in_man=$(man_options "$top/man/$page")
	for o in $in_help; do
		if grep -qx -- "$o" <<<"$in_man"; then ok
		else bad "$tool --help lists $o, man/$page does not"; fi
	done
	for o in $in_man; do
		# Options of other commands that a page names (ttrec's in
		# ttreplay's page, gdb's) are not this tool's.
		case "$o" in --follow-fork|--reverse) continue ;; esac
		if grep -qx -- "$o" <<<"$in_help"; then ok
		else bad "man/$page documents $o, $tool --help does not list it"; fi
	done
}
check_tool ttrec ttrec.1
check_tool ttreplay ttreplay.1
check_tool ttdump ttdump.1

# Every monitor command is in the page.
cc -g -O0 -o "$work/counter" "$top/tests/replay/programs/counter.c" || exit 1
"$build/ttrec" run -q -o "$work/c.idna" "$work/counter" 2 > /dev/null
gdb -batch -nx "$work/counter" -ex "target remote | $build/ttreplay $work/c.idna" \
	-ex 'monitor help' > "$work/help.out" 2>&1
commands=$(sed -n 's/^\([a-z][a-z-]*\) .*/\1/p' "$work/help.out" | grep -vx 'Remote\|Reading' | sort -u)
[ -n "$commands" ] || bad "monitor help listed nothing"
for c in $commands; do
	if grep -qE "^\.B(I)? $(sed 's/-/\\\\-/g' <<<"$c")( |\\\\|$)|\\\\fB$(sed 's/-/\\\\-/g' <<<"$c")\\\\fR" \
		"$top/man/ttreplay.1"; then ok
	else bad "monitor $c is not in man/ttreplay.1"; fi
done

# The pages render cleanly.
for page in "$top"/man/*.[15]; do
	warnings=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	if [ -z "$warnings" ]; then ok; else bad "$(basename "$page"): $warnings"; fi
done

finish man_pages
