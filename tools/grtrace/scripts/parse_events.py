#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""parse_events.py - decode a grtrace stream or trace file to CSV or JSON.

Usage: parse_events.py [--json] [--cpu N] [--stream-format 1|2] FILE

FILE is a trace file written by "grtrace record", a bare stream (records
only: what older versions of record wrote, or a copy of one events<N>
file), or "-" for standard input.  Every record becomes one row, the CPUs
merged as "grtrace report" merges them: by gseq when every record has one,
else by ts, then CPU, then cseq; parts of the input (recordings joined
with cat) one after the other.  Format 2 records are widened as the tool
widens them: cseq to 64 bits, gseq 0 when the session did not stamp it.

Columns: offset (of the record in FILE, or in its frame's decompressed
data as frame_offset+N), part, cpu, ts, gseq, cseq, type, derived, then
for job events ctx, seqno, ring, engine, aux0, aux1 (ERROR's aux0 signed:
a negative errno), pid and tid (a SUBMIT that carries its task); for
control records a "fields" column of key=value pairs; last, client (the
DRM client id of a SUBMIT flagged CLIENT: its aux0).  A trace file's
task table (version 2) follows its part's records: a row of type TASK per
thread, with pid, tid and the fields comm and process; then its client
table (version 3): a row of type CLIENT per DRM client, with client, pid
(the process holding it) and the field process.

