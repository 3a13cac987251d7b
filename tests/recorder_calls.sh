#!/usr/bin/env bash
# Who calls whom in the recording's core (recorder/README.md, "Who calls
# whom in the recording"): calls go down only. Read from the built object
# files: the functions each core file calls that another core file
# defines must come from the files it may call. recording.c, the owner
# of the loop, may call every file and no file may call it; the others
# hand events up through the hooks it fills (thread_table_hooks,
# native_step_hooks).
set -u
BUILD=${BUILD:-build}
OBJ=$BUILD/recorder
failed=0

# file: the core files it may call.
LEAF="recording_fail thread_table native_step trace_events thread_regs recording_forget"
declare -A may_call=(
	[recording_fail]=""
	[thread_regs]="recording_fail"
	[trace_events]="recording_fail"
	[thread_table]="recording_fail thread_regs"
	[native_step]="recording_fail thread_table trace_events thread_regs syscall_flush"
	[syscall_flush]=""
	[attach]="$LEAF follow_fork"
)
# The leaves, and the ways to start and end a recording.
for f in slice_switch program_killed recording_forget vsyscall stack_growth hand_back follow_fork; do
	may_call[$f]=$LEAF
done
core="recording ${!may_call[*]}"

for f in $core; do
	if [ ! -f "$OBJ/$f.o" ]; then
		echo "FAIL: $OBJ/$f.o missing (make first)"
		exit 1
	fi
done

defined() { nm --defined-only "$OBJ/$1.o" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort; }
called() { nm -u "$OBJ/$1.o" | awk '{ print $2 }' | sort; }

for f in "${!may_call[@]}"; do
	bad=""
	for g in $core; do
		[ "$g" = "$f" ] && continue
		case " ${may_call[$f]} " in *" $g "*) continue ;; esac
		used=$(comm -12 <(called "$f") <(defined "$g") | tr '\n' ' ')
		[ -n "$used" ] && bad="$bad $g.c ($used)"
	done
	if [ -n "$bad" ]; then
		echo "FAIL: $f.c calls up or sideways:$bad"
		failed=1
	else
		echo "ok: $f.c calls no core file but: ${may_call[$f]:-none}"
	fi
done
exit $failed
