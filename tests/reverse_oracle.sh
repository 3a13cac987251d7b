#!/usr/bin/env bash
# Differential test against gdb's own `record full`: each program of
# tests/reverse_programs/ runs under gdb natively with `record full`, and
# is recorded by ttrec and replayed under gdb through ttreplay; the same
# command script (tests/reverse_oracle/NAME.gdb, one command a line) runs
# on both sides from main, and compare.py compares what gdb prints,
# command by command. A line `[untrusted: REASON] COMMAND` runs on both
# sides but a difference there is shown and not counted as a failure:
# REASON says where `record full` itself is wrong. A script whose first
# line is `# oracle: live` runs natively without `record full` (forwards
# only: what `record full` does not show, such as syscall catchpoints).
#   ORACLE_ONLY=NAME  runs one program's script.
#   ORACLE_PROGRAMS=DIR ORACLE_SCRIPTS=DIR  other programs and their
#     scripts (DIR/NAME and DIR/NAME.gdb), e.g. GDB's own gdb.reverse
#     programs built outside the tree; a file NAME.args beside a script
#     holds the program's arguments (one line, split at blanks).
set -u
src=$(cd "$(dirname "$0")" && pwd)
. "$src/shared/checks.sh"
programs=${ORACLE_PROGRAMS:-$build/tests/reverse_programs}
scripts=${ORACLE_SCRIPTS:-$src/reverse_oracle}
compare="$src/reverse_oracle/compare.py"

# Both sides run the same code: `record full` cannot record AVX
# instructions, so glibc is told not to pick its AVX string functions;
# ttrec hides XSAVE from the program (recorder/cpuid_policy.c), so the
# lazy-binding resolver saves registers with fxsave on both sides (what it
# leaves on the stack shows in uninitialized locals); and
# the environment is the same small one (so the stack is laid out the
# same); gdb turns address-space randomization off, setarch -R does for ttrec.
tunables=glibc.cpu.hwcaps=-XSAVEC,-XSAVE,-AVX,-AVX2,-AVX512F,-AVX512VL,-AVX512BW,-AVX_Fast_Unaligned_Load,-ERMS,-FSRM,-BMI1,-BMI2
clean_env=(env -i HOME=/nonexistent PATH=/usr/bin:/bin "GLIBC_TUNABLES=$tunables")
# gdb adds LINES and COLUMNS to the inferior's environment; ttrec does not.
native_setup=(-ex 'set startup-with-shell off' -ex 'unset environment LINES'
	-ex 'unset environment COLUMNS')
common=(-ex 'set pagination off' -ex 'set confirm off' -ex 'set width 0'
	-ex 'set remotetimeout 600')

# script_args SCRIPT: -ex arguments, a marker before each command.
script_args() {
	local n=0 line
	args=()
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		line=${line#\[untrusted: *\] }
		args+=(-ex "echo \\n@@oracle $n@@\\n" -ex "$line")
		n=$((n + 1))
	done < "$1"
}

total_agree=0 total_all=0
for script in "$scripts"/*.gdb; do
	name=$(basename "$script" .gdb)
	[ -n "${ORACLE_ONLY:-}" ] && [ "$ORACLE_ONLY" != "$name" ] && continue
	prog="$programs/$name"
	if [ ! -x "$prog" ]; then bad "$name: no program $prog (make builds it)"; continue; fi
	script_args "$script"
	prog_args=()
	[ -f "$scripts/$name.args" ] && read -ra prog_args < "$scripts/$name.args"
	record=(-ex 'record full')
	head -n 1 "$script" | grep -q '^# oracle: live' && record=()
	"${clean_env[@]}" gdb -batch -nx "${common[@]}" "${native_setup[@]}" \
		-ex 'break main' -ex run "${record[@]}" -ex delete "${args[@]}" --args "$prog" "${prog_args[@]}" \
		< /dev/null > "$name.native" 2>&1
	"${clean_env[@]}" setarch -R "$build/ttrec" run -q -o "$name.idna" "$prog" "${prog_args[@]}" \
		< /dev/null > "$name.rec-out" 2>&1
	"${clean_env[@]}" gdb -batch -nx "${common[@]}" "$prog" \
		-ex "target remote | $build/ttreplay $name.idna" -ex 'break main' -ex continue -ex delete \
		"${args[@]}" < /dev/null > "$name.replay" 2>&1
	if python3 "$compare" "$script" "$name.native" "$name.replay" "$name" > "$name.cmp"; then
		ok
	else
		bad "$name: gdb under ttreplay differs from record full"
	fi
	cat "$name.cmp"
	counts=$(sed -n "s/^$name: \([0-9]*\) agree, .* (of \([0-9]*\))$/\1 \2/p" "$name.cmp")
	total_agree=$((total_agree + ${counts% *})) total_all=$((total_all + ${counts#* }))
	[ -n "${ORACLE_KEEP:-}" ] && cp "$name.native" "$name.replay" "$ORACLE_KEEP/"
done
echo "agreement: $total_agree of $total_all commands print the same under ttreplay as under record full"
finish reverse_oracle
