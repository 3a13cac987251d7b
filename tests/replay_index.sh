#!/usr/bin/env bash
# The replay index (TRACE.idx, man/ttreplay-index.5): a session that reads
# it gives the answers a session that makes the first pass gives (gdb going
# back to breakpoints and watchpoints, monitor commands, --info, --verify);
# an index that is damaged, of another trace, a symbolic link or a FIFO is
# reported in one line and rebuilt, with the same answers; where the
# trace's folder takes no index, it goes to the user's cache folder.
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -g -O0 -o phases "$here/programs/phases.c" || exit 1
"$build/ttrec" run -q -o ph.idna ./phases > /dev/null || exit 1
# A second trace, for "an index of another trace" (another argument: the
# same length, other bytes).
"$build/ttrec" run -q -o other.idna ./phases other > /dev/null

# session OUT [TTREPLAY-OPTIONS]: the gdb script over ph.idna. Its output
# without what depends on the machine's speed or on where the first pass
# came from (the pass's progress lines, monitor info's "first pass" line
# and its count of segments skipped, which only a finished pass allows);
# ttreplay's own lines about the index go to OUT.index.
session() {
	local out=$1; shift
	gdb -batch -nx -ex 'set remotetimeout 600' ./phases \
		-ex "target remote | $build/ttreplay $* ph.idna" -x "$here/index.gdb" > "$out.raw" 2>&1
	grep -E '^ttreplay: index ' "$out.raw" > "$out.index"
	grep -vE '^ttreplay: (reading the trace|index )|^(first pass|segments forward continues skipped): ' \
		"$out.raw" > "$out"
}
# A one-line report of the index at the given path, and nothing else.
reported_once() { # OUT.index DESCRIPTION
	if [ "$(wc -l < "$1")" -eq 1 ] && grep -qE ': rebuilding$' "$1"; then ok
	else bad "$2: not reported in one line: $(cat "$1")"; fi
}
uses_index() { # OUT.raw DESCRIPTION
	expect "$1" '^first pass: read from .*ph\.idna\.idx$' "$2: the session read the index"
}
index_is_good() { # DESCRIPTION: a regular file ttreplay --index finds up to date
	if [ -f ph.idna.idx ] && [ ! -L ph.idna.idx ] &&
	   "$build/ttreplay" --index ph.idna 2>&1 | grep -q 'is up to date$'; then ok
	else bad "$1: no good index afterwards"; fi
}

# The reference: no index read or written.
session ref.out --no-index
expect ref.out.raw '^first pass: made in this session$' "--no-index makes the first pass"
[ ! -e ph.idna.idx ] && ok || bad "--no-index wrote an index"
expect ref.out 'Breakpoint 1, touch \(k=3\)' "reverse-continue to the earlier breakpoint hit"
expect ref.out '^Old value = 1$' "the watchpoint backwards"
expect ref.out '^next-write of ' "monitor next-write"

# The first session with the index makes the pass and writes it; the
# second reads it. All three agree.
session first.out
same ref.out first.out "the session that writes the index"
expect first.out.raw '^first pass: made in this session$' "the first session makes the pass"
mode=$(stat -c %a ph.idna.idx 2>/dev/null)
[ "$mode" = 600 ] && ok || bad "the index's mode is '$mode', not 600"
session second.out
same ref.out second.out "the session that reads the index"
uses_index second.out.raw "second session"
[ ! -s second.out.index ] && ok || bad "a good index was complained about: $(cat second.out.index)"

# --info and --verify, with and without the index.
"$build/ttreplay" --no-index --info ph.idna > info.ref
"$build/ttreplay" --info ph.idna > info.idx
same info.ref info.idx "--info from the index"
"$build/ttreplay" --no-index --verify ph.idna > verify.ref; ref_rc=$?
"$build/ttreplay" --verify ph.idna > verify.idx; idx_rc=$?
status_is "$ref_rc" "$idx_rc" "--verify from the index"
strip_timing() { sed -E 's/ in [0-9.]+ s \([0-9.]+ M instructions\/s\)//' "$1" | grep -v '^ttreplay: (the first pass'; }
if [ "$(strip_timing verify.ref)" = "$(strip_timing verify.idx)" ]; then ok
else bad "--verify from the index: $(diff verify.ref verify.idx | head -4 | tr '\n' ' ')"; fi
expect verify.idx 'the first pass that made .*ph\.idna\.idx' "--verify says it used the index"

