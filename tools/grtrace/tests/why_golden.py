#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hand-worked traces for "grtrace report --why", --per-process --why and
--critical-path, and the checks of their output.

The traces are written with the golden vectors' encoder (gen_golden.py,
from the stream format of Documentation/gpu/grtrace.rst); every expected
number below was worked out by hand from the timestamps (the comments show
the arithmetic).  A job's wait runs from its SUBMIT to its start (START, or
derived: max(COMMIT, the ring's previous END)) and is cut into

    dep_ns    SUBMIT .. the last dependency's signal (its job's END if that
              job is in the trace, else the SYNC_WAIT_EXIT)
    sched_ns  .. COMMIT
    ring_ns   .. start

"behind" splits [dependencies done, start] by whose job the ring ran.

Usage:
    why_golden.py GRTRACE DIR     write the traces to DIR, run GRTRACE on
                                  them, print one "ok NAME" / "not ok NAME"
                                  per check
"""

import csv
import io
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "testing", "selftests",
                                "grtrace", "golden"))
import gen_golden  # noqa: E402
from gen_golden import Trace, GFX, COPY  # noqa: E402

TASK = gen_golden.HDR_TASK
RINGS = [(0, GFX, 0, b"testdrv", b"0000:00:02.0", b"gfx0"),
         (1, COPY, 0, b"testdrv", b"0000:00:02.0", b"comp0")]


class T:
    """A trace whose SUBMITs carry their task."""

    def __init__(self):
        self.t = Trace()
        self.t.stream_info(1000)
        self.t.metadata(1000, RINGS)
        self.tasks = []

    def ev(self, ts, name, ctx, seqno, ring, pid=None, aux0=0, aux1=0):
        eng = GFX if ring == 0 else COPY
        if name == "submit":
            self.t.ev(ts, name, ctx, seqno, ring, eng, aux0=aux0, aux1=aux1,
                      trailing=gen_golden.task_trailing(pid, pid),
                      flags=TASK)
        else:
            self.t.ev(ts, name, ctx, seqno, ring, eng, aux0=aux0, aux1=aux1)

    def task(self, pid, name):
        self.tasks.append((pid, pid, name, name))

    def data(self):
        return self.t.trace_file(self.tasks)


def crossdep():
    """A compute job of "comp" (pid 20, ring 1) waits for a gfx job of
    "game" (pid 10, ring 0).  As on 6.1, the wait is reported only when
    the scheduler picks the compute job up (9500), long after the gfx
    job's END (9000), and its EXIT follows at once (9510)."""
    t = T()
    t.task(10, "game")
    t.task(20, "comp")
    t.ev(1000, "submit", 100, 1, 0, pid=10)
    t.ev(1100, "commit", 100, 1, 0)
    t.ev(2000, "submit", 200, 1, 1, pid=20)
    t.ev(9000, "end", 100, 1, 0)
    t.ev(9000, "complete", 100, 1, 0)
    t.ev(9500, "sync_wait_enter", 200, 1, 1, aux0=100, aux1=1)
    t.ev(9510, "sync_wait_exit", 200, 1, 1, aux0=100, aux1=1)
    t.ev(9600, "commit", 200, 1, 1)
    t.ev(12000, "end", 200, 1, 1)
    t.ev(12000, "complete", 200, 1, 1)
    return t


CROSSDEP = {
    # SUBMIT 1000, start derived = COMMIT 1100 (ring 0 idle): wait 100, all
    # of it before the COMMIT: sched 100.  Nothing ran on ring 0 before.
    (100, 1): dict(dep_ns=0, dep_on=None, sched_ns=100, ring_ns=0,
                   behind=[]),
    # SUBMIT 2000, start derived = COMMIT 9600 (ring 1 idle): wait 7600.
    # dep: until 100:1's END at 9000 (not the EXIT at 9510): 9000 - 2000 =
    # 7000; sched: 9600 - 9000 = 600; ring: 9600 - 9600 = 0.
    # 7000 + 600 + 0 = 7600.  Ring 1 ran nothing in [9000, 9600]: no one.
    (200, 1): dict(dep_ns=7000, sched_ns=600, ring_ns=0, behind=[],
                   dep_on=dict(ctx=100, seqno=1, in_trace=True, ring=0,
                               pid=10, comm="game")),
}


def shared():
    """Ring 0 shared: "flood" (pid 30) queues two 10 us jobs, "victim"
    (pid 40) one short job that the scheduler holds back until 12000 (its
    credits held by flood's jobs)."""
    t = T()
    t.task(30, "flood")
    t.task(40, "victim")
    t.ev(1000, "submit", 300, 1, 0, pid=30)
    t.ev(1010, "commit", 300, 1, 0)
    t.ev(1020, "submit", 300, 2, 0, pid=30)
    t.ev(1030, "commit", 300, 2, 0)
    t.ev(2000, "submit", 400, 1, 0, pid=40)
    t.ev(11010, "end", 300, 1, 0)
    t.ev(11010, "complete", 300, 1, 0)
    t.ev(12000, "commit", 400, 1, 0)
    t.ev(21010, "end", 300, 2, 0)
    t.ev(21010, "complete", 300, 2, 0)
    t.ev(22010, "end", 400, 1, 0)
    t.ev(22010, "complete", 400, 1, 0)
    return t


