#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Golden traces for "grtrace report", and the checks of its output.

The traces are written with the encoder of golden/gen_golden.py (from the
stream format of Documentation/gpu/grtrace.rst, independently of the C
code), and every expected value below was worked out by hand from the
timestamps (the comments show the arithmetic).  Usage:

    report_golden.py gen DIR             write DIR/<scenario>.bin
    report_golden.py check GRTRACE DIR   run GRTRACE report on them and print
                                         one "ok NAME" / "not ok NAME" per check
"""

import csv
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The encoder is the golden vectors' generator, written from the document
# (no __pycache__ beside the golden vectors).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "testing", "selftests",
                                "grtrace", "golden"))
from gen_golden import Trace, GFX, COPY  # noqa: E402,F401

RINGS = [(0, GFX, 0, b"testdrv", b"0000:00:02.0", b"gfx0"),
         (1, COPY, 0, b"testdrv", b"0000:00:02.0", b"sdma0")]


def basic():
    """Two in-order rings; a derived start, a dependency wait, a preemption,
    an error, a job without SUBMIT and one never completed."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    g = lambda ts, n, s, **k: t.ev(ts, n, 100, s, 0, GFX, cpu=s % 2, **k)
    c = lambda ts, n, ctx, s, **k: t.ev(ts, n, ctx, s, 1, COPY, cpu=1, **k)
    g(1000, "submit", 1)
    g(1500, "submit", 2)
    g(2000, "commit", 1)
    g(2500, "commit", 2)
    g(3000, "start", 1)
    g(3000, "submit", 3)
    g(4000, "commit", 3)
    c(5000, "submit", 200, 1)
    c(5100, "sync_wait_enter", 200, 1, aux0=100, aux1=3)
    c(6000, "submit", 200, 2)
    t.ev(8000, "ctx_switch", 101, 0, 0, GFX, aux0=100)
    g(13000, "end", 1)
    g(13000, "start", 2)
    g(14000, "complete", 1)
    g(20000, "end", 2)
    g(21000, "complete", 2)
    g(30000, "end", 3)               # no START: derived
    c(30000, "sync_wait_exit", 200, 1, aux0=100, aux1=3)
    g(30500, "complete", 3)
    c(30100, "commit", 200, 1)
    c(30200, "start", 200, 1)
    c(31200, "end", 200, 1)
    c(31300, "complete", 200, 1)
    c(31500, "commit", 200, 2)
    c(31600, "start", 200, 2)
    c(40000, "error", 200, 2, aux0=-62)
    c(41600, "end", 200, 2)
    c(41700, "complete", 200, 2)
    c(42000, "commit", 300, 7)       # no SUBMIT
    c(42100, "start", 300, 7)
    c(43100, "end", 300, 7)
    c(43200, "complete", 300, 7)
    g(44000, "submit", 4)            # never ends
    g(44500, "commit", 4)
    g(45000, "start", 4)
    t.ev(50000, "irq", 0, 0, 0, GFX, aux0=1)
    return t


# The window is 1000 .. 50000: 49000 ns.  (submit, commit, start, end,
# complete) and the metrics of each job of basic():
BASIC_JOBS = {
    # 100:1: 1000 2000 3000 13000 14000; preempted at 8000
    (100, 1): dict(ring=0, t_submit_host=1000, t_queue=1000, t_exec=10000,
                   t_gpu_wait=0, t_complete=1000, t_total=13000,
                   start_derived=False, queue_depth=1, preempts=1,
                   error=None, label="slow_exec|preempted"),
    # 100:2: 1500 2500 13000 20000 21000
    (100, 2): dict(ring=0, t_submit_host=1000, t_queue=10500, t_exec=7000,
                   t_gpu_wait=0, t_complete=1000, t_total=19500,
                   start_derived=False, queue_depth=2, label="long_queue"),
    # 100:3: 3000 4000 (max(4000, END 20000) = 20000) 30000 30500
    (100, 3): dict(ring=0, t_submit_host=1000, t_queue=16000, t_exec=10000,
                   t_gpu_wait=0, t_complete=500, t_total=27500,
                   start_derived=True, start_ts=20000, queue_depth=3,
                   label="long_queue|slow_exec"),
    # 200:1: 5000 30100 30200 31200 31300; waited 5100 .. 30000
    (200, 1): dict(ring=1, ring_name="sdma0", engine="copy",
                   t_submit_host=25100, t_queue=100, t_exec=1000,
                   t_gpu_wait=24900, t_complete=100, t_total=26300,
                   queue_depth=1, label="dependency_wait"),
    # 200:2: 6000 31500 31600 41600 41700; ERROR -62 at 40000
    (200, 2): dict(ring=1, t_submit_host=25500, t_queue=100, t_exec=10000,
                   t_gpu_wait=0, t_complete=100, t_total=35700, error=-62,
                   label="slow_exec|error"),
    # 300:7: - 42000 42100 43100 43200
    (300, 7): dict(ring=1, t_submit_host=None, submit_ts=None, t_queue=100,
                   t_exec=1000, t_complete=100, t_total=1200, label=""),
    # 100:4: 44000 44500 45000 - -
    (100, 4): dict(ring=0, ring_name="gfx0", engine="gfx", t_submit_host=500,
                   t_queue=500, t_exec=None, t_complete=None, t_total=None,
                   end_ts=None, complete_ts=None, label=""),
}

BASIC_RULES = ["--long-queue-us", "5", "--slow-exec-us", "9",
               "--dep-wait-us", "10"]

BASIC_RINGS = {
    0: dict(ring_name="gfx0", engine="gfx", driver="testdrv", jobs=4,
            window_ns=49000,
            # [3000,13000] + [13000,20000] + [20000,30000], and 100:4
            # started at 45000 and never ended: busy until 50000
            busy_ns=32000, busy_pct=65.306,
            # 500x1 + 1500x2 + 9000x3 + 7000x2 + 10000x1 + 5500x1 = 60000
            depth_avg=1.224, depth_max=3,
            t_submit_host_count=4, t_submit_host_p50=1000,
            t_submit_host_max=1000,
            # sorted 500 1000 10500 16000: ranks 2, 4, 4
            t_queue_p50=1000, t_queue_p90=16000, t_queue_p99=16000,
            t_queue_max=16000,
            # sorted 7000 10000 10000
            t_exec_count=3, t_exec_p50=10000, t_exec_p90=10000,
            t_total_p50=19500, t_total_p90=27500, t_total_max=27500,
            long_queue_pct=50.0, slow_exec_pct=50.0, preempted_pct=25.0,
            error_pct=0.0, pct_exact=True, bottleneck=None),
    1: dict(ring_name="sdma0", engine="copy", jobs=3,
            # 1000 + 10000 + 1000
            busy_ns=12000, busy_pct=24.490,
            # 1100 + 10100 + 1100 = 12300
            depth_avg=0.251, depth_max=1,
            t_exec_p50=1000, t_exec_p90=10000, t_gpu_wait_max=24900,
            error_pct=33.333, dependency_wait_pct=33.333),
}


def pct():
    """100 jobs on one ring, t_exec 1..100 us in a scrambled order."""
    t = Trace()
    t.stream_info(0)
    t.metadata(0, RINGS[:1])
    ts = 100
    for k in range(100):
        ex = ((k * 37) % 100 + 1) * 1000
        for name, at in (("submit", 0), ("commit", 10), ("start", 20),
                         ("end", 20 + ex), ("complete", 30 + ex)):
            t.ev(ts + at, name, 7, k + 1, 0, GFX, cpu=k % 2)
        ts += 100 + ex
    return t


def sketch():
    """5000 jobs: beyond the exact percentiles, t_exec 1..5000 us."""
    t = Trace()
    t.stream_info(0)
    t.metadata(0, RINGS[:1])
    ts = 100
    for k in range(5000):
        ex = (k + 1) * 1000
        t.ev(ts, "commit", 7, k + 1, 0, GFX, cpu=k % 2)
        t.ev(ts + 10, "start", 7, k + 1, 0, GFX, cpu=k % 2)
        t.ev(ts + 10 + ex, "end", 7, k + 1, 0, GFX, cpu=k % 2)
        t.ev(ts + 20 + ex, "complete", 7, k + 1, 0, GFX, cpu=k % 2)
        ts += 100 + ex
    return t


def gaps():
    """Lost records (gseq 4..6 missing) and a seqno wrap of context 500."""
    t = Trace()
    t.stream_info(0)
    t.metadata(0, RINGS[:1])
    t.ev(10, "submit", 500, 0xFFFFFFF0, 0, GFX)
    t.ev(20, "complete", 500, 0xFFFFFFF0, 0, GFX)
    t.ev(30, "submit", 500, 5, 0, GFX, cpu=1)
    t.recs[-1][4] = 7
    t.ev(40, "complete", 500, 5, 0, GFX, cpu=1)
    t.recs[-1][4] = 8
    return t


