#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sched_compare.py - a drm_bridge recording against ftrace's of the same run.

usage: sched_compare.py [--every-pair] FTRACE DUMP
       sched_compare.py --self-test

FTRACE is ftrace's text of the gpu_scheduler events: a tracefs "trace" file
(microseconds) or "trace-cmd report -t" (nanoseconds), on the mono clock.
It may hold other events (interrupts): they are only used to explain a late
pair.  DUMP is "grtrace dump" of grtrace's recording of the same window.

Prints one "PASS|FAIL what: detail" line per check, always six, and "#"
lines naming the worst pairs.  The gpu_scheduler events of 6.1 to 6.16
(drm_sched_job, drm_run_job, drm_sched_process_job, drm_sched_job_wait_dep)
match jobs through the scheduler's job id: ftrace prints it (with the ring)
for drm_sched_job and drm_run_job, the bridge puts it in aux0 of SUBMIT and
COMMIT; drm_sched_process_job prints only a (hashed) fence pointer, which
the job's drm_sched_job names.  The stable set of 6.17+
(drm_sched_job_queue, _run, _done, _add_dep) prints the job's
fence=context:seqno, grtrace's job key itself.

Timestamps: the two probes of one tracepoint run back to back, grtrace's
first, so ftrace's stamp comes a probe later.  An interrupt (or, with more
than one vCPU under TCG, the emulator running another vCPU) between the two
probes makes ftrace's stamp late by as long as that takes.  Without
--every-pair the median must be within 20 us: a clock other than ftrace's
mono fails that by milliseconds.  With --every-pair (a guest whose clock is
its instruction count, see timestamps_test.sh) every pair must be.  In
both, no grtrace stamp may come after ftrace's (by more than ftrace's
resolution: a tracefs "trace" file truncates to microseconds): that holds
exactly whatever the emulator does, and a probe run in the wrong order, or
a stamp taken after work in the probe, fails it.
--self-test checks that made-up recordings pass and fail as they should.
"""

import re
import sys
from collections import Counter, defaultdict

LIMIT_NS = 20000
NAME = {'drm_sched_job': 'SUBMIT', 'drm_run_job': 'COMMIT',
        'drm_sched_process_job': 'END', 'drm_sched_job_wait_dep': 'SYNC_WAIT_ENTER',
        'drm_sched_job_queue': 'SUBMIT', 'drm_sched_job_run': 'COMMIT',
        'drm_sched_job_done': 'END', 'drm_sched_job_add_dep': 'SYNC_WAIT_ENTER'}
TYPES = ('SUBMIT', 'COMMIT', 'END', 'SYNC_WAIT_ENTER')
STABLE = ('drm_sched_job_queue', 'drm_sched_job_run', 'drm_sched_job_done',
          'drm_sched_job_add_dep')
# The stable set's job, and add_dep's dependency: fence=context:seqno.
STABLE_FENCE = re.compile(r'fence=(\d+):(\d+)')
FT_LINE = re.compile(r'\[(\d+)\].*?\s(\d+)\.(\d{6}|\d{9}): (\w+): (.*)$')


def read_grtrace(path):
    """Events of the dump: (ts, cpu, type, (ctx, seqno), ring name, aux0, aux1)."""
    rings, events = {}, []
    for line in open(path):
        m = re.search(r'id=(\d+) engine=\S+ instance=\d+ driver=\S* '
                      r'device=\S* name=(\S+)', line)
        if m:
            rings[int(m[1])] = m[2]
            continue
        f = line.split()
        if len(f) > 4 and f[4].startswith('ctx='):
            kv = dict(x.split('=', 1) for x in f[4:])
            events.append((int(f[0]), int(f[1]), f[3],
                           (int(kv['ctx']), int(kv['seqno'])),
                           rings.get(int(kv['ring'])), int(kv['aux0']),
                           int(kv['aux1'])))
    return events


# ftrace's resolution in ns, as read_ftrace() found it.
FT_RES = [0]


def read_ftrace(path):
    """Every event: (ts, cpu, name, args)."""
    out = []
    for line in open(path):
        m = FT_LINE.search(line)
        if m:
            scale = 1000 if len(m[3]) == 6 else 1
            FT_RES[0] = max(FT_RES[0], scale if scale > 1 else 0)
            out.append((int(m[2]) * 10**9 + int(m[3]) * scale, int(m[1]),
                        m[4], m[5]))
    return out


def main(argv):
    every = '--every-pair' in argv
    argv = [a for a in argv if a != '--every-pair']
    if len(argv) != 2:
        sys.exit('usage: sched_compare.py [--every-pair] FTRACE DUMP')
    ftall, g = read_ftrace(argv[0]), read_grtrace(argv[1])

    jobs = {(r, a0): k for ts, c, t, k, r, a0, a1 in g if t == 'SUBMIT'}
    fence, f, nomatch = {}, [], 0
    gkeys = {x[3] for x in g if x[2] == 'SUBMIT'}
    for ts, cpu, tp, args in ftall:
        if tp not in NAME:
            continue
        ev = NAME[tp]
        extra = ()
        if tp in STABLE:
            fences = [(int(c), int(s)) for c, s in STABLE_FENCE.findall(args)]
            key = fences[0] if fences and fences[0] in gkeys else None
            if ev == 'SYNC_WAIT_ENTER':
                extra = fences[1]
        elif ev in ('SUBMIT', 'COMMIT'):
            a = re.search(r'id=(\d+), fence=(\S+), ring=([^,]+),', args)
            key = jobs.get((a[3], int(a[1])))
            if ev == 'SUBMIT':
                fence[a[2]] = key
        elif ev == 'END':
            key = fence.get(re.search(r'fence=(\S+) signaled', args)[1])
        else:
            a = re.search(r'ring=([^,]+), id=(\d+), .*context=(\d+), seq=(\d+)',
                          args)
            key = jobs.get((a[1], int(a[2])))
            extra = (int(a[3]), int(a[4]))
        if key is None:
            nomatch += 1
            continue
        f.append((ts, cpu, ev, key, extra))

    gc = Counter(x[2] for x in g)
    fc = Counter(x[2] for x in f)
    ok = all(gc[t] == fc[t] for t in TYPES) and nomatch == 0
    print('PASS' if ok and gc['SUBMIT'] > 0 else 'FAIL',
          'per-type counts equal:',
          ' '.join(f'{t}={gc[t]}/{fc[t]}' for t in TYPES),
          f'(grtrace/ftrace; ftrace events without a grtrace job: {nomatch})')
    print('PASS' if gc['COMPLETE'] == gc['END'] and
          gc['SYNC_WAIT_EXIT'] == gc['SYNC_WAIT_ENTER'] else 'FAIL',
          f"COMPLETE={gc['COMPLETE']} for END={gc['END']}, "
          f"SYNC_WAIT_EXIT={gc['SYNC_WAIT_EXIT']} for "
          f"SYNC_WAIT_ENTER={gc['SYNC_WAIT_ENTER']}")

    # Pair every event with its twin: same type, job and dependency.
    gq, fq = defaultdict(list), defaultdict(list)
    for ts, cpu, t, k, r, a0, a1 in g:
        if t in TYPES:
            dep = (a0, a1) if t == 'SYNC_WAIT_ENTER' else ()
            gq[(t, k) + dep].append((ts, cpu))
    for ts, cpu, ev, k, extra in f:
        fq[(ev, k) + extra].append((ts, cpu))
    unpaired = sum(abs(len(gq[x]) - len(fq.get(x, []))) for x in gq) + \
        sum(len(v) for x, v in fq.items() if x not in gq)
    fkeys = {x[3] for x in f}
    print('PASS' if unpaired == 0 and fkeys == gkeys else 'FAIL',
          f'every ctx:seqno in both ({len(gkeys)} jobs), every event paired '
          f'1:1 (unpaired: {unpaired})')

    # (|delta|, type, grtrace's stamp and cpu, ftrace's stamp and cpu)
    d = sorted((abs(a[0] - b[0]), x[0], a, b) for x in gq
               for a, b in zip(sorted(gq[x]), sorted(fq.get(x, []))))
    after = [p for p in d if p[2][0] > p[3][0] + FT_RES[0]]
    late = [x for x in d if x[0] > LIMIT_NS]
    med = d[len(d) // 2][0] if d else 0
    worst = d[-1][0] if d else 0
    p99 = d[len(d) * 99 // 100][0] if d else 0

    def between(p):
        """Interrupts ftrace saw on the event's CPU between the two stamps."""
        lo, hi = min(p[2][0], p[3][0]), max(p[2][0], p[3][0])
        return [e[2] for e in ftall if lo <= e[0] <= hi and e[1] == p[3][1]
                and e[2] not in NAME]

    split = sum(1 for p in d if between(p))
    if every:
        # A pair may be further apart only for guest work that is not
        # grtrace's: an interrupt (or, on PREEMPT_RT, a softirq) that
        # ftrace recorded between the two stamps on that CPU.
        unexplained = [p for p in late if not between(p)]
        print('PASS' if d and not unexplained else 'FAIL',
              f'every pair within 20 us of ftrace: {len(d) - len(late)} of '
              f'{len(d)}, the {len(late) - len(unexplained)} others each with '
              f'an interrupt between the stamps; worst {worst} ns, p99 {p99} '
              f'ns, median {med} ns; {split} with an interrupt between the stamps')
    else:
        print('PASS' if d and med <= LIMIT_NS else 'FAIL',
              f"ftrace's clock: median difference {med} ns (at most 20 us); "
              f'{len(late)} of {len(d)} pairs above 20 us, worst {worst} ns')
    for p in late[-5:]:
        cause = ' '.join(sorted(set(between(p)))) or 'no interrupt recorded'
        print(f'# later by {p[0]} ns: {p[1]} on cpu {p[3][1]}; between: {cause}')
    print('PASS' if d and not after else 'FAIL',
          f"grtrace stamps first: {len(after)} of {len(d)} pairs have grtrace's "
          f"stamp after ftrace's by more than its resolution ({FT_RES[0]} ns)")
    for p in after[:5]:
        print(f'# grtrace later by {p[2][0] - p[3][0]} ns: {p[1]} on cpu {p[2][1]}')

    err = [(k, a0) for ts, c, t, k, r, a0, a1 in g if t == 'ERROR']
    subs = [x for x in g if x[2] == 'SUBMIT']
    last = max(subs, key=lambda x: x[0])[3] if subs else None
    print('PASS' if err == [(last, -62)] else 'FAIL',
          f'the hung job, and only it, has an ERROR -ETIME: {err} '
          f'(hung job {last})')