SHARED = {
    # start = COMMIT 1010 (ring idle): sched 1010 - 1000 = 10, ring 0;
    # nothing ran in [1000, 1010].
    (300, 1): dict(dep_ns=0, dep_on=None, sched_ns=10, ring_ns=0, behind=[]),
    # start = max(COMMIT 1030, END of 300:1 11010) = 11010: wait 9990:
    # sched 1030 - 1020 = 10, ring 11010 - 1030 = 9980.  Behind: 300:1 ran
    # [1010, 11010]; within [1020, 11010]: 9990, flood's own.
    (300, 2): dict(dep_ns=0, dep_on=None, sched_ns=10, ring_ns=9980,
                   behind=[dict(pid=30, comm="flood", ns=9990)]),
    # start = max(COMMIT 12000, END of 300:2 21010) = 21010: wait 19010:
    # sched 12000 - 2000 = 10000, ring 21010 - 12000 = 9010.  Behind, in
    # [2000, 21010]: 300:1 [1010, 11010] gives 11010 - 2000 = 9010, 300:2
    # [11010, 21010] 10000: flood 19010, all of the wait.
    (400, 1): dict(dep_ns=0, dep_on=None, sched_ns=10000, ring_ns=9010,
                   behind=[dict(pid=30, comm="flood", ns=19010)]),
}

# --per-process: victim waited 19010 behind flood; flood 9990 behind
# itself (300:2 behind 300:1).
SHARED_PROCS = {
    30: [dict(pid=30, comm="flood", ns=9990,
              rings=[dict(ring=0, ns=9990)])],
    40: [dict(pid=30, comm="flood", ns=19010,
              rings=[dict(ring=0, ns=19010)])],
}


def early():
    """600:1 (pid 60, ring 1) depends on 500:1 (pid 50, ring 0), which
    ended at 2000, before 600:1's SUBMIT at 3000.  The EXIT of that wait
    comes after 600:1's COMPLETE (4500)."""
    t = T()
    t.task(50, "prod")
    t.task(60, "cons")
    t.ev(1000, "submit", 500, 1, 0, pid=50)
    t.ev(1100, "commit", 500, 1, 0)
    t.ev(2000, "end", 500, 1, 0)
    t.ev(2000, "complete", 500, 1, 0)
    t.ev(3000, "submit", 600, 1, 1, pid=60)
    t.ev(3000, "sync_wait_enter", 600, 1, 1, aux0=500, aux1=1)
    t.ev(3100, "commit", 600, 1, 1)
    t.ev(4000, "end", 600, 1, 1)
    t.ev(4000, "complete", 600, 1, 1)
    t.ev(4500, "sync_wait_exit", 600, 1, 1, aux0=500, aux1=1)
    return t


EARLY = {
    # SUBMIT 1000, start = COMMIT 1100: sched 100.
    (500, 1): dict(dep_ns=0, dep_on=None, sched_ns=100, ring_ns=0, behind=[]),
    # Its dependency signalled at 2000 < SUBMIT 3000: no dep wait, dep_on
    # null.  start = COMMIT 3100: sched 100.
    (600, 1): dict(dep_ns=0, dep_on=None, sched_ns=100, ring_ns=0, behind=[]),
}


def chain():
    """900:1 (pid 90, ring 1) waits for 800:1 (pid 80, ring 0), which waits
    for 700:1, whose events are not in the trace (lost): only the EXIT of
    800:1's wait says when 700:1's fence signalled."""
    t = T()
    t.task(80, "mid")
    t.task(90, "last")
    t.ev(1000, "submit", 800, 1, 0, pid=80)
    t.ev(1000, "sync_wait_enter", 800, 1, 0, aux0=700, aux1=1)
    t.ev(2000, "submit", 900, 1, 1, pid=90)
    t.ev(2000, "sync_wait_enter", 900, 1, 1, aux0=800, aux1=1)
    t.ev(5000, "sync_wait_exit", 800, 1, 0, aux0=700, aux1=1)
    t.ev(5200, "commit", 800, 1, 0)
    t.ev(8000, "end", 800, 1, 0)
    t.ev(8000, "complete", 800, 1, 0)
    t.ev(8050, "sync_wait_exit", 900, 1, 1, aux0=800, aux1=1)
    t.ev(8300, "commit", 900, 1, 1)
    t.ev(9000, "end", 900, 1, 1)
    t.ev(9000, "complete", 900, 1, 1)
    return t


CHAIN = {
    # dep: 700:1 is not in the trace: its signal is the EXIT, 5000:
    # 5000 - 1000 = 4000; sched 5200 - 5000 = 200; ring 0 (start = COMMIT).
    (800, 1): dict(dep_ns=4000, sched_ns=200, ring_ns=0, behind=[],
                   dep_on=dict(ctx=700, seqno=1, in_trace=False)),
    # dep: until 800:1's END 8000 (the EXIT at 8050 came later):
    # 8000 - 2000 = 6000; sched 8300 - 8000 = 300; ring 0.
    (900, 1): dict(dep_ns=6000, sched_ns=300, ring_ns=0, behind=[],
                   dep_on=dict(ctx=800, seqno=1, in_trace=True, ring=0,
                               pid=80, comm="mid")),
}