# --index: made ahead of time, then up to date.
rm -f ph.idna.idx
"$build/ttreplay" --index ph.idna > make.out 2>&1; status_is 0 $? "ttreplay --index"
expect make.out '^ttreplay: wrote ph\.idna\.idx \(' "--index says what it wrote"
"$build/ttreplay" --index ph.idna > again.out 2>&1
expect again.out 'ph\.idna\.idx is up to date$' "--index on a good index"
cp ph.idna.idx good.idx

# Damaged indexes: each reported in one line, the answers the same, and a
# good index in its place afterwards.
damaged_case() { # NAME: ph.idna.idx was damaged just before
	session "$1.out"
	reported_once "$1.out.index" "$1"
	same ref.out "$1.out" "$1"
	index_is_good "$1"
}
size=$(stat -c %s good.idx)
head -c $((size / 2)) good.idx > ph.idna.idx
damaged_case truncated
expect truncated.out.index 'is damaged' "a truncated index is damaged"

flip() { # flip OFFSET: one byte of a copy of the good index inverted
	cp good.idx ph.idna.idx
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))' ph.idna.idx "$1"
}
# The directory (figures, snapshot table) is the last frame, from the
# offset the header holds at byte 40: damage there is found on opening.
dir=$(od -An -tu8 -j40 -N8 good.idx | tr -d ' ')
flip $((dir + (size - dir) / 2)); damaged_case flipped-directory
flip $((size - 1)); damaged_case flipped-last
flip 20; damaged_case flipped-header

# A snapshot's frame is read when a restore needs it: the last one's
# (just before the directory) when gdb continues to the end. Its damage
# is reported then, in one line; the session replays from an earlier
# snapshot with the same answers, and the index goes.
flip $((dir - 2))
session flipped-frame.out
if [ "$(wc -l < flipped-frame.out.index)" -eq 1 ] &&
   grep -qE 'the snapshot at time [0-9]+ is damaged \(.*\): replaying from an earlier one; removed' \
	flipped-frame.out.index; then ok
else bad "a damaged snapshot frame: not reported in one line: $(cat flipped-frame.out.index)"; fi
same ref.out flipped-frame.out "a damaged snapshot frame"
[ ! -e ph.idna.idx ] && ok || bad "the index with a damaged snapshot frame was kept"
# ttreplay --index reads every frame: a damaged one is found and rebuilt.
flip $((dir - 2))
"$build/ttreplay" --index ph.idna > frame-index.out 2>&1; status_is 0 $? "--index on a damaged frame"
expect frame-index.out 'is damaged \(.*at time [0-9]+\): rebuilding$' "--index finds a damaged frame"
expect frame-index.out '^ttreplay: wrote ph\.idna\.idx \(' "--index rebuilds it"
index_is_good "--index on a damaged frame"

"$build/ttreplay" --index other.idna > /dev/null 2>&1
cp other.idna.idx ph.idna.idx
damaged_case other-trace
expect other-trace.out.index 'does not match the trace' "another trace's index"

rm -f ph.idna.idx; ln -s good.idx ph.idna.idx
damaged_case symlink
expect symlink.out.index 'is a symbolic link' "an index that is a symbolic link"

rm -f ph.idna.idx; mkfifo ph.idna.idx
damaged_case fifo
expect fifo.out.index 'not a regular file' "an index that is a FIFO"

# A trace whose folder takes no index (here: TRACE.idx is a folder): the
# index goes to the cache folder, made 0700, and is read from there.
mkdir cache ro
cp ph.idna ro/ph.idna
mkdir ro/ph.idna.idx
XDG_CACHE_HOME=$PWD/cache "$build/ttreplay" --index ro/ph.idna > cache.out 2>&1
expect cache.out "^ttreplay: wrote $PWD/cache/ttreplay/[0-9a-f]+-[0-9a-f]+-[0-9a-f]+\\.idx " \
	"--index writes to the cache folder when the trace's takes none"
[ "$(stat -c %a cache/ttreplay 2>/dev/null)" = 700 ] && ok || bad "the cache folder is not 0700"
XDG_CACHE_HOME=$PWD/cache "$build/ttreplay" --index ro/ph.idna > cache2.out 2>&1
expect cache2.out "cache/ttreplay/.*is up to date$" "the index in the cache folder is read"

# Bad usage.
"$build/ttreplay" --index --no-index ph.idna > usage.out 2>&1
status_is 64 $? "--index with --no-index"

finish replay_index
