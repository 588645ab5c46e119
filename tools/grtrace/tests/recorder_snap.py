#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""recorder_snap.py - a fake flight recorder directory, for the host tests.

Usage: recorder_snap.py DIR FORMAT CAUSE [STATE] [bad=TYPE] [unbalanced] [gaps]
                        [stale] [base=N]

Writes DIR/recorder/info and DIR/recorder/snapshot0 and snapshot1: the
snapshot streams of a session the flight recorder froze, in FORMAT (1, or
2 converted as the module writes it), encoded by gen_golden.py (the
Python oracle of the format, written from the document and the uapi
header, not from the tool's code): this file is only the scenario.
CAUSE is timeout (ring 1, no job named), error (ring 1, job 10:2 named, -62) or
manual (no ring).  STATE (default triggered) goes into info; with
"armed" no snapshot files are written.  bad=trigger or bad=recorder
makes that record 8 bytes short (its size field and its bytes);
"unbalanced" makes CPU 1's RECORDER say dropped 3 (20 != 10 + 8 + 3).

The fresh records are stamped as the module stamps them
(Documentation/gpu/grtrace.rst, "Flight recorder"): STREAM_INFO and
METADATA with the first kept record's time and the two cseqs before it,
RECORDER and TRIGGER with the later of the last kept record's time and
the trigger's, and the cseqs after the last kept record; none has a gseq.
With "gaps" they are stamped as a module could also do without breaking
the format: STREAM_INFO and METADATA with the CPU's cseq at arm, leaving
a gap of the overwritten records before the first kept one, and the
frozen drops taking cseqs before RECORDER; ts and gseq of their own.

The scenario, each CPU's stream in order (ts in us past 1 s):
  CPU 0: STREAM_INFO, METADATA, kept cseq 50..60: job 10:1 (ring 1)
    COMMIT START END COMPLETE, its SUBMIT overwritten; job 10:2 SUBMIT
    COMMIT START, never ended (the hung job); jobs 10:3 and 11:1 SUBMIT
    COMMIT behind it; then RECORDER, TRIGGER.  With "gaps": STREAM_INFO,
    METADATA at cseq 10, 11 (38 overwritten: 12..49), 4 frozen drops
    (61..64), RECORDER 65, TRIGGER 66.
  CPU 1: STREAM_INFO, METADATA, kept cseq 30..34 (job 20:5 on ring 2,
    whole), a real loss of 2 (cseq 35, 36), kept 37..41 (job 20:6,
    whole), RECORDER.  With "gaps": STREAM_INFO, METADATA at 20, 21.
  With "stale", CPU 0 also keeps two jobs of ring 1 that finished but
    look open: 10:0 SUBMIT COMMIT before all the others, its END dropped
    (10:1 after it ended: fences of a context signal in order), and 12:1
    SUBMIT COMMIT, its END dropped, its COMPLETE kept (after 11:1's
    COMMIT); the kept records take the cseqs just before the RECORDER
    (45..60), the overwritten ones are 5 fewer.
  With "base=N", CPU 0's jobs have N added to their seqnos.
Accounting: CPU 0 emitted 53 = kept 11 + overwritten 38 + dropped 4;
CPU 1 emitted 20 = kept 10 + overwritten 8 + dropped 2.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "testing", "selftests", "grtrace",
                                "golden"))
sys.dont_write_bytecode = True
import gen_golden  # noqa: E402

BASE = 1000000000
US = 1000
SUBMIT, COMMIT, START, END, COMPLETE = 1, 2, 3, 4, 5
FEATURES = 0x1f          # GSEQ, CSEQ, RING_REC, DERIVED, CSEQ_LOSS
SESSION = 7


G = gen_golden


def stream_info(cpu, ts, gseq, cseq):
    return G.rec1(0x100, cpu, 0, ts, gseq, cseq,
                  G.stream_info_body(1, G.CLOCK_MONOTONIC, 2, FEATURES,
                                     SESSION))