# From 900:1: 900:1 (waited for 800:1), 800:1 (waited for 700:1), and
# 700:1, not in the trace: the path stops there, no hop invented.  Each
# hop after the first caused the wait of the one before on it: its
# dep_ns (800:1 held 900:1 up 6000 ns, 700:1 held 800:1 up 4000).
CHAIN_PATH = [
    dict(ctx=900, seqno=1, caused_ns=None, in_trace=True, ring=1, pid=90,
         comm="last", dep_ns=6000, sched_ns=300, ring_ns=0),
    dict(ctx=800, seqno=1, caused_ns=6000, in_trace=True, ring=0, pid=80,
         comm="mid", dep_ns=4000, sched_ns=200, ring_ns=0),
    dict(ctx=700, seqno=1, caused_ns=4000, in_trace=False),
]

def lone_job(t0, stamps):
    """A recording begun at @t0 of one job, 100:1 on ring 0: its chunks,
    to join to others'."""
    t = Trace()
    t.stream_info(t0)
    t.metadata(t0, RINGS)
    for name, ts in stamps:
        t.ev(ts, name, 100, 1, 0, GFX)
    return t.chunks()


def reboot():
    """Two recordings joined, the second from a later boot (its clock
    below the first's end, the same fence numbers): 100:1 ended at 9000 in
    the first; in the second, 200:1 waits for another 100:1, not traced,
    whose fence signals at 2000 (the EXIT)."""
    parts = [lone_job(5000, (("submit", 5000), ("commit", 5100),
                             ("end", 9000), ("complete", 9000)))]
    t = Trace()
    t.stream_info(300)
    t.metadata(300, RINGS)
    t.ev(300, "submit", 200, 1, 1, COPY)
    t.ev(400, "sync_wait_enter", 200, 1, 1, COPY, aux0=100, aux1=1)
    t.ev(2000, "sync_wait_exit", 200, 1, 1, COPY, aux0=100, aux1=1)
    t.ev(2100, "commit", 200, 1, 1, COPY)
    t.ev(3000, "end", 200, 1, 1, COPY)
    t.ev(3000, "complete", 200, 1, 1, COPY)
    parts.append(t.chunks())
    return b"".join(parts)


REBOOT = {
    # SUBMIT 5000, start = COMMIT 5100: sched 100.
    (100, 1): dict(dep_ns=0, dep_on=None, sched_ns=100, ring_ns=0, behind=[]),
    # The first part's 100:1 is another job: its END (9000) says nothing
    # here.  The EXIT at 2000: dep 2000 - 300 = 1700, not in the trace;
    # sched 2100 - 2000 = 100; ring 0 (start = COMMIT 2100).
    (200, 1): dict(dep_ns=1700, sched_ns=100, ring_ns=0, behind=[],
                   dep_on=dict(ctx=100, seqno=1, in_trace=False)),
}


def nocommit():
    """Jobs with a START and no COMMIT (an adapter that has none): 110:1
    (pid 11, ring 0) alone; 120:1 (pid 12, ring 1) waits for it, the
    wait's EXIT late (4100) after 110:1's END (4000)."""
    t = T()
    t.task(11, "nc1")
    t.task(12, "nc2")
    t.ev(1000, "submit", 110, 1, 0, pid=11)
    t.ev(1500, "submit", 120, 1, 1, pid=12)
    t.ev(1600, "sync_wait_enter", 120, 1, 1, aux0=110, aux1=1)
    t.ev(3000, "start", 110, 1, 0)
    t.ev(4000, "end", 110, 1, 0)
    t.ev(4000, "complete", 110, 1, 0)
    t.ev(4100, "sync_wait_exit", 120, 1, 1, aux0=110, aux1=1)
    t.ev(5000, "start", 120, 1, 1)
    t.ev(6000, "end", 120, 1, 1)
    t.ev(6000, "complete", 120, 1, 1)
    return t


NOCOMMIT = {
    # No COMMIT: handed to the ring when its dependencies were done (at
    # its SUBMIT here): ring 3000 - 1000 = 2000, sched 0.  Ring 0 ran
    # nothing before: no one.
    (110, 1): dict(dep_ns=0, dep_on=None, sched_ns=0, ring_ns=2000,
                   behind=[]),
    # dep: until 110:1's END 4000: 4000 - 1500 = 2500; then no COMMIT:
    # ring 5000 - 4000 = 1000, sched 0.  2500 + 0 + 1000 = 3500.
    (120, 1): dict(dep_ns=2500, sched_ns=0, ring_ns=1000, behind=[],
                   dep_on=dict(ctx=110, seqno=1, in_trace=True, ring=0,
                               pid=11, comm="nc1")),
}


def ring0(jobs):
    """Jobs of one process each on ring 0, given as (pid, comm, ctx,
    submit, start, end): SUBMIT and COMMIT at submit, START, END and
    COMPLETE; at one time an END before the START it lets in."""
    order = dict(submit=0, commit=1, end=2, complete=3, start=4)
    t, evs = T(), []
    for pid, comm, ctx, submit, start, end in jobs:
        t.task(pid, comm)
        evs += [(submit, "submit", ctx, pid), (submit, "commit", ctx, None),
                (start, "start", ctx, None), (end, "end", ctx, None),
                (end, "complete", ctx, None)]
    for ts, name, ctx, pid in sorted(evs, key=lambda e: (e[0], order[e[1]])):
        t.ev(ts, name, ctx, 1, 0, pid=pid)
    return t


def three():
    """Three processes on ring 0: "long" (pid 21) runs 7 us, then "short"
    (pid 22) 0.8 us, then "last" (pid 23), queued behind both.  The ring's
    history is walked newest first, so "behind" comes out in ns order only
    if it is sorted."""
    return ring0([(21, "long", 210, 1000, 1000, 8000),
                  (22, "short", 220, 1100, 8000, 8800),
                  (23, "last", 230, 1200, 8800, 9500)])