def future():
    """Version 3 (a later one keeping format 1's header): a longer SUBMIT
    and an unknown record type, both skipped over by size; the job is
    still whole."""
    t = Trace(version=3)
    t.stream_info(0)
    t.metadata(0, RINGS[:1])
    t.ev(100, "submit", 9, 1, 0, GFX, trailing=b"\x01" * 16)
    t.unknown(150, 0x200, 48)
    for name, ts in (("commit", 200), ("start", 300), ("end", 400),
                     ("complete", 500)):
        t.ev(ts, name, 9, 1, 0, GFX)
    return t


def newring():
    """16 rings known from their jobs, then a context switch on a 17th
    ring: the first event of a ring that grows the report's ring table."""
    t = Trace()
    t.stream_info(0)
    for ring in range(16):
        t.ev(10 + ring, "submit", 600 + ring, 1, ring, GFX)
    t.ev(100, "ctx_switch", 700, 0, 16, COPY, aux0=701)
    for name, ts in (("submit", 200), ("commit", 300), ("end", 400),
                     ("complete", 500)):
        t.ev(ts, name, 700, 1, 16, COPY)
    return t


def endfirst():
    """END before START: a START read after its job's END, a ring without
    START whose ENDs are read out of order, and an END with nothing before
    it."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    t.ev(1000, "submit", 10, 1, 0, GFX)
    t.ev(2000, "commit", 10, 1, 0, GFX)
    t.ev(6000, "end", 10, 1, 0, GFX, cpu=1)
    t.ev(3000, "start", 10, 1, 0, GFX)         # after END: ignored
    t.ev(6500, "complete", 10, 1, 0, GFX)
    c = lambda ts, n, s, **k: t.ev(ts, n, 20, s, 1, COPY, **k)
    c(10000, "commit", 1)
    c(10100, "commit", 2)
    c(10200, "commit", 3)
    c(12000, "end", 2, cpu=1)
    c(11000, "end", 1)                       # before the END read first
    c(13000, "end", 3, cpu=1)
    c(11100, "complete", 1)
    c(12100, "complete", 2, cpu=1)
    c(13100, "complete", 3, cpu=1)
    t.ev(16000, "end", 30, 1, 1, COPY)         # nothing before it
    t.ev(16100, "complete", 30, 1, 1, COPY)
    return t


# (submit, commit, start, end, complete) and the metrics of endfirst():
ENDFIRST_JOBS = {
    # 1000 2000 (START 3000 ignored: derived max(2000, no END) = 2000)
    # 6000 6500
    (10, 1): dict(start_ts=2000, start_derived=True, t_submit_host=1000,
                  t_queue=0, t_exec=4000, t_complete=500, t_total=5500),
    # - 10000 (max(10000, END 12000 read before) > its END 11000: none)
    # 11000 11100
    (20, 1): dict(start_ts=None, start_derived=False, t_queue=None,
                  t_exec=None, t_complete=100, t_total=1100),
    # - 10100 (max(10100, no END) = 10100) 12000 12100
    (20, 2): dict(start_ts=10100, start_derived=True, t_queue=0,
                  t_exec=1900, t_complete=100, t_total=2000),
    # - 10200 (max(10200, 12000) = 12000) 13000 13100
    (20, 3): dict(start_ts=12000, start_derived=True, t_queue=1800,
                  t_exec=1000, t_complete=100, t_total=2900),
    # - - - 16000 16100
    (30, 1): dict(start_ts=None, t_queue=None, t_exec=None, t_complete=100,
                  t_total=None),
}


def waits():
    """Dependency waits: two at once, overlapping ones and a separate one,
    and an EXIT without its ENTER."""
    t = Trace()
    t.stream_info(900)
    t.metadata(900, RINGS)
    w = lambda ts, n, s, dep, **k: t.ev(ts, n, 40, s, 0, GFX, aux0=100,
                                         aux1=dep, **k)
    j = lambda ts, n, s, **k: t.ev(ts, n, 40, s, 0, GFX, **k)
    j(900, "submit", 1)
    w(1000, "sync_wait_enter", 1, 1)
    w(1000, "sync_wait_enter", 1, 2, cpu=1)
    j(1500, "submit", 2)
    w(2000, "sync_wait_enter", 2, 3)
    w(5000, "sync_wait_enter", 2, 4, cpu=1)
    w(8000, "sync_wait_exit", 2, 3)
    w(9000, "sync_wait_exit", 2, 4, cpu=1)
    w(10000, "sync_wait_enter", 2, 5)
    w(10500, "sync_wait_exit", 2, 5)
    w(11000, "sync_wait_exit", 1, 1)
    w(11000, "sync_wait_exit", 1, 2, cpu=1)
    j(11050, "commit", 1)
    j(11100, "start", 1)
    j(11900, "end", 1)
    j(12000, "complete", 1)
    j(12000, "commit", 2)
    j(12100, "start", 2)
    j(12500, "end", 2)
    j(12600, "complete", 2)
    j(13000, "submit", 3)
    w(13500, "sync_wait_exit", 3, 6)           # its ENTER was never seen
    j(14000, "commit", 3)
    j(14100, "start", 3)
    j(14500, "end", 3)
    j(14600, "complete", 3)
    return t


# t_gpu_wait is the time a job had a wait open: the union of its waits.
WAITS_JOBS = {
    # [1000, 11000] twice at once: 10000 (their sum, 20000, would exceed
    # t_total = 12000 - 900 = 11100)
    (40, 1): dict(t_gpu_wait=10000, t_total=11100),
    # [2000, 8000] and [5000, 9000]: [2000, 9000] = 7000; then
    # [10000, 10500]: 500; 7500 (the sum would be 10500)
    (40, 2): dict(t_gpu_wait=7500, t_total=11100),
    # an EXIT alone: unknown
    (40, 3): dict(t_gpu_wait=None, t_total=1600),
}


def check_waits(c):
    expect_jobs(c.json("waits", []), [(40, 1), (40, 2), (40, 3)], WAITS_JOBS)


def selfwait():
    """i915's request waits: SYNC_WAIT_ENTER/EXIT on the job with its own
    fence in aux0:aux1, a CPU thread waiting for the job to finish, not a
    dependency.  Job 41:1 is waited on from 2000 to 9000; job 41:2 waits
    on 41:1 (a dependency) from 3000 to 4000 and is waited on itself."""
    t = Trace()
    t.stream_info(900)
    t.metadata(900, RINGS)
    j = lambda ts, n, s, **k: t.ev(ts, n, 41, s, 0, GFX, **k)
    j(1000, "submit", 1)
    j(1000, "commit", 1)
    j(1500, "submit", 2)
    j(2000, "sync_wait_enter", 1, aux0=41, aux1=1)
    j(3000, "sync_wait_enter", 2, aux0=41, aux1=1)
    j(3500, "sync_wait_enter", 2, aux0=41, aux1=2)
    j(4000, "sync_wait_exit", 2, aux0=41, aux1=1)
    j(4000, "commit", 2)
    j(8000, "complete", 1)
    j(9000, "sync_wait_exit", 1, aux0=41, aux1=1)
    j(9500, "complete", 2)
    j(9600, "sync_wait_exit", 2, aux0=41, aux1=2)
    return t


# A wait on the job's own key is no dependency: not in t_gpu_wait, not
# labelled dependency_wait; the summary counts such waits.
SELFWAIT_JOBS = {
    (41, 1): dict(t_gpu_wait=0, label=""),
    (41, 2): dict(t_gpu_wait=1000, label="dependency_wait"),
}


def check_selfwait(c):
    doc = c.json("selfwait", ["--dep-wait-us", "0"])
    expect_jobs(doc, [(41, 1), (41, 2)], SELFWAIT_JOBS)
    expect_fields("selfwait", doc["summary"], dict(self_waits=2))
    rc, out, err = c.run("selfwait", [])
    want = ("waits:    2 waits on a job's own fence (a CPU thread waiting "
            "for it, as i915 reports them): not dependency waits, not in "
            "t_gpu_wait")
    if want not in out.splitlines():
        raise AssertionError("no waits line:\n" + out)


def keyreuse():
    """A ctx:seqno used again: after its job completed (50:7), after a job
    whose COMPLETE never came (51:3), and by two jobs at once (52:1)."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    life = (("submit", 0), ("commit", 100), ("start", 200), ("end", 1200),
            ("complete", 1300))
    for at in (1000, 3000):
        for name, dt in life:
            t.ev(at + dt, name, 50, 7, 0, GFX, cpu=at // 1000 % 2)
    for name, dt in life[:4]:
        t.ev(5000 + dt, name, 51, 3, 0, GFX)
    for name, dt in life:
        t.ev(7000 + dt, name, 51, 3, 0, GFX)
    # A and B interleaved; the events cannot say whose they are.
    for ts, name in ((10000, "submit"), (10100, "commit"), (10200, "submit"),
                     (10300, "start"), (10400, "commit"), (11300, "end"),
                     (11400, "complete"), (11500, "start"), (12500, "end"),
                     (12600, "complete")):
        t.ev(ts, name, 52, 1, 0, GFX)
    return t


# Rows of keyreuse() in the order they finish, with what each holds.
KEYREUSE_ROWS = [
    # 1000 1100 1200 2200 2300
    ((50, 7), dict(submit_ts=1000, t_exec=1000, t_total=1300)),
    # 3000 3100 3200 4200 4300: the key again, a job of its own
    ((50, 7), dict(submit_ts=3000, t_exec=1000, t_total=1300)),
    # 5000 5100 5200 6200 -, closed by the next SUBMIT of 51:3
    ((51, 3), dict(submit_ts=5000, t_queue=100, t_exec=1000,
                   t_complete=None, t_total=1200, complete_ts=None)),
    # 7000 7100 7200 8200 8300
    ((51, 3), dict(submit_ts=7000, t_queue=100, t_exec=1000,
                   t_complete=100, t_total=1300)),
    # A's 10000 10100, closed by B's SUBMIT
    ((52, 1), dict(submit_ts=10000, commit_ts=10100, start_ts=None,
                   t_submit_host=100, t_total=None)),
    # B's 10200 10400, A's START 10300 (before B's COMMIT: t_queue NA),
    # END 11300, COMPLETE 11400
    ((52, 1), dict(submit_ts=10200, commit_ts=10400, start_ts=10300,
                   t_submit_host=200, t_queue=None, t_exec=1000,
                   t_complete=100, t_total=1200)),
    # B's START 11500 END 12500 COMPLETE 12600, a job of its own
    ((52, 1), dict(submit_ts=None, commit_ts=None, start_ts=11500,
                   t_exec=1000, t_complete=100, t_total=1100)),
]


def session(sid, t0, ctx, si_cpu, gap_after=None, cpus=(0, 1)):
    """One recording: two jobs whose events alternate between @cpus, a
    third committed that never ends, and an IRQ at t0 + 4000, the last
    record.  Two records are lost after job @gap_after."""
    t = Trace()
    t.stream_info(t0, session=sid, cpu=si_cpu)
    t.metadata(t0, RINGS, cpu=si_cpu)
    for k in (1, 2):
        for i, (name, dt) in enumerate((("submit", 0), ("commit", 100),
                                        ("start", 200), ("end", 700),
                                        ("complete", 800))):
            t.ev(t0 + 1000 * k + dt, name, ctx, k, 0, GFX,
                 cpu=cpus[(i + k) % 2])
        if k == gap_after:
            t.ev(0, "irq", 0, 0, 0, GFX)    # lost: its gseq stays unused
            t.ev(0, "irq", 0, 0, 0, GFX)
    t.ev(t0 + 3000, "submit", ctx, 3, 0, GFX, cpu=cpus[0])
    t.ev(t0 + 3100, "commit", ctx, 3, 0, GFX, cpu=cpus[1])
    t.ev(t0 + 4000, "irq", 0, 0, 0, GFX, cpu=cpus[0], aux0=1)
    return t


def lose(t, ts):
    """Drop the records stamped @ts, keeping the gseqs the rest had."""
    for g, r in enumerate(t.recs):
        r[4] = g
    t.recs = [r for r in t.recs if r[2] != ts]
    return t


def sessions():
    """Two recordings joined: session 3 of one module load, then session 1
    of another (a later boot: the same fence context numbers), its gseq
    from 0 again and 2 records lost.  The second one's STREAM_INFO is on
    CPU 0, so the first of its chunks in the file (CPU 1's) comes before
    it: its gseq and cseq falling back tell."""
    a = session(3, 1000, 60, 0).chunks()
    b = lose(session(1, 100000, 60, 0, gap_after=1), 0).chunks()
    return a + b


def sessions_si():
    """The same, but the two loads share no CPU: the STREAM_INFO tells."""
    a = session(3, 1000, 60, 0, cpus=(0, 0)).chunks()
    b = lose(session(1, 100000, 60, 1, gap_after=1, cpus=(1, 1)), 0).chunks()
    return a + b


def reboot():
    """Two recordings joined, the second from a later boot whose clock is
    below the first's end: the ENDs of the first part must not hold back
    the derived starts of the second."""
    parts = []
    for t0, ctx in ((5000, 90), (300, 91)):
        t = Trace()
        t.stream_info(t0)
        t.metadata(t0, RINGS)
        for name, dt in (("commit", 0), ("end", 1000), ("complete", 1100)):
            t.ev(t0 + dt, name, ctx, 1, 1, COPY)
        parts.append(t.chunks())
    return b"".join(parts)


# Part one: 60:1 2000 2100 2200 2700 2800, 60:2 3000 .. 3800, 60:3
# submitted 4000, committed 4100, open at the restart; part two: 60:1,
# 60:2 and 60:3 again, the same at 101000, 102000 and 103000.
SESSIONS_JOBS = [((60, 1), 800), ((60, 2), 800), ((60, 3), None),
                 ((60, 1), 800), ((60, 2), 800), ((60, 3), None)]


def skew():
    """Clock skew: an END stamped before its COMMIT, an END before its
    START, and CPU 1's clock 1.5 us behind for a job."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    t.ev(5000, "commit", 80, 1, 1, COPY)
    t.ev(4600, "end", 80, 1, 1, COPY, cpu=1)     # 400 below 5000
    t.ev(5200, "complete", 80, 1, 1, COPY, cpu=1)
    t.ev(6000, "submit", 81, 1, 0, GFX)
    t.ev(6100, "commit", 81, 1, 0, GFX)
    t.ev(6300, "start", 81, 1, 0, GFX)
    t.ev(6200, "end", 81, 1, 0, GFX, cpu=1)      # 100 below 6300
    t.ev(6400, "complete", 81, 1, 0, GFX, cpu=1)
    t.ev(7000, "submit", 82, 1, 0, GFX)
    t.ev(5600, "submit", 83, 1, 1, COPY, cpu=1)  # 1400 below 7000
    for ts, name in ((7100, "commit"), (7200, "start"), (8200, "end"),
                     (8300, "complete")):
        t.ev(ts, name, 82, 1, 0, GFX)
    t.ev(6700, "commit", 83, 1, 1, COPY, cpu=1)  # 1600 below 8300
    t.ev(7700, "end", 83, 1, 1, COPY, cpu=1)     # 600 below
    t.ev(7800, "complete", 83, 1, 1, COPY, cpu=1)  # 500 below
    return t


def clockapart():
    """CPU 1's clock 2 ms behind CPU 0's: steps back that long are
    warned about (shorter ones are routine and only counted)."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    t.ev(3000000, "submit", 90, 1, 0, GFX)
    t.ev(3000100, "commit", 90, 1, 0, GFX)
    t.ev(1000200, "end", 90, 1, 0, GFX, cpu=1)       # 1999900 below
    t.ev(1000300, "complete", 90, 1, 0, GFX, cpu=1)  # 1999800 below
    return t


SKEW_JOBS = {
    # - 5000 (max(5000, no END) = 5000 > END 4600: none) 4600 5200
    (80, 1): dict(start_ts=None, start_derived=False, t_queue=None,
                  t_exec=None, t_complete=600, t_total=200),
    # 6000 6100 6300 6200 6400: END before START, t_exec NA
    (81, 1): dict(t_submit_host=100, t_queue=200, t_exec=None,
                  t_complete=200, t_total=400),
    # 7000 7100 7200 8200 8300
    (82, 1): dict(t_submit_host=100, t_queue=100, t_exec=1000,
                  t_complete=100, t_total=1300),
    # 5600 6700 (max(6700, END 4600) = 6700) 7700 7800
    (83, 1): dict(start_ts=6700, start_derived=True, t_submit_host=1100,
                  t_queue=0, t_exec=1000, t_complete=100, t_total=2200),
}

def hung():
    """A ring hangs: one job starts at 300 ns and never ends, 18 more
    are committed behind it; the other ring runs jobs until 10 s."""
    t = Trace()
    t.stream_info(100)
    t.metadata(100, RINGS)
    j = lambda ts, n, s, **k: t.ev(ts, n, 70, s, 0, GFX, **k)
    c = lambda ts, n, s, **k: t.ev(ts, n, 71, s, 1, COPY, **k)
    j(200, "submit", 1)
    j(250, "commit", 1)
    j(300, "start", 1)
    for s in range(2, 20):
        j(1000 * s, "submit", s)
        j(1000 * s + 100, "commit", s, cpu=s % 2)
    for s in range(1, 11):
        at = s * 1000000000
        c(at - 500000, "submit", s)
        c(at - 400000, "commit", s)
        c(at - 300000, "start", s, cpu=1)
        c(at - 100000, "end", s, cpu=1)
        c(at, "complete", s)
    return t


def derived():
    """Events an adapter wrote from one tracepoint hit (DERIVED): a
    virtio-gpu job whose COMMIT came with its SUBMIT and COMPLETE with its
    END, then a job whose zero intervals were measured."""
    D = 1                       # GRTRACE_HDR_DERIVED
    t = Trace()
    t.stream_info(1000, features=15)
    t.metadata(1000, RINGS)
    t.ev(1000, "submit", 200, 1, 0, GFX)
    t.ev(1000, "commit", 200, 1, 0, GFX, flags=D)
    t.ev(5000, "end", 200, 1, 0, GFX)
    t.ev(5000, "complete", 200, 1, 0, GFX, flags=D)
    for ts, name in ((6000, "submit"), (6000, "commit"), (6100, "start"),
                     (7000, "end"), (7000, "complete")):
        t.ev(ts, name, 201, 1, 0, GFX)
    return t


def check_derived(c):
    doc = c.json("derived", ["--per-ring"])
    expect_jobs(doc, [(200, 1), (201, 1)], {
        # 1000 1000(D) - 5000 5000(D); start derived from COMMIT
        (200, 1): dict(t_submit_host=None, t_queue=0, t_exec=4000,
                       t_complete=None, t_total=4000, start_derived=True,
                       derived="commit|complete"),
        # 6000 6000 6100 7000 7000: zeros that were measured
        (201, 1): dict(t_submit_host=0, t_queue=100, t_exec=900,
                       t_complete=0, t_total=1000, start_derived=False,
                       derived=None)})
    expect_fields("summary", doc["summary"], dict(
        derived_t_submit_host=1, derived_t_queue=0, derived_t_exec=0,
        derived_t_complete=1, inconsistent_metrics=0))
    rc, out, err = c.run("derived", [])
    lines = [l for l in out.splitlines() if l.startswith("derived:")]
    expect("derived line", lines, [
        "derived:  1 t_submit_host, 1 t_complete NA: both events written "
        "from one tracepoint hit (flagged DERIVED), the time between them "
        "not measured"])
    row = [l for l in out.splitlines() if l.startswith("200:1 ")]
    expect("200:1 text row shows derived twice",
           len(row) == 1 and row[0].split().count("derived"), 2)


def completefirst():
    """COMPLETE read before its job's END: the END on another CPU, stamped
    earlier (300:1); an END that never comes (300:2); an END stamped after
    its COMPLETE (300:3)."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    j = lambda ts, n, s, **k: t.ev(ts, n, 300, s, 0, GFX, **k)
    for ts, name in ((1000, "submit"), (1100, "commit"), (1200, "start"),
                     (2300, "complete")):
        j(ts, name, 1)
    j(2200, "end", 1, cpu=1)
    for ts, name in ((3000, "submit"), (3100, "commit"), (3200, "start"),
                     (3300, "complete")):
        j(ts, name, 2)
    for ts, name in ((5000000, "submit"), (5000100, "commit"),
                     (5000200, "start"), (5001200, "end"),
                     (5001300, "complete")):
        t.ev(ts, name, 301, 1, 1, COPY)
    for ts, name in ((6000000, "submit"), (6000100, "commit"),
                     (6000200, "start"), (6000300, "complete"),
                     (6000500, "end")):
        j(ts, name, 3)
    return t


def check_completefirst(c):
    doc = c.json("completefirst", ["--per-ring"])
    # Rows in the order they finish: 300:2 once the input is 1 ms past
    # its COMPLETE (at 301:1's SUBMIT), 300:3 at its END.
    expect_jobs(doc, [(300, 1), (300, 2), (301, 1), (300, 3)], {
        # 1000 1100 1200 2200 2300: one job
        (300, 1): dict(t_submit_host=100, t_queue=100, t_exec=1000,
                       t_complete=100, t_total=1300, end_ts=2200),
        # 3000 3100 3200 - 3300
        (300, 2): dict(t_queue=100, t_exec=None, t_complete=None,
                       t_total=300, end_ts=None, complete_ts=3300),
        (301, 1): dict(t_exec=1000, t_complete=100, t_total=1300),
        # 6000000 .. 200, COMPLETE 300 before END 500: t_complete NA
        (300, 3): dict(t_exec=300, t_complete=None, t_total=300,
                       end_ts=6000500)})
    expect_fields("summary", doc["summary"], dict(
        jobs=4, jobs_incomplete=1, complete_before_end=2,
        complete_without_end=1, inconsistent_metrics=1, rings_hung=0))
    rings = {r["ring"]: r for r in doc["rings"]}
    # [1200, 2200] and [6000200, 6000500]; 300:2 ran, its END unknown
    expect("ring 0 busy", rings[0]["busy_ns"], 1300)
    expect_warnings(c, "completefirst", [
        "1 metrics left NA: an event came before the one it follows",
        "2 COMPLETE events were read before their job's END: each END joined its job (one row)"])


def fold():
    """One long job over 70 short disjoint ones on its ring, its END read
    after theirs: more intervals than a group keeps at first."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    for ts, name in ((1000, "submit"), (1000, "commit"), (1000, "start")):
        t.ev(ts, name, 400, 1, 0, GFX)
    for k in range(1, 71):
        at = 1000 + 1400 * k
        for ts, name in ((at, "submit"), (at, "commit"), (at, "start"),
                         (at + 500, "end"), (at + 600, "complete")):
            t.ev(ts, name, 401, k, 0, GFX, cpu=k % 2)
    t.ev(101000, "end", 400, 1, 0, GFX)
    t.ev(101100, "complete", 400, 1, 0, GFX)
    return t


def check_fold(c):
    doc = c.json("fold", ["--per-ring", "--per-ctx"])
    # [1000, 101000] covers the 70 short jobs: 100,000 ns
    expect("ring 0 busy", doc["rings"][0]["busy_ns"], 100000)
    ctxs = {x["ctx"]: x for x in doc["ctxs"]}
    # 400: [1000, 101000]; 401: 70 x 500 ns, disjoint
    expect("ctx busy", (ctxs[400]["busy_ns"], ctxs[401]["busy_ns"]),
           (100000, 35000))


def cursor():
    """A ring whose jobs never end (virtio-gpu's cursor queue: SUBMIT and
    COMMIT only), 16400 of them, beside a ring whose one job starts and
    never ends."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    t.ev(1500, "submit", 501, 1, 1, COPY)
    t.ev(1600, "commit", 501, 1, 1, COPY)
    t.ev(1700, "start", 501, 1, 1, COPY)
    for k in range(16400):
        t.ev(2000 + 100 * k, "submit", 500, k + 1, 0, GFX)
        t.ev(2050 + 100 * k, "commit", 500, k + 1, 0, GFX)
    return t


def check_cursor(c):
    doc = c.json("cursor", ["--per-ring", "--limit", "0"])
    # 16384 kept on ring 0; each COMMIT past that closes the oldest: 16
    # of 500; open at most: 16384 committed on ring 0, one submitted, 501:1
    expect_fields("summary", doc["summary"], dict(
        jobs=16401, jobs_incomplete=16401, jobs_closed_early=16,
        open_max=16386, rings_hung=0))
    rings = {r["ring"]: r for r in doc["rings"]}
    expect("ring 0 depth_max", rings[0]["depth_max"], 16384)
    expect("ring 1 busy", rings[1]["busy_ns"], 2000 + 100 * 16399 + 50 - 1700)
    w = [x for x in text_warnings(c, "cursor") if "closed early" in x]
    expect("warning", w, ["warning:  ring 0 gfx0: 16 jobs closed early: more than 16384 committed and none ever ended (its adapter writes no END?)"])
    doc = c.json("cursor", ["--max-open", "100", "--limit", "0"])
    expect_fields("--max-open 100", doc["summary"], dict(
        jobs=16401, jobs_closed_early=16301, open_max=100))


def burst():
    """Ring 0 runs ten queued jobs of 500 ms back to back for 5 s, then
    idles; the trace ends at 6 s with an IRQ on ring 1."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    ms = 1000000

    def queued(ctx, ring, engine, n):
        """@n jobs committed at once, then run back to back, 500 ms each."""
        for k in range(n):
            t.ev(1000 + k, "submit", ctx, k + 1, ring, engine)
            t.ev(1000 + k, "commit", ctx, k + 1, ring, engine)
        for k in range(n):
            at = 1000 + 500 * ms * k
            t.ev(at, "start", ctx, k + 1, ring, engine)
            t.ev(at + 500 * ms, "end", ctx, k + 1, ring, engine)
            t.ev(at + 500 * ms + 100, "complete", ctx, k + 1, ring, engine)
    queued(600, 0, GFX, 10)
    # Ring 1: four queued jobs of 500 ms, then one of 1 ms at 5.9 s.
    queued(601, 1, COPY, 4)
    for ts, name in ((5900 * ms, "submit"), (5900 * ms, "commit"),
                     (5900 * ms + 1000, "start"), (5901 * ms + 1000, "end"),
                     (5901 * ms + 1100, "complete")):
        t.ev(ts, name, 601, 5, 1, COPY)
    t.ev(1000 + 6000 * ms, "irq", 0, 0, 1, COPY)
    t.recs.sort(key=lambda r: r[2])
    return t


def check_burst(c):
    s = 1000000000
    doc = c.json("burst", ["--per-ring"])
    r = doc["rings"][0]
    # Busy [1000, 5 s + 1000] of the window [1000, 6 s + 1000]
    expect_fields("ring 0", r, dict(busy_ns=5 * s, active_ns=5 * s,
                                    busy_active_pct=100.0,
                                    saturated_ns=5 * s))
    expect("ring 0 busy_pct", r["busy_pct"], 500 / 6.0, 1e-3)
    # p90 t_queue: job 9's, 4 s - 8 ns; p90 t_exec 500 ms
    expect("hint", r["bottleneck"],
           "ring 0 gfx0 is saturated over its active 5000.00 ms (0 ns .. "
           "5000.00 ms): busy 100.00% of it, 83.33% of the window, and jobs "
           "queue for it (p90 t_queue 4000.00 ms vs p90 t_exec 500.00 ms)")
    # Judged by intervals alone (its active window is not one of them):
    # 0 .. 5 s saturated, then 5 .. 6 s idle.
    r = c.json("burst", ["--per-ring", "--interval", "6s"])["rings"][0]
    expect("--interval 6s saturated_ns", r["saturated_ns"], 0)
    rc, out, err = c.run("burst", ["--per-ring", "--interval", "6s"])
    expect("--interval 6s hint", [l for l in out.splitlines()
                                  if l.startswith("  queueing: ring 0")],
           ["  queueing: ring 0 gfx0: jobs wait longer than they run (p90 "
            "t_queue 4000.00 ms vs p90 t_exec 500.00 ms) though it is "
            "saturated in no 6000.00 ms interval (busy 83.33% of the window): "
            "work arrives in bursts"])
    # Ring 1: busy 2.001 s of an active 5.901 s, saturated 0 .. 2 s only.
    r = c.json("burst", ["--per-ring"])["rings"][1]
    expect_fields("ring 1", r, dict(busy_ns=2001000000,
                                    active_ns=5901000000,
                                    saturated_ns=2 * s))
    # p90 t_queue: 601:4's, 1.5 s - 3 ns; p90 t_exec 500 ms
    expect("ring 1 hint", r["bottleneck"],
           "ring 1 sdma0 is saturated in 0 ns .. 2000.00 ms: busy 90% or "
           "more of each 100.00 ms interval there, 33.35% of the window, "
           "and jobs queue for it (p90 t_queue 1500.00 ms vs p90 t_exec "
           "500.00 ms)")
    # The same with --until 5s: the window is the 5 s it ran.
    r = c.json("burst", ["--per-ring", "--until", "5s"])["rings"][0]
    expect("--until 5s saturated_ns", r["saturated_ns"], 5 * s)
    # --interval 1s: a timeline of six intervals
    doc = c.json("burst", ["--per-ring", "--interval", "1s"])
    expect("timeline", doc["timeline"], dict(
        interval_ns=s, rings=[
            dict(ring=0, ring_name="gfx0", busy_ns=[s] * 5 + [0]),
            dict(ring=1, ring_name="sdma0",
                 busy_ns=[s, s, 0, 0, 0, 1000000])]))
    rc, out, err = c.run("burst", ["--per-ring", "--interval", "500ms",
                                   "--limit", "0"])
    tl = [l for l in out.splitlines() if l.startswith("          0 ns")]
    expect("text timeline", tl, ["  %12s  ##########00" % "0 ns",
                                 "  %12s  ####00000000" % "0 ns"])
    rc, out, err = c.run("burst", ["--since", "7s", "--format", "json"])
    expect("--since past the end", (rc, err), (0, "grtrace: report: --since 7000.00 ms is past the end of the trace (its last record is 6000.00 ms after its first): no job selected\n"))
    rc, out, err = c.run("burst", ["--since", "5s", "--limit", "0"])
    expect("--since within", (rc, err), (0, ""))
    rc, out, err = c.run("burst", ["--interval", "1s"])
    expect("--interval without --per-ring refused", (rc, err.splitlines()[0]),
           (2, "grtrace: report: --interval is per ring: it needs --per-ring"))
    rc, out, err = c.run("burst", ["--per-ring", "--interval", "100ns"])
    expect("--interval 100ns refused", (rc, err.splitlines()[0]), (
        2, "grtrace: report: --interval must be 1us or more, not '100ns'"))


def blip():
    """Ring 0 works 200 ms of a 10 s trace, saturated then; ring 1 runs a
    job of 10 ms every 100 ms throughout."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    ms = 1000000
    for k, (s, e) in enumerate(((5000, 5100), (5100, 5200))):
        t.ev(5000 * ms, "submit", 700, k + 1, 0, GFX)
        t.ev(5000 * ms, "commit", 700, k + 1, 0, GFX)
        t.ev(s * ms, "start", 700, k + 1, 0, GFX)
        t.ev(e * ms, "end", 700, k + 1, 0, GFX)
        t.ev(e * ms + 100, "complete", 700, k + 1, 0, GFX)
    for k in range(100):
        for ts, name in ((0, "submit"), (0, "commit"), (0, "start"),
                         (10 * ms, "end"), (10 * ms + 100, "complete")):
            t.ev(1000 + 100 * ms * k + ts, name, 701, k + 1, 1, COPY)
    t.ev(1000 + 10000 * ms, "irq", 0, 0, 1, COPY)
    t.recs.sort(key=lambda r: r[2])
    return t


def check_blip(c):
    rings = {r["ring"]: r for r in c.json("blip", ["--per-ring"])["rings"]}
    # 200 ms of 10 s saturated: 2 % of the window, a burst, no bottleneck
    expect("ring 0", (rings[0]["busy_ns"], rings[0]["active_ns"],
                      rings[0]["saturated_ns"]),
           (200000000, 200000000, 200000000))
    expect("ring 0 bottleneck", rings[0]["bottleneck"], None)
    expect("ring 0 hint", rings[0]["queueing"],
           "ring 0 gfx0 was saturated only briefly over its active 200.00 ms "
           "(5000.00 ms .. 5200.00 ms): busy 100.00% of it, 2.00% of the "
           "window: a burst")
    expect("ring 1", (rings[1]["busy_pct"], rings[1]["saturated_ns"],
                      rings[1]["bottleneck"]), (10.0, 0, None))
    rc, out, err = c.run("blip", ["--per-ring", "--limit", "0"])
    expect("no bottleneck line", [l for l in out.splitlines()
                                  if l.startswith("  bottleneck:")], [])


def summary_trace():
    """grtrace_sampling's threshold mode (threshold 5000 ns): job 60:1
    written event by event, job 61:1 in one JOB_SUMMARY (slow), job 61:2
    given up open (SUBMIT and COMMIT only) after its ERROR was written,
    its END and COMPLETE then written as events (the mode turned off)."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)
    for ts, name in ((1000, "submit"), (1100, "commit"), (1200, "start"),
                     (1700, "end"), (1800, "complete")):
        t.ev(ts, name, 60, 1, 0, GFX)
    t.ev(14000, "error", 61, 2, 0, GFX, aux0=-62)
    # ctx seqno ring engine events derived reason pid tid waits ts[5]
    # wait_ns threshold; events: bits 1..5 (SUBMIT .. COMPLETE)
    t.summary(12600, 61, 1, 0, GFX, 0x3e, 0, 1, 77, 78, 2,
              (2000, 2100, 2500, 12500, 12600), 1000, 5000)
    t.summary(20000, 61, 2, 0, GFX, 0x06, 0, 2, 0, 0, 1,
              (3000, 3200, 0, 0, 0), 700, 5000)
    t.ev(21000, "end", 61, 2, 0, GFX)
    t.ev(21100, "complete", 61, 2, 0, GFX)
    return t


# 60:1 1000 1100 1200 1700 1800; 61:1 2000 2100 2500 12500 12600 waited
# 1000 ns; 61:2 3000 3200 (max(3200, END 12500) = 12500) 21000 21100, an
# ERROR, a wait never closed: the summary kept it open for its END.
SUMMARY_JOBS = {
    (60, 1): dict(t_queue=100, t_exec=500, t_gpu_wait=0, t_total=800,
                  pid=None),
    (61, 1): dict(submit_ts=2000, t_submit_host=100, t_queue=400,
                  t_exec=10000, t_gpu_wait=1000, t_complete=100,
                  t_total=10600, pid=77, tid=78, label="slow_exec"),
    (61, 2): dict(submit_ts=3000, t_submit_host=200, t_queue=9300,
                  t_exec=8500, start_derived=True, t_gpu_wait=None,
                  t_complete=100, t_total=18100, error=-62, label="error"),
}


def check_summary(c):
    doc = c.json("summary", ["--slow-exec-us", "9", "--per-ring"])
    expect_jobs(doc, [(60, 1), (61, 1), (61, 2)], SUMMARY_JOBS)
    expect_fields("summary", doc["summary"], dict(
        jobs=3, jobs_incomplete=0, jobs_from_summaries=2, summaries_open=1))
    # [1200, 1700] + [2500, 12500] + [12500, 21000]
    expect("busy", doc["rings"][0]["busy_ns"], 19000)
    rc, out, err = c.run("summary", [])
    want = ("sampled:  2 jobs from summaries (grtrace_sampling, threshold "
            "5000 ns; 1 given up open): the faster jobs were counted in the "
            "kernel, not written; queue depths cover the jobs written event "
            "by event")
    if want not in out.splitlines():
        raise AssertionError("no sampled line:\n" + out)


def check_hung(c):
    doc = c.json("hung", ["--per-ring"])
    rings = {r["ring"]: r for r in doc["rings"]}
    # Ring 0 is busy from its START at 300 ns to the end at 10 s: the
    # window is [100, 10000000000], 9999999900 ns.
    expect_fields("ring 0", rings[0], dict(
        busy_ns=10000000000 - 300,
        hung="ring 0 gfx0 hung: 70:1 running since 200 ns into the trace and never ended, 18 jobs queued behind it"))
    expect("ring 0 busy_pct", rings[0]["busy_pct"],
           100.0 * (10000000000 - 300) / 9999999900, 1e-9)
    # Ring 1: ten jobs of 200 us each.
    expect_fields("ring 1", rings[1], dict(busy_ns=10 * 200000, hung=None))
    expect_fields("summary", doc["summary"], dict(rings_hung=1))
    expect_warnings(c, "hung", [
        "ring 0 gfx0 hung: 70:1 running since 200 ns into the trace and never ended, 18 jobs queued behind it"])
    # Started 9.9999997 s before the end: not hung with --hang-ms 10000,
    # still busy until the end.
    doc = c.json("hung", ["--per-ring", "--hang-ms", "10000"])
    expect_fields("ring 0 --hang-ms 10000", doc["rings"][0], dict(
        busy_ns=10000000000 - 300, hung=None))
    expect_fields("summary --hang-ms 10000", doc["summary"],
                  dict(rings_hung=0))


SCENARIOS = dict(basic=basic, pct=pct, sketch=sketch, gaps=gaps,
                 future=future, newring=newring, endfirst=endfirst,
                 selfwait=selfwait, derived=derived,
                 completefirst=completefirst, fold=fold, cursor=cursor,
                 burst=burst, blip=blip,
                 hung=hung, waits=waits, keyreuse=keyreuse, sessions=sessions,
                 sessions_si=sessions_si, reboot=reboot, skew=skew,
                 clockapart=clockapart, summary=summary_trace)

JOB_COLUMNS = ("ctx seqno ring ring_name engine submit_ts commit_ts start_ts "
               "end_ts complete_ts t_submit_host t_queue t_exec t_gpu_wait "
               "t_complete t_total start_derived derived queue_depth preempts error "
               "label pid tid comm process client_id").split()


def gen(outdir):
    for name, fn in SCENARIOS.items():
        t = fn()
        with open("%s/%s.bin" % (outdir, name), "wb") as f:
            f.write(t if isinstance(t, bytes) else t.chunks())
    # The same trace in gseq order in the file: the report must not differ.
    with open("%s/basic-ordered.bin" % outdir, "wb") as f:
        f.write(basic().chunks(chunk=1000, swap=False))


class Checker:
    def __init__(self, tool, d):
        self.tool = tool
        self.dir = d
        self.failed = 0

    def run(self, scenario, args):
        p = subprocess.run([self.tool, "report", "-i",
                            "%s/%s.bin" % (self.dir, scenario)] + args,
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def json(self, scenario, args):
        rc, out, err = self.run(scenario, ["--format", "json"] + args)
        if rc != 0:
            raise AssertionError("exit %d: %s" % (rc, err.strip()))
        return json.loads(out)

    def check(self, name, fn):
        try:
            fn()
            print("ok %s" % name)
        except (AssertionError, ValueError, KeyError, IndexError,
                TypeError) as e:
            self.failed = 1
            print("not ok %s" % name)
            for line in str(e).splitlines() or ["(no message)"]:
                print("# %s" % line)


def expect(what, got, want, tol=0.0):
    if isinstance(want, float) and got is not None:
        ok = abs(got - want) <= tol + 0.0005
    else:
        ok = got == want and type(got) is type(want)
    if not ok:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def expect_fields(what, obj, want):
    for k, v in want.items():
        expect("%s %s" % (what, k), obj.get(k, "<missing>"), v)


def check_basic_jobs(c):
    doc = c.json("basic", BASIC_RULES)
    expect("jobs", len(doc["jobs"]), len(BASIC_JOBS))
    for j in doc["jobs"]:
        expect("job columns", list(j), JOB_COLUMNS)
        want = BASIC_JOBS[(j["ctx"], j["seqno"])]
        expect_fields("job %d:%d" % (j["ctx"], j["seqno"]), j, want)


def check_basic_summary(c):
    s = c.json("basic", BASIC_RULES)["summary"]
    expect_fields("summary", s, dict(
        records=38, window_start_ns=1000, window_end_ns=50000,
        window_ns=49000, jobs=7, jobs_incomplete=2, lost_records=0,
        gseq_gaps=0, out_of_order_records=0, seqno_wraps=0, error=None))
    expect_fields("events_by_type", s["events_by_type"], dict(
        SUBMIT=6, COMMIT=7, START=6, END=6, COMPLETE=6, CTX_SWITCH=1, IRQ=1,
        SYNC_WAIT_ENTER=1, SYNC_WAIT_EXIT=1, ERROR=1, STREAM_INFO=1,
        METADATA=1, RING=0))


def check_basic_rules(c):
    r = c.json("basic", BASIC_RULES)["rules"]
    expect_fields("rules", r, dict(long_queue_us=5, slow_exec_us=9,
                                   dep_wait_us=10))
    expect_fields("hits", r["hits"], {"long_queue": 2, "slow_exec": 3,
                                      "dependency_wait": 1, "preempted": 1,
                                      "error": 1})


def check_basic_rings(c):
    doc = c.json("basic", BASIC_RULES + ["--per-ring"])
    rings = {r["ring"]: r for r in doc["rings"]}
    expect("rings", sorted(rings), [0, 1])
    for rid, want in BASIC_RINGS.items():
        expect_fields("ring %d" % rid, rings[rid], want)


def check_basic_ctxs(c):
    doc = c.json("basic", BASIC_RULES + ["--per-ctx"])
    ctxs = {x["ctx"]: x for x in doc["ctxs"]}
    expect("ctx jobs", {k: v["jobs"] for k, v in ctxs.items()},
           {100: 4, 200: 2, 300: 1})
    expect_fields("ctx 200", ctxs[200], dict(busy_ns=11000,
                                             t_gpu_wait_max=24900))


def check_rules_file(c):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as f:
        f.write("# thresholds of the basic trace\nlong_queue_us = 5\n\n"
                "slow_exec_us=9\ndep_wait_us=10\n")
        f.flush()
        hits = c.json("basic", ["--rules", f.name])["rules"]["hits"]
        expect("hits from a rules file", hits["slow_exec"], 3)
        # Options win over the file whatever their order.
        hits = c.json("basic", ["--slow-exec-us", "9999", "--rules",
                                f.name])["rules"]["hits"]
        expect("option over file", hits["slow_exec"], 0)


def check_hints(c):
    rings = c.json("basic", BASIC_RULES + ["--per-ring", "--busy-pct", "50"])
    hint = rings["rings"][0]["bottleneck"]
    if not hint or "ring 0 gfx0 is saturated: busy 65.31%" not in hint:
        raise AssertionError("saturation hint: %r" % hint)
    if rings["rings"][1]["bottleneck"] is not None:
        raise AssertionError("ring 1 has a hint: %r" %
                             rings["rings"][1]["bottleneck"])
    # p90 t_queue 16000 >= 1.5 x p90 t_exec 10000
    rings = c.json("basic", ["--per-ring", "--queue-ratio", "1.5"])
    expect("not saturated: no bottleneck", rings["rings"][0]["bottleneck"],
           None)
    hint = rings["rings"][0]["queueing"]
    if not hint or "jobs wait longer than they run" not in hint:
        raise AssertionError("queue hint: %r" % hint)


def check_hist(c):
    # t_total 1200 13000 19500 26300 27500 35700; 35700 < 2^16
    h = c.json("basic", ["--hist", "lat"])["hist"]
    expect("lat bounds", h["bounds"], [0] + [1 << e for e in range(5, 17)])
    expect("lat counts", h["counts"], [0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 3, 1])
    # queue depth at COMMIT: 1 x5, 2, 3
    h = c.json("basic", ["--hist", "size"])["hist"]
    expect("size bounds", h["bounds"], [0] + [1 << e for e in range(0, 12)])
    expect("size counts", h["counts"], [0, 5, 2] + [0] * 9)
    rc, out, err = c.run("basic", ["--hist", "lat"])
    lines = out.splitlines()
    i = [k for k, l in enumerate(lines) if l.startswith("histogram")][0]
    expect("text hist first line", lines[i],
           "histogram of t_total (ns), 12 log2 buckets, bounds: 0 32 64 128 "
           "256 512 1024 2048 4096 8192 16384 32768 65536")
    expect("text hist bar", lines[i + 11].split("|")[1], "#" * 40)
    h = c.json("basic", ["--hist", "result"])["hist"]
    expect("result written", h["written"], 36)
    expect("result lost", h["lost"], 0)
    expect("result dropped", h["dropped"], None)
    if "stats file" not in h["note"]:
        raise AssertionError("result note: %r" % h["note"])


def check_topn_limit(c):
    doc = c.json("basic", ["--topn", "3", "--limit", "2"])
    expect("topn", [(j["ctx"], j["seqno"], j["t_total"]) for j in doc["topn"]],
           [(200, 2, 35700), (100, 3, 27500), (200, 1, 26300)])
    expect("limited rows", len(doc["jobs"]), 2)
    expect("jobs still counted", doc["summary"]["jobs"], 7)


def check_filters(c):
    for args, want in ((["--ring", "1"], 3), (["--ctx", "100"], 4),
                       (["--engine", "copy"], 3), (["--engine", "3"], 3),
                       (["--since", "40000"], 2), (["--until", "5us"], 4),
                       (["--since", "1000", "--until", "5000"], 2)):
        got = c.json("basic", args)["summary"]["jobs"]
        expect("jobs with %s" % " ".join(args), got, want)


def check_csv(c):
    rc, out, err = c.run("basic", BASIC_RULES + ["--format", "csv"])
    rows = list(csv.reader(io.StringIO(out)))
    expect("csv header", rows[0], JOB_COLUMNS)
    expect("csv rows", len(rows), 8)
    byk = {(r[0], r[1]): dict(zip(JOB_COLUMNS, r)) for r in rows[1:]}
    expect_fields("csv 100:3", byk[("100", "3")], dict(
        t_queue="16000", start_derived="1", label="long_queue|slow_exec",
        ring_name="gfx0", error=""))
    expect_fields("csv 300:7", byk[("300", "7")], dict(
        t_submit_host="", submit_ts="", t_total="1200", start_derived="0"))
    rc, out, err = c.run("basic", ["--format", "csv", "--per-ring"])
    rows = list(csv.reader(io.StringIO(out)))
    head = rows[0]
    for col in ("ring", "ring_name", "busy_pct", "depth_avg", "depth_max",
                "t_queue_p50", "t_queue_p90", "t_queue_p99", "t_queue_max",
                "long_queue_pct", "pct_exact", "bottleneck", "queueing"):
        if col not in head:
            raise AssertionError("ring CSV lacks %s: %s" % (col, head))
    expect("ring csv rows", len(rows), 3)
    rc, out, err = c.run("basic", ["--format", "csv", "--per-ring", "--topn",
                                   "1"])
    expect("csv with two tables is refused", rc, 2)


def check_order_independent(c):
    a = c.json("basic", BASIC_RULES + ["--per-ring"])
    b = c.json("basic-ordered", BASIC_RULES + ["--per-ring"])
    a["summary"].pop("input")
    b["summary"].pop("input")
    expect("same report for any chunk order", a, b)


def check_pct(c):
    r = c.json("pct", ["--per-ring"])["rings"][0]
    expect_fields("pct ring", r, dict(
        jobs=100, t_exec_p50=50000, t_exec_p90=90000, t_exec_p99=99000,
        t_exec_max=100000, pct_exact=True))


def check_sketch(c):
    r = c.json("sketch", ["--per-ring", "--limit", "0"])["rings"][0]
    expect("sketch jobs", r["jobs"], 5000)
    expect("sketch exact", r["pct_exact"], False)
    expect("sketch max", r["t_exec_max"], 5000000)
    for p, want in (("p50", 2500000), ("p90", 4500000), ("p99", 4950000)):
        got = r["t_exec_" + p]
        if abs(got - want) > want * 0.008:
            raise AssertionError("sketch %s: got %d, want %d within 0.8%%" %
                                 (p, got, want))


def check_gaps(c):
    s = c.json("gaps", [])["summary"]
    expect_fields("gaps", s, dict(lost_records=3, gseq_gaps=1, seqno_wraps=1,
                                  jobs=2, gseq_first=0, gseq_last=8))
    rc, out, err = c.run("gaps", [])
    if "lost:     3 records in 1 gseq gaps" not in out or \
       "seqno:    1 wraps detected" not in out:
        raise AssertionError("text header:\n" + out)


def check_newring(c):
    doc = c.json("newring", ["--per-ring", "--per-ctx"])
    expect("newring rings", len(doc["rings"]), 17)
    expect("newring jobs", doc["summary"]["jobs"], 17)
    expect("newring ring 16 jobs",
           [r["jobs"] for r in doc["rings"] if r["ring"] == 16], [1])


def check_future(c):
    doc = c.json("future", [])
    expect_fields("future", doc["summary"], dict(
        format_version=3, unknown_records=1, jobs=1, jobs_incomplete=0))
    expect("future job", doc["jobs"][0]["t_total"], 400)
    rc, out, err = c.run("future", [])
    if "stream format version 3 is newer" not in out:
        raise AssertionError("no version warning:\n" + out)


def text_warnings(c, scenario):
    rc, out, err = c.run(scenario, [])
    if rc != 0 or err:
        raise AssertionError("exit %d: %s" % (rc, err.strip()))
    return [l for l in out.splitlines() if l.startswith("warning:")]


def expect_warnings(c, scenario, want):
    expect("%s warnings" % scenario, text_warnings(c, scenario),
           ["warning:  " + w for w in want])


def expect_jobs(doc, keys, table):
    """The report's jobs are @keys in order, each with @table's fields."""
    expect("jobs", [(j["ctx"], j["seqno"]) for j in doc["jobs"]], keys)
    for j in doc["jobs"]:
        expect_fields("job %d:%d" % (j["ctx"], j["seqno"]), j,
                      table[(j["ctx"], j["seqno"])])


def check_endfirst(c):
    doc = c.json("endfirst", [])
    expect_jobs(doc, [(10, 1), (20, 1), (20, 2), (20, 3), (30, 1)],
                ENDFIRST_JOBS)
    # SI MD, 5 of 10:1, 9 of ring 1, 2 of 30:1; ts back at 3000 (6000),
    # 11000 (12000), 11100 and 12100 (13000)
    expect_fields("summary", doc["summary"], dict(
        records=18, jobs=5, jobs_incomplete=4, late_start=1,
        start_not_derived=1, inconsistent_metrics=0, key_reuse=0,
        ts_backwards=4, ts_backwards_max_ns=3000))
    rings = {r["ring"]: r for r in c.json("endfirst", ["--per-ring"])["rings"]}
    # [2000, 6000]; [10100, 12000] + [12000, 13000], nothing from 20:1
    expect("busy", (rings[0]["busy_ns"], rings[1]["busy_ns"]), (4000, 2900))
    # Steps back of 3 us are routine: counted, not warned about.
    expect_warnings(c, "endfirst", [
        "1 jobs ended before their COMMIT or before an earlier END on their ring: no start derived, t_queue and t_exec NA",
        "1 START events after their job's END were ignored: the job keeps the start derived at END, or none"])


def check_keyreuse(c):
    doc = c.json("keyreuse", [])
    expect("rows", [(j["ctx"], j["seqno"]) for j in doc["jobs"]],
           [k for k, _ in KEYREUSE_ROWS])
    for i, (j, (key, want)) in enumerate(zip(doc["jobs"], KEYREUSE_ROWS)):
        expect_fields("row %d (%d:%d)" % (i, key[0], key[1]), j, want)
        for m in ("t_submit_host", "t_queue", "t_exec", "t_complete",
                  "t_total"):
            if j[m] is not None and not 0 <= j[m] < 10000:
                raise AssertionError("row %d: %s %r" % (i, m, j[m]))
    # 51:3 and 52:1 repeated a SUBMIT of an open job; 50:7 came back
    expect_fields("summary", doc["summary"], dict(
        records=31, jobs=7, jobs_incomplete=3, key_reuse=2,
        key_reuse_finished=1, inconsistent_metrics=1, ts_backwards=0))
    expect_warnings(c, "keyreuse", [
        "1 metrics left NA: an event came before the one it follows",
        "2 events repeated one their open job already had: each closed that job and began a new one with its ctx:seqno",
        "1 jobs were submitted with a seqno not above their context's highest: a ctx:seqno reused after its job, each job its own row"])


def check_sessions(c, scenario):
    doc = c.json(scenario, ["--per-ring"])
    got = [((j["ctx"], j["seqno"]), j["t_total"]) for j in doc["jobs"]]
    # 60:3 is closed at the restart, 70:3 at the end
    expect("rows", got, SESSIONS_JOBS)
    for j in doc["jobs"]:
        if j["t_total"] is not None:
            expect_fields("job %d:%d" % (j["ctx"], j["seqno"]), j, dict(
                t_submit_host=100, t_queue=100, t_exec=500, t_complete=100))
    # 15 records a part; the second's gseq 0 .. 16 misses 2
    expect_fields("summary", doc["summary"], dict(
        records=30, jobs=6, jobs_incomplete=2, gseq_restarts=1,
        jobs_closed_at_restart=1, lost_records=2, gseq_gaps=1,
        gseq_first=0, gseq_last=16, out_of_order_records=0,
        key_reuse=0, key_reuse_finished=0, ts_backwards=0,
        window_start_ns=1000, window_end_ns=104000))
    # Committed and not ended: 600 x 4 for the whole jobs, 60:3 from 4100
    # to the first part's end 5000, 70:3 from 103100 to 104000: 4200 ns
    # over 103000.  Busy: 500 x 4.
    expect_fields("ring 0", doc["rings"][0], dict(
        ring=0, jobs=6, depth_avg=0.041, depth_max=1, busy_ns=2000))
    expect_warnings(c, scenario, [
        "gseq restarted 1 times (files of two module loads joined, or a reload): each part merged and its losses counted on its own; 1 jobs open at a restart were closed there"])


def check_reboot(c):
    doc = c.json("reboot", [])
    # 90:1: 5000 (max(5000, no END)) 6000 6100; 91:1: 300 (max(300, no
    # END of this part)) 1300 1400
    expect("rows", [(j["ctx"], j["start_ts"], j["t_exec"], j["t_queue"])
                    for j in doc["jobs"]],
           [(90, 5000, 1000, 0), (91, 300, 1000, 0)])
    # the second part's 5 records are all below 6100
    expect_fields("summary", doc["summary"], dict(
        gseq_restarts=1, jobs_closed_at_restart=0, start_not_derived=0,
        ts_backwards=5, ts_backwards_max_ns=5800, lost_records=0))


def check_skew(c):
    doc = c.json("skew", ["--per-ring"])
    expect_jobs(doc, [(80, 1), (81, 1), (82, 1), (83, 1)], SKEW_JOBS)
    # ts back: 4600, 6200, 5600, 6700 (1600 below 8300), 7700, 7800
    expect_fields("summary", doc["summary"], dict(
        records=19, jobs=4, inconsistent_metrics=1, start_not_derived=1,
        ts_backwards=6, ts_backwards_max_ns=1600, window_start_ns=1000,
        window_end_ns=8300))
    # 81:1 ran backwards and 80:1 has no start: only 82:1 and 83:1 count
    expect("busy", [r["busy_ns"] for r in doc["rings"]], [1000, 1000])
    expect_warnings(c, "skew", [
        "1 metrics left NA: an event came before the one it follows",
        "1 jobs ended before their COMMIT or before an earlier END on their ring: no start derived, t_queue and t_exec NA"])


def check_clockapart(c):
    doc = c.json("clockapart", [])
    # 3000000 3000100 - 1000200 1000300: END below COMMIT, no start;
    # t_total (1000300 - 3000000) negative, so NA.
    expect_fields("job 90:1", doc["jobs"][0], dict(
        t_submit_host=100, start_ts=None, t_queue=None, t_exec=None,
        t_complete=100, t_total=None))
    expect_fields("summary", doc["summary"], dict(
        ts_backwards=2, ts_backwards_max_ns=1999900, inconsistent_metrics=1,
        start_not_derived=1))
    expect_warnings(c, "clockapart", [
        "2 records have a timestamp below one before them in gseq order, by up to 1999900 ns: CPU clocks apart, or stamped just before another CPU's record",
        "1 metrics left NA: an event came before the one it follows",
        "1 jobs ended before their COMMIT or before an earlier END on their ring: no start derived, t_queue and t_exec NA"])


CHECKS = [
    ("report: per-job metrics, derived start, labels (JSON)",
     check_basic_jobs),
    ("report: header counts (JSON summary)", check_basic_summary),
    ("report: rules and their hits", check_basic_rules),
    ("report: --per-ring percentiles, busy %, queue depth", check_basic_rings),
    ("report: --per-ctx", check_basic_ctxs),
    ("report: --rules file, options win", check_rules_file),
    ("report: bottleneck hints", check_hints),
    ("report: --hist lat, size, result", check_hist),
    ("report: --topn and --limit", check_topn_limit),
    ("report: --ring --ctx --engine --since --until", check_filters),
    ("report: CSV columns and NA", check_csv),
    ("report: chunk order does not change the report",
     check_order_independent),
    ("report: exact percentiles", check_pct),
    ("report: percentiles past the exact limit within 0.8%", check_sketch),
    ("report: gseq gaps and seqno wrap", check_gaps),
    ("report: a newer format version is read", check_future),
    ("report: a context switch on a ring not seen before", check_newring),
    ("report: END before START, and an in-order ring's ENDs out of order",
     check_endfirst),
    ("report: t_gpu_wait is the union of a job's waits, NA if unpaired",
     check_waits),
    ("report: a wait on the job's own fence (i915) is no dependency wait",
     check_selfwait),
    ("report: derived events (one tracepoint hit) give NA, not 0 ns",
     check_derived),
    ("report: a COMPLETE read before its END joins it: one row",
     check_completefirst),
    ("report: busy time of a long job over 70 short ones is their union",
     check_fold),
    ("report: jobs that never end are bounded by their ring's queue",
     check_cursor),
    ("report: saturation per interval, not over the whole recording",
     check_burst),
    ("report: a short saturation is a burst, not a bottleneck",
     check_blip),
    ("report: a job that never ended: busy until the end, its ring hung",
     check_hung),
    ("report: a ctx:seqno reused after its job and while it is open",
     check_keyreuse),
    ("report: two recordings joined, gseq restarting (CPU order tells)",
     lambda c: check_sessions(c, "sessions")),
    ("report: two recordings joined, gseq restarting (STREAM_INFO tells)",
     lambda c: check_sessions(c, "sessions_si")),
    ("report: a joined recording from a later boot, its clock lower",
     check_reboot),
    ("report: clock skew within a job and across CPUs", check_skew),
    ("report: CPU clocks 2 ms apart are warned about", check_clockapart),
    ("report: jobs in JOB_SUMMARY records (threshold sampling)",
     check_summary),
]


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(sys.argv[2])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        c = Checker(sys.argv[2], sys.argv[3])
        for name, fn in CHECKS:
            c.check(name, lambda: fn(c))
        return c.failed
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
