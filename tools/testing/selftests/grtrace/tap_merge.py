#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tap_merge.py - judge a sub-suite's log, so that no verdict gets lost.

Usage: tap_merge.py LOG PREFIX STATUS

LOG is what a sub-suite printed (stdout and stderr), STATUS its exit
status.  Prints one line per result, "ok - NAME", "ok - NAME # SKIP why"
or "not ok - NAME", with PREFIX before each NAME, for run_tests.sh to
number.  Besides the sub-suite's own results, it adds a failure for each
way a verdict can get lost:

  - a TAP stream without a plan ("1..N"), or with more or fewer results
    than its plan (a test that crashed half-way, a loop that ran short);
  - "Bail out!";
  - a Python traceback or a shell "line N: ... error" anywhere in the log
    (a comparator that crashed prints no FAIL);
  - an exit status other than 0 with no failing result to explain it, or
    an exit status of 0 from a stream that has failing results;
  - a log that holds no TAP stream at all.

A log may hold several sub-suites, as the guest's does (guest_tests.sh):
a line "# suites: A B C" names them, and each runs between "# suite A"
and "# suite A exit RC".  A named sub-suite that never printed its exit
line did not finish (the guest crashed or timed out in it): a failure.
Without such lines the whole log is one sub-suite with exit status
STATUS.

A failing result's diagnostics follow its line as "#   TEXT": the "#"
lines since the result before it unless that one failed too (the
kselftest harness prints them first), at most DIAG_BEFORE, and those
after it up to the next result, at most DIAG_AFTER.  What a failure in
a kernel's lane or a guest printed about itself so reaches the suite's
own output, and the CI's.

Exit status: 0 if every line printed is "ok", 1 otherwise.
"""

import collections
import re
import sys

DIAG_BEFORE = 10
DIAG_AFTER = 25
RESULT = re.compile(r'^(not ok|ok)\b\s*(\d+)?\s*(?:- )?(.*)$')
PLAN = re.compile(r'^1\.\.(\d+)\b(.*)$')
# What a crashed Python or shell script leaves, at the start of a line.
CRASH = re.compile(r'^(Traceback \(most recent call last\):'
                   r'|\S+: line \d+: '
                   r'|Segmentation fault|Aborted)')


class Stream:
    def __init__(self):
        self.plan = None
        self.skip_all = False
        self.results = []      # (ok, name, skip, diagnostics)


def streams_of(lines):
    """Split into TAP streams at each "TAP version" line."""
    out, cur, diag, after = [], None, None, 0
    before = collections.deque(maxlen=DIAG_BEFORE)
    for line in lines:
        if line.startswith('TAP version '):
            cur, diag = Stream(), None
            before.clear()
            out.append(cur)
            continue
        m = RESULT.match(line)
        p = PLAN.match(line)
        if (m or p) and cur is None:
            cur = Stream()          # a stream without a header
            out.append(cur)
        if not (m or p):
            if line.startswith('#') and diag is None:
                before.append(line)
            elif line.startswith('#') and after < DIAG_AFTER:
                diag.append(line)
                after += 1
            continue
        diag = None
        if p:
            if cur.plan is not None:
                cur.results.append((False, 'a second plan in one stream', False, []))
            cur.plan = int(p[1])
            cur.skip_all = cur.plan == 0 and '# SKIP' in p[2]
        elif m:
            name = m[3]
            skip = bool(re.search(r'#\s*SKIP\b', name, re.I))
            ok = m[1] == 'ok'
            if not ok:
                diag, after = list(before), 0
            cur.results.append((ok, name, skip, diag))
        before.clear()
    return out


def judge(name, lines, status, emit):
    """Emit the results of one sub-suite and the failures around them."""
    streams = streams_of(lines)
    failed_results = 0
    lost = 0

    def fail(text):
        nonlocal lost
        lost += 1
        emit(False, text)

    if not streams:
        fail(f'{name}printed no TAP results')
    for i, s in enumerate(streams):
        where = f'{name}stream {i + 1}: ' if len(streams) > 1 else name
        for ok, rname, _, diag in s.results:
            emit(ok, f'{name}{rname}')
            for d in diag or []:
                print(f'#   {d.lstrip("#").strip()}')
            failed_results += not ok
        got = len(s.results)
        if s.plan is None:
            fail(f'{where}no plan (1..N): {got} results cannot be checked')
        elif s.skip_all:
            emit(True, f'{where}skipped as a whole # SKIP the plan says 1..0')
        elif got != s.plan:
            fail(f'{where}ran {got} of the {s.plan} tests its plan announces')
    for line in lines:
        if line.startswith('Bail out!'):
            fail(f'{name}{line.strip()}')
        elif CRASH.match(line):
            fail(f'{name}crashed: {line.strip()[:120]}')
    if status != 0 and not failed_results and not lost:
        fail(f'{name}exit status {status} with no failing test to explain it')
    if status == 0 and failed_results:
        fail(f'{name}exit status 0 although {failed_results} tests failed')


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split('\n\n')[1])
    path, prefix, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
    try:
        with open(path, errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        lines = []
        print(f'not ok - {prefix}cannot read the log: {e.strerror}')
        sys.exit(1)

    bad = 0

    def emit(ok, text):
        nonlocal bad
        bad += not ok
        print(f'{"ok" if ok else "not ok"} - {text}')

    suites = None
    for line in lines:
        if line.startswith('# suites:'):
            suites = line.split(':', 1)[1].split()
            break
    if suites is None:
        judge(prefix, lines, status, emit)
        sys.exit(1 if bad else 0)

    for s in suites:
        begin = f'# suite {s}'
        try:
            a = lines.index(begin)
        except ValueError:
            emit(False, f'{prefix}{s}: never started')
            continue
        end = next((j for j in range(a + 1, len(lines))
                    if lines[j].startswith(begin + ' exit ')), None)
        if end is None:
            judge(f'{prefix}{s}: ', lines[a + 1:], 0, emit)
            emit(False, f'{prefix}{s}: never finished (no "{begin} exit" line)')
            continue
        rc = int(lines[end].rsplit(' ', 1)[1])
        judge(f'{prefix}{s}: ', lines[a + 1:end], rc, emit)
    if status != 0 and not bad:
        emit(False, f'{prefix}exit status {status} with no failing test to explain it')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