THREE = {
    (210, 1): dict(dep_ns=0, dep_on=None, sched_ns=0, ring_ns=0, behind=[]),
    # ring 8000 - 1100 = 6900, all behind 210:1 ([1000, 8000] within
    # [1100, 8000]).
    (220, 1): dict(dep_ns=0, dep_on=None, sched_ns=0, ring_ns=6900,
                   behind=[dict(pid=21, comm="long", ns=6900)]),
    # ring 8800 - 1200 = 7600: 210:1 gives 8000 - 1200 = 6800, 220:1
    # 8800 - 8000 = 800: most first.
    (230, 1): dict(dep_ns=0, dep_on=None, sched_ns=0, ring_ns=7600,
                   behind=[dict(pid=21, comm="long", ns=6800),
                           dict(pid=22, comm="short", ns=800)]),
}

THREE_PROCS = {
    21: [],
    22: [dict(pid=21, comm="long", ns=6900)],
    23: [dict(pid=21, comm="long", ns=6800),
         dict(pid=22, comm="short", ns=800)],
}


def overlap():
    """A ring that runs two jobs at once: "ovA" (pid 41) runs [1000, 5000],
    "ovB" (pid 42) [3000, 7000]; "ovV" (pid 43), committed at 2000, starts
    at 7000."""
    return ring0([(41, "ovA", 410, 1000, 1000, 5000),
                  (42, "ovB", 420, 2500, 3000, 7000),
                  (43, "ovV", 430, 2000, 7000, 8000)])


OVERLAP = {
    (410, 1): dict(dep_ns=0, dep_on=None, sched_ns=0, ring_ns=0, behind=[]),
    # ring 3000 - 2500 = 500, 410:1 running all of it.
    (420, 1): dict(dep_ns=0, dep_on=None, sched_ns=0, ring_ns=500,
                   behind=[dict(pid=41, comm="ovA", ns=500)]),
    # ring 7000 - 2000 = 5000.  [3000, 5000] both ran: it goes to 420:1,
    # which ended last, once: ovB 7000 - 3000 = 4000, ovA 3000 - 2000 =
    # 1000; together the 5000 of the wait, not 4000 + 3000.
    (430, 1): dict(dep_ns=0, dep_on=None, sched_ns=0, ring_ns=5000,
                   behind=[dict(pid=42, comm="ovB", ns=4000),
                           dict(pid=41, comm="ovA", ns=1000)]),
}


class Raw:
    """A bare stream, as it is."""

    def __init__(self, fn):
        self.fn = fn

    def data(self):
        return self.fn()


def keyreuse():
    """200:1 (comp, ring 1) waits for 100:1 of game (ring 0), whose END is
    at 5000; later (SUBMIT 7000, after 200:1 started at 5100) the key
    100:1 names another job, of other, on ring 1, which ends last."""
    t = T()
    t.task(10, "game")
    t.task(20, "comp")
    t.task(30, "other")
    # (ts, event, ctx, ring, SUBMIT's pid or a wait's fence)
    for ts, name, ctx, ring, x in (
            (1000, "submit", 100, 0, 10), (1100, "commit", 100, 0, None),
            (2000, "submit", 200, 1, 20),
            (2100, "sync_wait_enter", 200, 1, (100, 1)),
            (5000, "end", 100, 0, None), (5000, "complete", 100, 0, None),
            (5010, "sync_wait_exit", 200, 1, (100, 1)),
            (5100, "commit", 200, 1, None), (6000, "end", 200, 1, None),
            (6000, "complete", 200, 1, None),
            (7000, "submit", 100, 1, 30),
            (7000, "sync_wait_enter", 100, 1, (555, 9)),
            (8000, "sync_wait_exit", 100, 1, (555, 9)),
            (8100, "commit", 100, 1, None), (9000, "end", 100, 1, None),
            (9000, "complete", 100, 1, None)):
        if name == "submit":
            t.ev(ts, name, ctx, 1, ring, pid=x)
        elif x:
            t.ev(ts, name, ctx, 1, ring, aux0=x[0], aux1=x[1])
        else:
            t.ev(ts, name, ctx, 1, ring)
    return t


def twoparts():
    """Part 1: 200:1 (ring 1) waits for 100:1 (ring 0, END 5000).  Part 2,
    a later boot: another 100:1, unrelated, which the path must not
    take for the first."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    for ts, name, ctx, ring in ((1000, "submit", 100, 0),
                                (1100, "commit", 100, 0),
                                (2000, "submit", 200, 1),
                                (2100, "sync_wait_enter", 200, 1),
                                (5000, "end", 100, 0),
                                (5000, "complete", 100, 0),
                                (5010, "sync_wait_exit", 200, 1),
                                (5100, "commit", 200, 1),
                                (6000, "end", 200, 1),
                                (6000, "complete", 200, 1)):
        kw = dict(aux0=100, aux1=1) if "wait" in name else {}
        t.ev(ts, name, ctx, 1, ring, GFX if ring == 0 else COPY, **kw)
    return t.chunks() + lone_job(300, (("submit", 300), ("commit", 400),
                                       ("end", 900), ("complete", 900)))


# grtrace_sampling's threshold mode writes a slow job as one JOB_SUMMARY
# at its COMPLETE.  hog (70:1) runs 1200 .. 51200 on ring 0; victim's
# 80:1, committed at 2100, starts when it ends: 49.1 us behind hog.
HOG = ((70, 71, "hog", (1000, 1100, 1200, 51200, 51300)),
       (80, 81, "victim", (2000, 2100, 51200, 52500, 52600)))


def summarised():
    """hog's and victim's jobs, each as a JOB_SUMMARY."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    for ctx, pid, _, ts in HOG:
        # events SUBMIT..COMPLETE (bits 1..5), none derived, reason
        # GRTRACE_SUMMARY_SLOW (1), no waits; threshold 5 us.
        t.summary(ts[4], ctx, 1, 0, GFX, 0x3e, 0, 1, pid, pid, 0, ts, 0,
                  5000)
    return t.trace_file([(p, p, n, n) for _, p, n, _ in HOG])