def self_test():
    """TAP: the checks fail on what they are there to catch."""
    import contextlib
    import io
    import os
    import tempfile

    def run(shift_ns=0, drop=None, every=True, err=-62, offset=0,
            stable=False, irq=False):
        """Two jobs on one ring, the second hung; ftrace's stamps 1 us later.
        stable: ftrace's text of the 6.17+ events."""
        tps = (('drm_sched_job_queue', 'drm_sched_job_run', 'drm_sched_job_done',
                'drm_sched_job_add_dep')
               if stable else
               ('drm_sched_job', 'drm_run_job', 'drm_sched_process_job',
                'drm_sched_job_wait_dep'))
        dump = ['0 0 0 RING id=0 engine=gfx instance=0 driver=d device=x name=r0']
        ft, n = [], 0
        for job, t0 in ((1, 10**9), (2, 2 * 10**9)):
            for i, (ev, tp) in enumerate((('SUBMIT', tps[0]),
                                          ('COMMIT', tps[1]),
                                          ('END', tps[2]),
                                          ('COMPLETE', None))):
                ts = t0 + i * 1000000
                n += 1
                dump.append(f'{ts} 0 {n} {ev} ctx=5 seqno={job} ring=0 '
                            f'engine=gfx aux0={job} aux1=0')
                if ev == 'END' and job == 2:
                    dump.append(f'{ts} 0 {n} ERROR ctx=5 seqno=2 ring=0 '
                                f'engine=gfx aux0={err} aux1=0')
                if ev == 'SUBMIT' and job == 2:
                    # Job 2 waits for job 1, long signalled.
                    w = ts + 500
                    dump.append(f'{w} 0 {n} SYNC_WAIT_ENTER ctx=5 seqno=2 '
                                f'ring=0 engine=gfx aux0=5 aux1=1')
                    dump.append(f'{w} 0 {n} SYNC_WAIT_EXIT ctx=5 seqno=2 '
                                f'ring=0 engine=gfx aux0=5 aux1=1')
                    dep = (f'fence=5:2 depends on fence=5:1' if stable else
                           f'job ring=r0, id=2, depends fence=f1, context=5, seq=1')
                    w += 1000
                    ft.append(f' t-1 [000] {w // 10**9}.{w % 10**9:09d}: '
                              f'{tps[3]}: {dep}')
                if tp is None or (job, ev) == drop:
                    continue
                f = ts + 1000 + offset + (shift_ns if job == 2 and ev == 'COMMIT' else 0)
                if stable:
                    args = (f'fence=5:{job} signaled' if ev == 'END' else
                            f'dev=x, fence=5:{job}, ring=r0, job count:0, '
                            'hw job count:0, client_id:7')
                else:
                    args = (f'fence=f{job} signaled' if ev == 'END' else
                            f'entity=e, id={job}, fence=f{job}, ring=r0, '
                            'job count:0, hw job count:0')
                ft.append(f' t-1 [000] {f // 10**9}.{f % 10**9:09d}: {tp}: {args}')
        if irq:
            # A softirq on the CPU between job 2's two COMMIT stamps.
            f = 2 * 10**9 + 1000000 + 5000
            ft.append(f' t-1 [000] {f // 10**9}.{f % 10**9:09d}: softirq_entry: vec=1 [action=TIMER]')
            ft.sort(key=lambda x: x.split(': ')[0].split()[-1])
        with tempfile.TemporaryDirectory() as d:
            for name, lines in (('ft', ft), ('dump', dump)):
                with open(os.path.join(d, name), 'w') as fh:
                    fh.write('\n'.join(lines) + '\n')
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                main((['--every-pair'] if every else []) +
                     [os.path.join(d, 'ft'), os.path.join(d, 'dump')])
        return [x.split()[0] for x in out.getvalue().splitlines()
                if not x.startswith('#')]

    cases = [
        ('matching recordings pass', run(), ['PASS'] * 6),
        ('one pair 25 us apart fails --every-pair', run(shift_ns=24000)[3], 'FAIL'),
        ('... unless an interrupt lies between its stamps',
         run(shift_ns=24000, irq=True)[3], 'PASS'),
        ('... but not the median check', run(shift_ns=24000, every=False)[3], 'PASS'),
        ('another clock (5 ms off) fails the median check',
         run(offset=5000000, every=False)[3], 'FAIL'),
        ('a missing ftrace event fails counts and pairing',
         run(drop=(1, 'COMMIT'))[0:3:2], ['FAIL', 'FAIL']),
        ('grtrace stamping 2 us after ftrace fails the order check',
         run(offset=-3000, every=False)[3:5], ['PASS', 'FAIL']),
        ('an ERROR with another errno fails', run(err=-5)[5], 'FAIL'),
        ('6.17+ events: matching recordings pass', run(stable=True), ['PASS'] * 6),
        ('6.17+ events: a missing one fails counts and pairing',
         run(drop=(2, 'SUBMIT'), stable=True)[0:3:2], ['FAIL', 'FAIL']),
        ('6.17+ events: another clock fails the median check',
         run(offset=5000000, every=False, stable=True)[3], 'FAIL'),
    ]
    print(f'1..{len(cases)}')
    bad = 0
    for i, (name, got, want) in enumerate(cases, 1):
        bad += got != want
        print(f'{"ok" if got == want else "not ok"} {i} - sched_compare.py: {name}'
              + ('' if got == want else f' (got {got})'))
    return 1 if bad else 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    main(sys.argv[1:])
