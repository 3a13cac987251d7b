#!/usr/bin/env python3
"""compare.py SCRIPT RECORD_FULL_OUT TTREPLAY_OUT NAME

Splits the two gdb transcripts at the markers reverse_oracle.sh put
before each command of SCRIPT, normalizes what legitimately differs
between a live process and a replay, and compares them command by
command. Prints a diff for each command that differs, and one summary
line:  NAME: A agree, D differ, U untrusted (of T)
Exit status 1 when a trusted command differs (or a transcript is cut
short), else 0.
"""
import difflib
import re
import sys

MARK = re.compile(r'^@@oracle (\d+)@@$')


def script_commands(path):
    """The script's commands: (text, untrusted reason or None)."""
    out = []
    for line in open(path):
        line = line.rstrip('\n')
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        m = re.match(r'^\[untrusted: ([^\]]+)\]\s*(.*)$', line)
        out.append((m.group(2), m.group(1)) if m else (line, None))
    return out


# Each rule: (pattern, replacement, why it may differ).
NORMALIZE = [
    # Only the remote side reads the libraries through the remote
    # protocol; the native side opens them directly.
    (re.compile(r'^Reading .* from remote target\.\.\.$'), None,
     'transport message of the remote side only'),
    (re.compile(r'^warning: File transfers from remote targets can be slow.*$'), None,
     'transport message of the remote side only'),
    # The native side runs the fork live and says so; the replay holds
    # the parent only (ttrec runs the child untraced).
    (re.compile(r'^\[Detaching after (v?fork) from child process \d+\]$'), None,
     'live fork notice'),
    # gdb -batch ends the session after the last command: it detaches
    # from a remote target and kills a native process, silently.
    # (The remote target names the recorded process when it knows its pid.)
    (re.compile(r'^\[Inferior 1 \((Remote target|process \d+)\) detached\]$'), None,
     'end of the session'),
    # The numbers of gdb's value history follow from every earlier print:
    # a difference there is reported where it happened, not on every
    # print after it.
    (re.compile(r'^\$\d+ = '), '$N = ', 'value-history numbers'),
    # Process ids and thread names differ between two runs, and the
    # replay shows one fixed pid.
    (re.compile(r'process \d+'), 'process PID', 'pids differ between runs'),
    (re.compile(r'Thread 0x[0-9a-f]+ \(LWP \d+\)'), 'Thread T', 'thread ids differ'),
    (re.compile(r'^\[Thread debugging using libthread_db enabled\]$'), None,
     'libthread_db is loaded by the native side only'),
    (re.compile(r'^Using host libthread_db library .*$'), None,
     'libthread_db is loaded by the native side only'),
]


def normalize(lines):
    out = []
    for line in lines:
        keep = True
        for pat, repl, _why in NORMALIZE:
            if repl is None:
                if pat.match(line):
                    keep = False
                    break
            else:
                line = pat.sub(repl, line)
        if keep:
            out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


def blocks(path, count):
    """Output of each command, by index; None where it never ran."""
    got = {}
    current = None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = MARK.match(line)
        if m:
            current = int(m.group(1))
            got[current] = []
        elif current is not None:
            got[current].append(line)
    return [normalize(got[i]) if i in got else None for i in range(count)]


def main():
    script, native, replay, name = sys.argv[1:5]
    commands = script_commands(script)
    a = blocks(native, len(commands))
    b = blocks(replay, len(commands))
    agree = differ = untrusted = 0
    for i, (cmd, reason) in enumerate(commands):
        if a[i] is None or b[i] is None:
            print(f'{name} #{i} `{cmd}`: no output from '
                  f'{"record full" if a[i] is None else "ttreplay"} (transcript cut short)')
            differ += 1
            continue
        if a[i] == b[i]:
            agree += 1
            continue
        diff = '\n'.join(difflib.unified_diff(a[i], b[i], 'record-full', 'ttreplay', lineterm='', n=2))
        if reason:
            untrusted += 1
            print(f'{name} #{i} `{cmd}`: differs, not trusted ({reason})')
        else:
            differ += 1
            print(f'{name} #{i} `{cmd}`: DIFFERS')
        print('\n'.join('    ' + l for l in diff.splitlines()))
    print(f'{name}: {agree} agree, {differ} differ, {untrusted} untrusted (of {len(commands)})')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