def unsummarised():
    """The same two jobs, event by event."""
    t = T()
    evs = []
    for ctx, pid, name, ts in HOG:
        t.task(pid, name)
        evs += [(x, w, ctx, pid) for x, w in zip(
            ts, ("submit", "commit", "start", "end", "complete"))]
    for x, w, ctx, pid in sorted(evs, key=lambda e: (e[0], e[1] != "end")):
        t.ev(x, w, ctx, 1, 0, pid=pid)
    return t


def nine():
    """Nine processes (h1..h9, pids 101..109) each run one 1 us job on
    ring 0, back to back from 1000; victim (pid 200), committed at 1000,
    starts at 10000, after all nine: 8 named, the ninth's 1000 ns as
    other."""
    return ring0([(101 + i, "h%d" % (i + 1), 1010 + 10 * i, 1000,
                   1000 + 1000 * i, 2000 + 1000 * i) for i in range(9)] +
                 [(200, "victim", 2000, 1000, 10000, 11000)])


SCENARIOS = dict(crossdep=(crossdep, CROSSDEP), shared=(shared, SHARED),
                 early=(early, EARLY), chain=(chain, CHAIN),
                 reboot=(lambda: Raw(reboot), REBOOT),
                 nocommit=(nocommit, NOCOMMIT), three=(three, THREE),
                 overlap=(overlap, OVERLAP), keyreuse=(keyreuse, None),
                 twoparts=(lambda: Raw(twoparts), None),
                 summarised=(lambda: Raw(summarised), None),
                 unsummarised=(unsummarised, None), nine=(nine, None))


class Checker:
    def __init__(self, tool, d):
        self.tool = tool
        self.dir = d
        self.failed = 0

    def run(self, name, args):
        p = subprocess.run([self.tool, "report", "-i",
                            "%s/%s.grtrace" % (self.dir, name)] + args,
                           capture_output=True, text=True)
        if p.returncode:
            raise AssertionError("exit %d: %s" % (p.returncode,
                                                  p.stderr.strip()))
        return p.stdout

    def json(self, name, args=()):
        return json.loads(self.run(name, ["--format", "json"] + list(args)))

    def check(self, name, fn):
        try:
            fn()
            print("ok %s" % name)
        except (AssertionError, ValueError, KeyError, IndexError,
                TypeError, OSError) as e:
            self.failed = 1
            print("not ok %s" % name)
            for line in str(e).splitlines() or ["(no message)"]:
                print("# %s" % line)


def expect(what, got, want):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def check_jobs(c, name, want):
    doc = c.json(name, ["--why"])
    got = {(j["ctx"], j["seqno"]): j for j in doc["jobs"]}
    expect("%s: jobs" % name, sorted(got), sorted(want))
    for key, w in want.items():
        j = got[key]
        why = j["why"]
        for k, v in w.items():
            expect("%s %d:%d why.%s" % (name, key[0], key[1], k), why[k], v)
        # The three parts add up to the wait: start - SUBMIT.
        expect("%s %d:%d parts" % (name, key[0], key[1]),
               why["dep_ns"] + why["sched_ns"] + why["ring_ns"],
               j["start_ts"] - j["submit_ts"])
    return doc


def check_plain_unchanged(c):
    """Without --why no job object has "why"."""
    doc = c.json("crossdep")
    for j in doc["jobs"]:
        expect("no why without --why", "why" in j, False)


def check_early(c):
    doc = check_jobs(c, "early", EARLY)
    s = doc["summary"]
    # The EXIT after 600:1's COMPLETE makes no job of its own.
    expect("early: jobs", s["jobs"], 2)
    expect("early: jobs_incomplete", s["jobs_incomplete"], 0)
    expect("early: late_wait_exits", s["late_wait_exits"], 1)
    # The same without --why: the bug was in the plain report.
    s = c.json("early")["summary"]
    expect("early (plain): jobs", s["jobs"], 2)
    expect("early (plain): jobs_incomplete", s["jobs_incomplete"], 0)


def check_procs(c):
    doc = c.json("shared", ["--why", "--per-process"])
    got = {p["pid"]: p["waited_behind"] for p in doc["processes"]}
    expect("shared: waited_behind", got, SHARED_PROCS)
    out = c.run("shared", ["--why", "--per-process", "--format", "csv"])
    rows = {int(r["pid"]): r for r in csv.DictReader(io.StringIO(out))
            if r.get("pid")}
    expect("shared csv: 40 waited_behind", rows[40]["waited_behind"],
           "flood/30:19010")
    expect("shared csv: 40 waited_behind_rings",
           rows[40]["waited_behind_rings"], "flood/30@0:19010")
    # Without --why the process objects have no waited_behind.
    doc = c.json("shared", ["--per-process"])
    expect("shared: no waited_behind without --why",
           any("waited_behind" in p for p in doc["processes"]), False)