A bare format 2 stream does not name its CPU: --cpu says which (default
0).  A bare stream's format is its first record's (a STREAM_INFO's, or
told by a job event's size); --stream-format says it where that cannot.

Written from Documentation/gpu/grtrace.rst ("Stream format", "Format 2",
"The trace file"), not from the C code.  Malformed or truncated input:
the rows before it, then one line "parse_events.py: FILE: byte N: ..."
on standard error and exit status 1.  zstd-compressed frames need the
zstd command.
"""
import argparse
import csv
import heapq
import json
import struct
import subprocess
import sys

PROG = "parse_events.py"
FILE_MAGIC = b"GRTRACE\0"
FILE_FIXED = struct.Struct("<8sIHHII")   # magic size version flags format cpus
FRAME = struct.Struct("<4sHHII")         # "GRFR" cpu flags stored raw
HDR1 = struct.Struct("<HHHHQQQ")         # type size cpu flags ts gseq cseq
TASK = struct.Struct("<II16s16s")         # pid tid comm process
CLIENT = struct.Struct("<QII16s")        # id pid reserved process
TAIL = struct.Struct("<IIQ")             # cpu reserved next_cseq
HDR2 = struct.Struct("<BBHIQ")           # type flags size cseq ts
JOB1 = struct.Struct("<QQIHHQQ")         # ctx seqno ring engine rsvd aux0 aux1
JOB2 = struct.Struct("<IIHBB")           # ctx seqno ring engine rsvd
JOB2W = struct.Struct("<QQHBB")          # the WIDE fixed part
STREAM_INFO = struct.Struct("<IHHIIQQ")  # magic version hdr_size clock cpus features session
METADATA = struct.Struct("<IHH64s")      # nr_rings ring_size reserved kernel
RING = struct.Struct("<IHH16s32s24s")    # id engine instance driver device name

STREAM_MAGIC = 0x52545247               # "GRTR"
TYPES = {1: "SUBMIT", 2: "COMMIT", 3: "START", 4: "END", 5: "COMPLETE",
         6: "CTX_SWITCH", 7: "IRQ", 8: "SYNC_WAIT_ENTER", 9: "SYNC_WAIT_EXIT",
         10: "ERROR"}
ENGINES = ["unknown", "gfx", "compute", "copy", "video", "display", "control"]
CLOCKS = {1: "monotonic", 7: "boottime"}
V1_DERIVED, V1_TASK, V1_CLIENT = 0x1, 0x2, 0x4
V2_DERIVED, V2_AUX, V2_TASK, V2_GSEQ, V2_WIDE = 0x1, 0x2, 0x4, 0x8, 0x10
V2_CLIENT = 0x20
# Frame flags: compressed records, a task table, a client table.
F_ZSTD, F_TASKS, F_CLIENTS, F_TAIL, F_HEAD = 0x1, 0x2, 0x4, 0x8, 0x10
V1_CONTROL = {0x100: "STREAM_INFO", 0x101: "METADATA", 0x102: "RING",
              0x103: "JOB_SUMMARY", 0x104: "TRIGGER", 0x105: "RECORDER"}
V2_CONTROL = {0x80: "STREAM_INFO", 0x81: "METADATA", 0x82: "RING",
              0x83: "JOB_SUMMARY", 0x84: "TRIGGER", 0x85: "RECORDER"}
# A flight recorder snapshot's TRIGGER: cause ring ctx seqno error
# frozen_ts later_triggers cpu reserved; its RECORDER: cpu reserved
# first_ts last_ts emitted kept overwritten dropped buffer_size.
TRIGGER = struct.Struct("<IIQQqQQII")
RECORDER = struct.Struct("<IIQQQQQQQ")
CAUSES = {1: "manual", 2: "timeout", 3: "error"}
# ctx seqno ring engine events derived reason pid tid waits ts[5] wait_ns
# threshold
SUMMARY = struct.Struct("<QQIHHHHIII5QQQ")
STAMPS = ("submit", "commit", "start", "end", "complete")
MAX_RECORD = 8192
COLUMNS = ["offset", "part", "cpu", "ts", "gseq", "cseq", "type", "derived",
           "ctx", "seqno", "ring", "engine", "aux0", "aux1", "pid", "tid",
           "fields", "client"]


class Bad(Exception):
    """Malformed input at byte @at."""

    def __init__(self, at, what):
        super().__init__("byte %s: %s" % (at, what))


def cstr(b):
    return b.split(b"\0", 1)[0].decode("utf-8", "backslashreplace")


def engine(e):
    return ENGINES[e] if e < len(ENGINES) else str(e)


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def control(name, body, at):
    """The fields of a control record's body (both formats share it)."""
    if name == "STREAM_INFO":
        if len(body) < STREAM_INFO.size:
            raise Bad(at, "STREAM_INFO too short")
        magic, ver, hsize, clock, cpus, feat, sess = STREAM_INFO.unpack_from(body)
        if magic != STREAM_MAGIC:
            raise Bad(at, "not a grtrace stream: STREAM_INFO magic 0x%08x"
                      % magic)
        return {"version": ver, "hdr_size": hsize,
                "clock": CLOCKS.get(clock, str(clock)), "cpus": cpus,
                "features": "0x%x" % feat, "session": sess}
    if name == "METADATA":
        if len(body) < METADATA.size:
            raise Bad(at, "METADATA too short")
        n, rsize, _, kernel = METADATA.unpack_from(body)
        if rsize < RING.size or METADATA.size + n * rsize > len(body):
            raise Bad(at, "METADATA: %d rings of %d bytes do not fit" % (n, rsize))
        f = {"kernel": cstr(kernel), "rings": n}
        for i in range(n):
            f.update(("ring%d.%s" % (i, k), v) for k, v in
                     ring(body[METADATA.size + i * rsize:]).items())
        return f
    if name == "JOB_SUMMARY":
        if len(body) < SUMMARY.size:
            raise Bad(at, "JOB_SUMMARY too short")
        v = SUMMARY.unpack_from(body)
        f = {"ctx": v[0], "seqno": v[1], "ring": v[2], "engine": engine(v[3]),
             "reason": {1: "slow", 2: "open"}.get(v[6], str(v[6]))}
        for i, st in enumerate(STAMPS):
            if v[4] & (2 << i):
                f[st] = v[10 + i]
        f.update(pid=v[7], tid=v[8], waits=v[9], wait_ns=v[15],
                 threshold=v[16])
        return f
    if name == "TRIGGER":
        if len(body) < TRIGGER.size:
            raise Bad(at, "TRIGGER too short")
        v = TRIGGER.unpack_from(body)
        return {"cause": CAUSES.get(v[0], str(v[0])),
                "ring": None if v[1] == 0xffffffff else v[1], "ctx": v[2],
                "seqno": v[3], "error": v[4], "frozen_ts": v[5],
                "later_triggers": v[6], "trigger_cpu": v[7]}
    if name == "RECORDER":
        if len(body) < RECORDER.size:
            raise Bad(at, "RECORDER too short")
        v = RECORDER.unpack_from(body)
        return {"cpu": v[0], "first_ts": v[2], "last_ts": v[3],
                "emitted": v[4], "kept": v[5], "overwritten": v[6],
                "dropped": v[7], "buffer_size": v[8]}
    if len(body) < RING.size:
        raise Bad(at, "RING too short")
    return ring(body)


def ring(b):
    rid, eng, inst, drv, dev, name = RING.unpack_from(b)
    return {"id": rid, "engine": engine(eng), "instance": inst,
            "driver": cstr(drv), "device": cstr(dev), "name": cstr(name)}


def job_row(rtype, ctx, seqno, ring_id, eng, aux0, aux1, task, client):
    """A job event's columns; @client: the SUBMIT was flagged CLIENT."""
    return {"type": TYPES.get(rtype, "JOB_%d" % rtype), "ctx": ctx,
            "seqno": seqno, "ring": ring_id, "engine": engine(eng),
            "aux0": signed(aux0) if rtype == 10 else aux0, "aux1": aux1,
            "pid": task[0] if task else None,
            "tid": task[1] if task else None,
            "client": aux0 if client and rtype == 1 else None}


def records_v1(data, base):
    """Format 1 records of @data: (cpu, row), in order."""
    pos = 0
    while pos < len(data):
        at = base(pos)
        if len(data) - pos < HDR1.size:
            raise Bad(at, "record header cut short")
        rtype, size, cpu, flags, ts, gseq, cseq = HDR1.unpack_from(data, pos)
        if size < HDR1.size or size % 8 or pos + size > len(data):
            raise Bad(at, "corrupt record size %d" % size)
        body = data[pos + HDR1.size:pos + size]
        row = {"offset": at, "cpu": cpu, "ts": ts, "gseq": gseq,
               "cseq": cseq, "derived": int(bool(flags & V1_DERIVED))}
        if 1 <= rtype < 32:
            if size < HDR1.size + JOB1.size:
                raise Bad(at, "job event of %d bytes" % size)
            ctx, seqno, rid, eng, _, aux0, aux1 = JOB1.unpack_from(body)
            task = None
            if flags & V1_TASK and len(body) >= JOB1.size + 8:
                task = struct.unpack_from("<II", body, JOB1.size)
            row.update(job_row(rtype, ctx, seqno, rid, eng, aux0, aux1, task,
                               flags & V1_CLIENT))
        elif rtype in V1_CONTROL:
            row["type"] = V1_CONTROL[rtype]
            row["fields"] = control(row["type"], body, at)
        else:
            row["type"] = "TYPE_0x%x" % rtype
            row["fields"] = {"size": size}
        yield cpu, row
        pos += size


def records_v2(data, cpu, base, cseq_state):
    """Format 2 records of one CPU's @data: (cpu, row), in order."""
    pos = 0
    while pos < len(data):
        at = base(pos)
        if len(data) - pos < HDR2.size:
            raise Bad(at, "record header cut short")
        rtype, flags, size, cseq32, ts = HDR2.unpack_from(data, pos)
        if size < HDR2.size or size % 4 or size > MAX_RECORD or \
           pos + size > len(data):
            raise Bad(at, "corrupt record size %d" % size)
        rec = data[pos:pos + size]
        need = HDR2.size + (8 if flags & V2_GSEQ else 0)
        gseq = struct.unpack_from("<Q", rec, size - 8)[0] \
            if flags & V2_GSEQ and size >= need else 0
        # cseq to 64 bits: a fall by more than half its range is a wrap.
        prev = cseq_state.get(cpu)
        if prev is None:
            cseq = cseq32
        else:
            hi, lo = prev >> 32, prev & 0xffffffff
            if cseq32 < lo and lo - cseq32 > 1 << 31:
                hi += 1
            cseq = hi << 32 | cseq32
        cseq_state[cpu] = cseq
        row = {"offset": at, "cpu": cpu, "ts": ts, "gseq": gseq,
               "cseq": cseq, "derived": int(bool(flags & V2_DERIVED))}
        if 1 <= rtype < 32:
            wide = flags & V2_WIDE
            fixed = JOB2W if wide else JOB2
            auxlen = (16 if wide else 8) if flags & V2_AUX else 0
            tasklen = 8 if flags & V2_TASK else 0
            if size < need + fixed.size + auxlen + tasklen:
                raise Bad(at, "job event of %d bytes is shorter than its flags say"
                          % size)
            ctx, seqno, rid, eng, _ = fixed.unpack_from(rec, HDR2.size)
            p = HDR2.size + fixed.size
            aux0 = aux1 = 0
            if auxlen:
                aux0, aux1 = struct.unpack_from("<QQ" if wide else "<II", rec, p)
                p += auxlen
            task = struct.unpack_from("<II", rec, p) if tasklen else None
            row.update(job_row(rtype, ctx, seqno, rid, eng, aux0, aux1, task,
                               flags & V2_CLIENT))
        elif rtype in V2_CONTROL:
            row["type"] = V2_CONTROL[rtype]
            row["fields"] = control(row["type"], rec[HDR2.size:size - (
                8 if flags & V2_GSEQ else 0)], at)
        else:
            row["type"] = "TYPE_0x%x" % rtype
            row["fields"] = {"size": size}
        yield cpu, row
        pos += size


def frames(data, at):
    """The trace file at @at: its header, then (cpu, bytes, base, kind) per
    frame, kind "records", "tasks", "clients", "tails" or "heads" (cpu
    None for a table), until the end or another file header (returned)."""
    magic, size, version, flags, fmt, cpus = FILE_FIXED.unpack_from(data, at)
    if version not in (1, 2, 3):
        raise Bad(at, "trace file version %d (this reads 1 to 3)" % version)
    if fmt not in (1, 2):
        raise Bad(at, "stream format %d (this reads 1 and 2)" % fmt)
    if size < FILE_FIXED.size or size % 8 or at + size > len(data):
        raise Bad(at, "corrupt header size %d" % size)
    pos, out = at + size, []
    while pos < len(data) and data[pos:pos + 8] != FILE_MAGIC:
        if len(data) - pos < FRAME.size:
            raise Bad(pos, "frame header cut short")
        fmagic, cpu, fflags, stored, raw = FRAME.unpack_from(data, pos)
        if fmagic != b"GRFR":
            raise Bad(pos, "no frame header")
        # Records, maybe compressed, or one kind of table, never compressed.
        if fflags not in (0, F_ZSTD, F_TASKS, F_CLIENTS, F_TAIL, F_HEAD):
            raise Bad(pos, "frame of CPU %d has unknown flags 0x%x" % (cpu, fflags))
        kind = "records"
        for bit, kind_, entry in ((F_TASKS, "tasks", TASK),
                                  (F_CLIENTS, "clients", CLIENT),
                                  (F_TAIL, "tails", TAIL),
                                  (F_HEAD, "heads", TAIL)):
            if not fflags & bit:
                continue
            if raw != stored or raw % entry.size:
                raise Bad(pos, "%s table of %d bytes, not whole %d-byte entries"
                          % (kind_[:-1], raw, entry.size))
            cpu, kind = None, kind_
        payload = data[pos + FRAME.size:pos + FRAME.size + stored]
        if len(payload) != stored:
            raise Bad(pos, "frame cut short: %d of %d bytes" % (len(payload), stored))
        if fflags & 1:
            try:
                payload = subprocess.run(["zstd", "-dcq"], input=payload,
                                         stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL,
                                         check=True).stdout
            except (OSError, subprocess.CalledProcessError):
                raise Bad(pos, "cannot decompress the frame (is zstd installed?)")
        if len(payload) != raw:
            raise Bad(pos, "frame holds %d bytes, says %d" % (len(payload), raw))
        out.append((cpu, payload, pos + FRAME.size, kind))
        pos += FRAME.size + stored
    return fmt, out, pos


def task_rows(payload, base):
    """A task table's entries as rows."""
    rows = []
    for off in range(0, len(payload), TASK.size):
        pid, tid, comm, proc = TASK.unpack_from(payload, off)
        rows.append({"offset": "%d+%d" % (base, off), "cpu": None, "ts": None,
                     "gseq": None, "cseq": None, "type": "TASK", "derived": None,
                     "pid": pid, "tid": tid, "fields": {
                         "comm": comm.split(b"\0", 1)[0].decode("utf-8", "replace"),
                         "process": proc.split(b"\0", 1)[0].decode("utf-8", "replace")}})
    return rows


def client_rows(payload, base):
    """A client table's entries as rows."""
    rows = []
    for off in range(0, len(payload), CLIENT.size):
        cid, pid, _, proc = CLIENT.unpack_from(payload, off)
        rows.append({"offset": "%d+%d" % (base, off), "cpu": None, "ts": None,
                     "gseq": None, "cseq": None, "type": "CLIENT",
                     "derived": None, "pid": pid, "client": cid, "fields": {
                         "process": proc.split(b"\0", 1)[0].decode("utf-8", "replace")}})
    return rows


def merge(per_cpu):
    """Rows of each CPU, in order, merged: by gseq if all have one."""
    rows = [r for rs in per_cpu.values() for r in rs]
    if rows and all(r["gseq"] for r in rows[1:]):
        key = lambda r: (r["gseq"],)  # noqa: E731
    else:
        key = lambda r: (r["ts"], r["cpu"], r["cseq"])  # noqa: E731
    return heapq.merge(*per_cpu.values(), key=key)


def guess_format(data, pos):
    """A bare stream's format from its first record: a STREAM_INFO says;
    else a job event of format 1 is 72 bytes or more, of format 2 less."""
    if len(data) - pos < 4:
        return 0
    t16, size = struct.unpack_from("<HH", data, pos)
    if t16 in V1_CONTROL:
        return 1
    if data[pos] in V2_CONTROL:
        return 2
    if 1 <= t16 < 32 and size >= HDR1.size + JOB1.size and size % 8 == 0:
        return 1
    if 1 <= data[pos] < 32 and HDR2.size <= size < HDR1.size + JOB1.size:
        return 2
    return 0


def parse(data, cpu_opt, fmt_opt):
    """Every row, merged per part; raises Bad after yielding those before."""
    pos, part = 0, 0
    while pos < len(data):
        per_cpu, cseq_state, tasks, clients = {}, {}, [], []
        err = None
        try:
            if data[pos:pos + 8] == FILE_MAGIC:
                fmt, frs, end = frames(data, pos)
                for cpu, payload, base, kind in frs:
                    if kind == "tasks":
                        tasks += task_rows(payload, base)
                        continue
                    if kind == "clients":
                        clients += client_rows(payload, base)
                        continue
                    # Each CPU's next cseq after the session, and its
                    # cseq at the start: for the C tool's loss count, no
                    # rows here.
                    if kind in ("tails", "heads"):
                        continue
                    b = (lambda p, base=base: "%d+%d" % (base, p))
                    recs = records_v2(payload, cpu, b, cseq_state) \
                        if fmt == 2 else records_v1(payload, b)
                    for c, row in recs:
                        per_cpu.setdefault(c, []).append(row)
            else:
                fmt = fmt_opt or guess_format(data, pos)
                if not fmt:
                    raise Bad(pos, "cannot tell the stream's format: give --stream-format")
                b = (lambda p, pos=pos: pos + p)
                recs = records_v2(data[pos:], cpu_opt, b, cseq_state) \
                    if fmt == 2 else records_v1(data[pos:], b)
                for c, row in recs:
                    per_cpu.setdefault(c, []).append(row)
                end = len(data)
        except Bad as e:
            err = e
        for row in merge(per_cpu):
            row["part"] = part
            yield row
        for row in tasks + clients:
            row["part"] = part
            yield row
        if err:
            raise err
        pos, part = end, part + 1


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true", help="JSON lines, not CSV")
    ap.add_argument("--cpu", type=int, default=0,
                    help="the CPU of a bare format 2 stream (default 0)")
    ap.add_argument("--stream-format", type=int, choices=(1, 2),
                    help="the format of a stream without a STREAM_INFO first")
    a = ap.parse_args()
    try:
        if a.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(a.file, "rb") as f:
                data = f.read()
    except OSError as e:
        print("%s: %s: %s" % (PROG, a.file, e.strerror), file=sys.stderr)
        return 1
    out = sys.stdout
    w = None if a.json else csv.writer(out, lineterminator="\n")
    if w:
        w.writerow(COLUMNS)
    try:
        for row in parse(data, a.cpu, a.stream_format):
            if a.json:
                out.write(json.dumps(row) + "\n")
            else:
                f = row.get("fields")
                w.writerow([row.get(c) if c != "fields" else
                            " ".join("%s=%s" % kv for kv in f.items()) if f
                            else None for c in COLUMNS])
    except Bad as e:
        out.flush()
        print("%s: %s: %s" % (PROG, a.file, e), file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
