#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""dump's job lines at the edges of their fields.

"grtrace dump" writes a job event's line by hand (not with printf()): this
writes a bare stream of job events whose numbers sit at every edge a
hand-made decimal writer can get wrong (0, 9/10, 99/100, 2^63, 2^64 - 1,
the most negative errno of an ERROR), every engine name and a number
past them, each optional part (derived, pid/tid, client), and checks
each line against the one built here from the documented format (exit
status 0, else 1 and the lines that differ):

    <ts> <cpu> <gseq> <TYPE> ctx=C seqno=S ring=R engine=E aux0=A aux1=B
        [derived=1] [pid=P tid=T] [client=A]

    dump_format_check.py GRTRACE TMPDIR
"""
import os
import struct
import subprocess
import sys

TYPES = {1: "SUBMIT", 2: "COMMIT", 3: "START", 4: "END", 5: "COMPLETE",
         6: "CTX_SWITCH", 7: "IRQ", 8: "SYNC_WAIT_ENTER", 9: "SYNC_WAIT_EXIT",
         10: "ERROR"}
ENGINES = ["unknown", "gfx", "compute", "copy", "video", "display", "control"]
DERIVED, TASK, CLIENT = 1, 2, 4
U64 = (1 << 64) - 1


def record(typ, cpu, flags, ts, gseq, ctx, seqno, ring, engine, aux0, aux1,
           pid=0, tid=0):
    """A format 1 job event: the header, the job, and pid/tid with TASK."""
    body = struct.pack("<QQIHHQQ", ctx, seqno, ring, engine, 0, aux0, aux1)
    if flags & TASK:
        body += struct.pack("<II", pid, tid)
    size = 32 + len(body)
    return struct.pack("<HHHHQQQ", typ, size, cpu, flags, ts, gseq, gseq) + body


def line(typ, cpu, flags, ts, gseq, ctx, seqno, ring, engine, aux0, aux1,
         pid=0, tid=0):
    """The line the documented format gives for record()'s event."""
    name = ENGINES[engine] if engine < len(ENGINES) else str(engine)
    a0 = aux0 - (1 << 64) if typ == 10 and aux0 >= 1 << 63 else aux0
    text = "%d %d %d %s ctx=%d seqno=%d ring=%d engine=%s aux0=%d aux1=%d" % (
        ts, cpu, gseq, TYPES[typ], ctx, seqno, ring, name, a0, aux1)
    if flags & DERIVED:
        text += " derived=1"
    if flags & TASK:
        text += " pid=%d tid=%d" % (pid, tid)
    if typ == 1 and flags & CLIENT:
        text += " client=%d" % aux0
    return text


def main():
    tool, tmp = sys.argv[1:3]
    edges = [0, 1, 9, 10, 99, 100, 101, 999, 1000, 10 ** 9 - 1, 10 ** 9,
             10 ** 18, 10 ** 19 - 1, 10 ** 19, 1 << 63, U64]
    events = []
    gseq = 0
    for i, v in enumerate(edges):
        typ = 1 + i % 10
        flags = (DERIVED if i % 3 == 0 else 0) | (TASK if i % 2 else 0) | \
            (CLIENT if i % 4 < 2 else 0)
        events.append((typ, i % 4, flags, v, gseq, U64 - v, v, v & 0xffffffff,
                       i % 9, v, U64 - v, v & 0xffffffff, (v >> 32) & 0xffffffff))
        gseq += 1
    # ERROR's aux0 is a negative errno: the most negative one, -1, -5.
    for aux0 in (1 << 63, U64, U64 - 4):
        events.append((10, 65535, 0, gseq, gseq, 0, 0, 0, 65535, aux0, 0))
        gseq += 1
    path = os.path.join(tmp, "dump-edges.bin")
    with open(path, "wb") as f:
        for e in events:
            f.write(record(*e))
    out = subprocess.run([tool, "dump", "-i", path], capture_output=True,
                         text=True)
    want = [line(*e) for e in events]
    got = out.stdout.splitlines()
    bad = [(w, g) for w, g in zip(want, got) if w != g]
    ok = out.returncode == 0 and len(got) == len(want) and not bad
    if not ok:
        print("exit %d, %d lines of %d: %s" % (out.returncode, len(got),
                                               len(want), out.stderr.strip()))
        for w, g in bad[:5]:
            print("want %s\n got %s" % (w, g))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