def check_sorted(c):
    """behind and waited_behind: most ns first, whatever the ring's
    order."""
    check_jobs(c, "three", THREE)
    doc = c.json("three", ["--why", "--per-process"])
    got = {p["pid"]: p["waited_behind"] for p in doc["processes"]}
    # Per ring, each holder's ns add up to its total.
    for pid, wb in got.items():
        for e in wb:
            expect("three: %d behind %d: its rings add up" % (pid, e["pid"]),
                   sum(r["ns"] for r in e.pop("rings")), e["ns"])
    expect("three: waited_behind", got, THREE_PROCS)


def check_overlap(c):
    """Jobs running at once on a ring: each ns of a wait goes to one
    process, so "behind" never adds up to more than the wait."""
    doc = check_jobs(c, "overlap", OVERLAP)
    for j in doc["jobs"]:
        why = j["why"]
        got = sum(b["ns"] for b in why["behind"]) + why["behind_other_ns"]
        if got > why["sched_ns"] + why["ring_ns"]:
            raise AssertionError("overlap %d:%d: behind %d ns > the wait's %d"
                                 % (j["ctx"], j["seqno"], got,
                                    why["sched_ns"] + why["ring_ns"]))


def check_text(c):
    out = c.run("crossdep", ["--why"])
    # 200:1's row: dep 7 us on 100:1 of game on ring 0, sched 0.6 us.
    line = [x for x in out.splitlines() if x.startswith("200:1 ")]
    expect("crossdep text rows of 200:1", len(line), 1)
    want = "why: dep 7.000 (on 100:1 ring 0 game/10) sched 0.600 ring 0.000"
    if want not in line[0]:
        raise AssertionError("crossdep text: %r not in %r" % (want, line[0]))
    out = c.run("shared", ["--why", "--per-process"])
    # victim waited 19010 ns = 19.0 us behind flood, all on ring 0.
    i = out.index("process 40 victim")
    part = out[i:].split("\nprocess ")[0]
    if "flood/30" not in part or "ring 0: 19.0 us" not in part:
        raise AssertionError("shared text: victim's waited behind:\n" + part)


def check_csv(c):
    out = c.run("shared", ["--why", "--format", "csv"])
    rows = {(int(r["ctx"]), int(r["seqno"])): r
            for r in csv.DictReader(io.StringIO(out))}
    r = rows[(400, 1)]
    expect("csv 400:1 why_sched_ns", r["why_sched_ns"], "10000")
    expect("csv 400:1 why_ring_ns", r["why_ring_ns"], "9010")
    expect("csv 400:1 why_dep_on", r["why_dep_on"], "")
    expect("csv 400:1 why_behind", r["why_behind"], "flood/30:19010")
    out = c.run("chain", ["--why", "--format", "csv"])
    rows = {(int(r["ctx"]), int(r["seqno"])): r
            for r in csv.DictReader(io.StringIO(out))}
    expect("csv 900:1 why_dep_on", rows[(900, 1)]["why_dep_on"], "800:1")
    expect("csv 900:1 why_dep_ring", rows[(900, 1)]["why_dep_ring"], "0")
    expect("csv 900:1 why_dep_process", rows[(900, 1)]["why_dep_process"],
           "mid/80")
    # 800:1 waited on a fence whose job is not in the trace: no ring.
    expect("csv 800:1 why_dep_ring", rows[(800, 1)]["why_dep_ring"], "")
    expect("csv 800:1 why_dep_process", rows[(800, 1)]["why_dep_process"],
           "")


def check_critical(c):
    doc = c.json("chain", ["--critical-path", "900:1"])
    expect("chain: one path", len(doc["critical_paths"]), 1)
    expect("chain: hops", doc["critical_paths"][0]["hops"], CHAIN_PATH)
    expect("chain: cut", doc["critical_paths"][0]["cut"], False)
    # As the report prints them: decimal with a leading zero (not octal),
    # hexadecimal after 0x.
    for arg in ("0900:01", "0x384:0x1"):
        expect("chain: --critical-path %s" % arg,
               c.json("chain", ["--critical-path", arg]), doc)
    out = c.run("chain", ["--critical-path", "900:1"])
    if "700:1  not in the trace" not in out:
        raise AssertionError("chain text: no 'not in the trace' hop:\n" + out)
    for want in ("mid/80  held 900:1 up 6.000 us; waited 4.200 us",
                 "held 800:1 up 4.000 us; the path stops here"):
        if want not in out:
            raise AssertionError("chain text: %r not in:\n%s" % (want, out))
    # slowest: each process's slowest job: mid's 800:1 (t_total 7000),
    # last's 900:1 (7000): two paths, 800:1's two hops long.
    doc = c.json("chain", ["--critical-path", "slowest"])
    firsts = sorted((p["hops"][0]["ctx"], len(p["hops"]))
                    for p in doc["critical_paths"])
    expect("chain slowest: starts and lengths", firsts, [(800, 2), (900, 3)])