def ring_desc(ring, engine, name):
    return G.ring_desc(ring, engine, 0, b"vgpu", b"vgpu0", name.encode())


def metadata(cpu, ts, gseq, cseq):
    rings = [ring_desc(1, 1, "gfx"), ring_desc(2, 3, "sdma0")]
    return G.rec1(0x101, cpu, 0, ts, gseq, cseq,
                  G.metadata_body(b"6.1.0-test", rings))


def job(rtype, cpu, ts, gseq, cseq, ctx, seqno, ring):
    engine = 1 if ring == 1 else 3
    return G.rec1(rtype, cpu, 0, ts, gseq, cseq,
                  G.job_body(ctx, seqno, ring, engine))


def recorder(cpu, ts, gseq, cseq, first, last, emitted, kept, over, dropped):
    return G.rec1(0x105, cpu, 0, ts, gseq, cseq,
                  G.recorder_body(cpu, first, last, emitted, kept, over,
                                  dropped, 65536))


def trigger(cpu, ts, gseq, cseq, cause):
    ring, ctx, seqno, err, code = {
        "timeout": (1, 0, 0, 0, 2),
        "error": (1, 10, 2, -62, 3),
        "manual": (0xffffffff, 0, 0, 0, 1),
    }[cause]
    return G.rec1(0x104, cpu, 0, ts, gseq, cseq,
                  G.trigger_body(code, ring, ctx, seqno, err,
                                 BASE + 8050 * US, 3, cpu))


def shorten(rec):
    """The record 8 bytes short, its size field saying so."""
    rec = rec[:-8]
    return rec[:2] + struct.pack("<H", len(rec)) + rec[4:]


# CPU 0's stale jobs: finished, their END dropped.
STALE = [(SUBMIT, 1900, 290, 10, 0), (COMMIT, 1950, 291, 10, 0),
         (SUBMIT, 1960, 292, 12, 1), (COMMIT, 1970, 293, 12, 1),
         (COMPLETE, 3050, 314, 12, 1)]


def cpu0_window(stale):
    """CPU 0's first kept ts, last kept ts, kept and overwritten."""
    if stale:
        return 1900, 3050, 11 + len(STALE), 38 - len(STALE)
    return 2000, 3000, 11, 38


def cpu0(cause, bad, gaps, stale, base):
    t = lambda us: BASE + us * US  # noqa: E731
    first, last, kept, over = cpu0_window(stale)
    jobs = [(COMMIT, 2000, 300, 10, 1), (START, 2100, 302, 10, 1),
            (SUBMIT, 2200, 303, 10, 2), (COMMIT, 2300, 305, 10, 2),
            (END, 2500, 306, 10, 1), (COMPLETE, 2600, 307, 10, 1),
            (START, 2600, 308, 10, 2), (SUBMIT, 2700, 309, 10, 3),
            (COMMIT, 2800, 311, 10, 3), (SUBMIT, 2900, 312, 11, 1),
            (COMMIT, 3000, 313, 11, 1)]
    if stale:
        jobs = sorted(jobs + STALE, key=lambda r: r[1])
    cseq = 61 - len(jobs)
    if gaps:
        out = stream_info(0, t(first), 100, 10) + metadata(0, t(first), 101, 11)
        end = (t(8050), 400, 65, t(8000), 401, 66)
    else:
        out = (stream_info(0, t(first), 0, cseq - 2) +
               metadata(0, t(first), 0, cseq - 1))
        end = (t(8000), 0, 61, t(8000), 0, 62)
    for k, (ty, us, gs, ctx, seqno) in enumerate(jobs):
        out += job(ty, 0, t(us), gs, cseq + k, ctx, seqno + base, 1)
    rec = recorder(0, end[0], end[1], end[2], t(first), t(last), 53, kept,
                   over, 4)
    trg = trigger(0, end[3], end[4], end[5], cause)
    out += shorten(rec) if bad == "recorder" else rec
    out += shorten(trg) if bad == "trigger" else trg
    return out


