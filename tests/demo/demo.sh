#!/usr/bin/env bash
# The README's main job: record a small program with a memory-corruption
# bug, then debug the recording with gdb, backwards from the crash to the
# corrupting write.   usage: demo.sh BUILD_DIR
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$build" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cc -g -O0 -o bug "$here/program/bug.c" || exit 1

echo "=== ttrec run ./bug   (the program crashes, exactly as it does natively)"
"$bin/ttrec" run -o bug.idna ./bug
echo "(ttrec exited with $?, the program's own status)"
echo
echo "=== ttreplay --verify bug.idna"
"$bin/ttreplay" --verify bug.idna || exit 1
echo
echo "=== gdb ./bug -ex 'target remote | ttreplay bug.idna'"
# ttreplay's gdb commands (last-write, goto...): the gdb that ttreplay
# starts on a terminal has them; here they are loaded by hand.
"$bin/ttreplay" --gdb-commands > ttreplay.gdb
gdb -batch -nx -q -x ttreplay.gdb ./bug -ex "target remote | $bin/ttreplay bug.idna" \
	-x "$here/demo.gdb" 2>&1 |
	grep -v -e '^Reading .* from remote target\.\.\.$' -e '^warning: File transfers from remote targets'