def check_reboot_path(c):
    """The path from the second part's 200:1 stops at 100:1: the first
    part's 100:1 is another job."""
    doc = c.json("reboot", ["--critical-path", "200:1"])
    expect("reboot path", doc["critical_paths"][0]["hops"],
           [dict(ctx=200, seqno=1, caused_ns=None, in_trace=True, ring=1,
                 pid=None, comm=None, dep_ns=1700, sched_ns=100, ring_ns=0),
            dict(ctx=100, seqno=1, caused_ns=1700, in_trace=False)])


def check_key_reuse(c):
    """200:1 waited for the 100:1 that ended at 5000 (game's, ring 0),
    not for the later job of that key (other's, submitted at 7000, after
    200:1 started), nor is the first part's 100:1 lost when a later part
    reuses its key: the path named the newest job of the key."""
    for name in ("keyreuse", "twoparts"):
        hops = c.json(name, ["--critical-path", "200:1"])[
            "critical_paths"][0]["hops"]
        expect("%s: hops" % name, [(h["ctx"], h["in_trace"], h.get("ring"))
                                   for h in hops],
               [(200, True, 1), (100, True, 0)])
        expect("%s: 100:1 held 200:1 up" % name, hops[1]["caused_ns"], 3000)
    hops = c.json("keyreuse", ["--critical-path", "200:1"])[
        "critical_paths"][0]["hops"]
    expect("keyreuse: the dependency's process", hops[1]["comm"], "game")


def check_filtered_path(c):
    """--ring 1 leaves out ring 0's jobs from the rows, not from the
    path: crossdep's 200:1 (ring 1) waited for 100:1 on ring 0."""
    doc = c.json("crossdep", ["--ring", "1", "--critical-path", "200:1"])
    hops = doc["critical_paths"][0]["hops"]
    expect("crossdep --ring 1: hops", [(h["ctx"], h["in_trace"])
                                       for h in hops],
           [(200, True), (100, True)])
    expect("crossdep --ring 1: rows", sorted(j["ring"] for j in doc["jobs"]),
           [1] * len(doc["jobs"]))


def check_summarised(c):
    """A job told as a JOB_SUMMARY is in its ring's history like one told
    event by event: victim waited 49.2 us behind hog either way (it was
    "nobody" from the summaries)."""
    got = []
    for name in ("summarised", "unsummarised"):
        doc = c.json(name, ["--why"])
        why = {j["ctx"]: j["why"] for j in doc["jobs"]}
        got.append((why[80]["ring_ns"], why[80]["behind"]))
    expect("victim's ring wait and behind, summaries against events",
           got[0], got[1])
    expect("victim behind hog", got[0][1],
           [dict(pid=71, comm="hog", ns=49200)])


def exported(c, name, args):
    """Scenario @name exported with @args, decoded against the subset of
    Perfetto's schema: an export_check.Export."""
    import export_check as ex
    out = os.path.join(c.dir, "%s.pftrace" % name)
    p = subprocess.run([c.tool, "export", "-i",
                        "%s/%s.grtrace" % (c.dir, name), "-o", out] + args,
                       capture_output=True, text=True)
    expect("export exit (%s)" % p.stderr.strip(), p.returncode, 0)
    with open(out, "rb") as f:
        dec = subprocess.run(["protoc", "--decode=perfetto.protos.Trace",
                              "-I", HERE,
                              os.path.join(HERE, "perfetto_subset.proto")],
                             stdin=f, capture_output=True, text=True)
    expect("protoc exit (%s)" % dec.stderr.strip(), dec.returncode, 0)
    return ex.Export(ex.parse_text(dec.stdout).get("packet", []))


def check_export_other(c):
    """A wait behind more processes than the eight named: the export's
    why_behind ends in other:NS, as CSV's column does (it had no other)."""
    import export_check as ex
    x = exported(c, "nine", ["--why"])
    behind = [ex.one(a, "string_value") for e in x.events
              if ex.one(e, "name") == "2000:1" and
              ex.one(e, "type") == "TYPE_SLICE_BEGIN"
              for a in e.get("debug_annotations", [])
              if ex.one(a, "name") == "why_behind"]
    rows = list(csv.DictReader(io.StringIO(
        c.run("nine", ["--format", "csv", "--why"]))))
    col = [r["why_behind"] for r in rows if r["ctx"] == "2000"]
    expect("victim's why_behind: export against CSV", behind, col)
    if not col or not col[0].endswith("|other:1000"):
        raise AssertionError("no other:1000 in %r" % col)


def check_procs_other(c):
    """--per-process: a job's wait behind the processes past the eight it
    names counts in its process's waited_behind, as one entry "other",
    last (it counted nowhere)."""
    doc = c.json("nine", ["--why", "--per-process"])
    wb = [p["waited_behind"] for p in doc["processes"] if p["pid"] == 200]
    expect("nine: victim's waited_behind total", sum(b["ns"] for b in wb[0]),
           9000)
    expect("nine: its last entry", wb[0][-1],
           {"pid": None, "comm": None, "other": True, "ns": 1000,
            "rings": [{"ring": 0, "ns": 1000}]})
    out = c.run("nine", ["--why", "--per-process", "--format", "csv"])
    rows = {int(r["pid"]): r for r in csv.DictReader(io.StringIO(out))
            if r.get("pid")}
    expect("nine csv: waited_behind", rows[200]["waited_behind"],
           "|".join("h%d/%d:1000" % (i, 100 + i) for i in range(1, 9)) +
           "|other:1000")
    if not rows[200]["waited_behind_rings"].endswith("|other@0:1000"):
        raise AssertionError("nine csv: waited_behind_rings %r" %
                             rows[200]["waited_behind_rings"])
    text = c.run("nine", ["--why", "--per-process"])
    part = text[text.index("process 200 victim"):]
    if not re.search(r"h8/108 +1000 ns  ring 0: 1000 ns\n +other +1000 ns  "
                     r"ring 0: 1000 ns\n", part):
        raise AssertionError("nine text: no other row after h8:\n" + part)