def cpu1(dropped, gaps):
    t = lambda us: BASE + us * US  # noqa: E731
    if gaps:
        out = stream_info(1, t(2050), 102, 20) + metadata(1, t(2050), 103, 21)
        end = (t(8050), 402)
    else:
        out = stream_info(1, t(2050), 0, 28) + metadata(1, t(2050), 0, 29)
        end = (t(8000), 0)
    seq = [SUBMIT, COMMIT, START, END, COMPLETE]
    for k, ty in enumerate(seq):
        out += job(ty, 1, t(2050 + 100 * k), (301, 304, 320, 321, 322)[k], 30 + k, 20, 5, 2)
    for k, ty in enumerate(seq):
        out += job(ty, 1, t(3100 + 100 * k), 330 + k, 37 + k, 20, 6, 2)
    out += recorder(1, end[0], end[1], 42, t(2050), t(3500), 20, 10, 8, dropped)
    return out


def info(state, fmt, cause, stale):
    lines = ["state=%s" % state, "session=%d" % SESSION, "format=%d" % fmt,
             "buffer_size=65536"]
    if state == "triggered":
        ring = {"manual": 4294967295}.get(cause, 1)
        ctx, seqno, err = (10, 2, -62) if cause == "error" else (0, 0, 0)
        code = cause
        lines += ["cause=%s" % code, "cpu=0", "ring=%d" % ring,
                  "ctx=%d" % ctx, "seqno=%d" % seqno, "error=%d" % err,
                  "trigger_ts=%d" % (BASE + 8000 * US),
                  "frozen_ts=%d" % (BASE + 8050 * US),
                  "freeze_ns=50000", "later_triggers=3",
                  "cpu0 first_ts=%d last_ts=%d emitted=53 kept=%d overwritten=%d dropped=4"
                  % ((BASE + cpu0_window(stale)[0] * US,
                      BASE + cpu0_window(stale)[1] * US) +
                     cpu0_window(stale)[2:]),
                  "cpu1 first_ts=%d last_ts=%d emitted=20 kept=10 overwritten=8 dropped=2"
                  % (BASE + 2050 * US, BASE + 3500 * US)]
    else:
        lines += ["cause=none", "cpu=0", "ring=0", "ctx=0", "seqno=0",
                  "error=0", "trigger_ts=0", "frozen_ts=0", "freeze_ns=0",
                  "later_triggers=0",
                  "cpu0 first_ts=0 last_ts=0 emitted=5 kept=0 overwritten=0 dropped=0",
                  "cpu1 first_ts=0 last_ts=0 emitted=0 kept=0 overwritten=0 dropped=0"]
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    d, fmt, cause = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    state = "triggered"
    bad = None
    dropped = 2
    gaps = False
    stale = False
    base = 0
    for a in sys.argv[4:]:
        if a.startswith("base="):
            base = int(a[5:])
        elif a == "stale":
            stale = True
        elif a == "unbalanced":
            dropped = 3
        elif a == "gaps":
            gaps = True
        elif a.startswith("bad="):
            bad = a[4:]
        else:
            state = a
    rd = os.path.join(d, "recorder")
    os.makedirs(rd, exist_ok=True)
    for f in os.listdir(rd):
        os.unlink(os.path.join(rd, f))
    with open(os.path.join(rd, "info"), "w") as f:
        f.write(info(state, fmt, cause, stale))
    with open(os.path.join(rd, "control"), "w") as f:
        f.write(state + "\n")
    if state != "triggered":
        return
    for cpu, data in ((0, cpu0(cause, bad, gaps, stale, base)), (1, cpu1(dropped, gaps))):
        if fmt == 2:
            data = G.snapshot_v2(data)
        with open(os.path.join(rd, "snapshot%d" % cpu), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