def check_usage(c):
    for arg in ["900", "x:1", "900:", "900:1x", "-1:1"]:
        p = subprocess.run([c.tool, "report", "-i",
                            "%s/chain.grtrace" % c.dir, "--critical-path",
                            arg], capture_output=True, text=True)
        expect("--critical-path %s exit" % arg, p.returncode, 2)
        # One line naming the problem (then the usual pointer to --help).
        if "--critical-path" not in p.stderr.splitlines()[0]:
            raise AssertionError("--critical-path %s: %r" % (arg, p.stderr))


def check_export(c):
    """export --why --critical-path: the job slices' args, and a track per
    hop of the path with the hop's wait as a slice."""
    import export_check as ex
    x = exported(c, "chain", ["--why", "--critical-path", "900:1"])
    crit = x.track("critical path")
    expect("critical path tracks", x.children(crit),
           ["path 1 hop 1", "path 1 hop 2",
            "path 1 hop 3: 700:1 not in the trace, the path stops"])
    # Each hop's wait, SUBMIT to start: 900:1 [2000, 8300], 800:1
    # [1000, 5200]; 700:1 is not in the trace: no slice.
    expect("hop 1", x.slices(x.track("path 1 hop 1", crit)),
           [("900:1 waited", 2000, 8300, 0)])
    expect("hop 2", x.slices(x.track("path 1 hop 2", crit)),
           [("800:1 waited", 1000, 5200, 0)])
    expect("hop 3", x.slices(x.track(
        "path 1 hop 3: 700:1 not in the trace, the path stops", crit)), [])
    # 800:1's slice: the 6000 ns it held 900:1 up.
    hop2 = [e for e in x.events
            if ex.one(e, "name") == "800:1 waited" and
            ex.one(e, "type") == "TYPE_SLICE_BEGIN"]
    expect("hop 2 slices", len(hop2), 1)
    args = {ex.one(a, "name"): ex.one(a, "uint_value")
            for a in hop2[0].get("debug_annotations", [])}
    expect("hop 2 why_caused_ns", args.get("why_caused_ns"), 6000)
    # The job slice 900:1 carries its why as args.
    notes = {}
    for e in x.events:
        if ex.one(e, "name") == "900:1" and \
                ex.one(e, "type") == "TYPE_SLICE_BEGIN":
            for a in e.get("debug_annotations", []):
                notes[ex.one(a, "name")] = ex.one(a, "uint_value",
                                                  ex.one(a, "string_value"))
    for k, v in dict(why_dep_ns=6000, why_sched_ns=300, why_ring_ns=0,
                     why_dep_on="800:1", why_dep_ring=0,
                     why_dep_process="mid/80").items():
        expect("900:1 slice arg %s" % k, notes.get(k), v)


CHECKS = [
    ("why: a dependency on another process's job on another ring, timed "
     "from its END", lambda c: check_jobs(c, "crossdep", CROSSDEP)),
    ("why: two processes on one ring, one with long jobs",
     lambda c: check_jobs(c, "shared", SHARED)),
    ("why: a dependency signalled before the SUBMIT; its late EXIT is no "
     "job", check_early),
    ("why: a dependency whose job is not in the trace",
     lambda c: check_jobs(c, "chain", CHAIN)),
    ("why: a later boot's jobs do not wait on the first part's",
     lambda c: check_jobs(c, "reboot", REBOOT)),
    ("why: without a COMMIT the time after the dependencies is ring_ns",
     lambda c: check_jobs(c, "nocommit", NOCOMMIT)),
    ("why: behind and waited_behind sorted by ns, most first",
     check_sorted),
    ("why: jobs running at once on a ring: behind counts each ns once",
     check_overlap),
    ("why: no why without --why", check_plain_unchanged),
    ("why: --per-process waited_behind", check_procs),
    ("why: --per-process waited_behind counts the processes past 8 as other",
     check_procs_other),
    ("why: text rows and the interference table", check_text),
    ("why: CSV columns", check_csv),
    ("why: --critical-path stops at a job not in the trace", check_critical),
    ("why: --critical-path bad values are usage errors", check_usage),
    ("why: --critical-path does not cross into another part's job",
     check_reboot_path),
    ("why: export --why --critical-path: slice args and the path's tracks",
     check_export),
    ("why: --critical-path takes the job of a reused key that was waited "
     "for, in its own part", check_key_reuse),
    ("why: --critical-path goes through jobs a filter leaves out",
     check_filtered_path),
    ("why: jobs told as JOB_SUMMARY records are in the ring's history",
     check_summarised),
    ("why: export's why_behind names the processes past eight as other, "
     "as CSV", check_export_other),
]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, d = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    for name, (fn, _) in SCENARIOS.items():
        with open("%s/%s.grtrace" % (d, name), "wb") as f:
            f.write(fn().data())
    c = Checker(tool, d)
    for name, fn in CHECKS:
        c.check(name, lambda: fn(c))
    return c.failed


if __name__ == "__main__":
    sys.exit(main())
