#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gen_golden.py - the grtrace stream and trace file from the document alone.

The one Python oracle of the format (the other is the kselftests' raw
reader, in C): written from Documentation/gpu/grtrace.rst ("Stream
format", "Format 2", "The trace file") and include/uapi/linux/grtrace.h,
never from the C code, so that the tests hold the tool and the library to
the document.  The format 2 layouts are read from the document's tables
themselves (".. grtrace-v2-table:").  It

- encodes records of both formats, JOB_SUMMARY bodies, trace files and
  their task and client tables: Trace, the encoder of the tools' tests
  (tools/grtrace/tests: report_golden.py's scenarios, export_check.py,
  mutate.py, recorder_snap.py's flight recorder snapshots), and Stream /
  Stream2, which write the golden vectors;
- reads a trace file by the document and packs a bare stream into one
  (the commands below, for tools/grtrace/tests/run-tests.sh);
- decodes the records of a bare stream of either format by the document
  (decode(): the flight recorder snapshots of the guest's
  recorder_check.py), TRIGGER and RECORDER included;
- generates the golden vectors next to itself, with their expected
  "grtrace dump" text, formatted here from the values and not by decoding
  the bytes, and the record boundaries (*.offsets), and checks that the
  committed ones are what it generates.

Usage (run from any directory):

    gen_golden.py                     (re)write *.bin, *.dump, *.offsets
                                      and *.grf next to itself
    gen_golden.py --check             exit 1 if the committed files differ
    gen_golden.py info FILE           a trace file's header fields and every
                                      frame, one a line
    gen_golden.py stream FILE CPU     CPU's records, decompressed and joined
                                      in file order, to standard output
    gen_golden.py pack BARE OUT ORDER FRAME [zstd]
                                      a trace file of the bare stream BARE:
                                      each CPU's records in frames of at most
                                      FRAME bytes, the frames in ORDER: "time"
                                      (as the stream has them), "cpu" (CPU 0's
                                      first) or "reverse" (the last CPU's
                                      first)
    gen_golden.py pack2 BARE OUT ORDER FRAME [zstd] [gseq] [lose=N]
                                      as pack, the records converted to
                                      format 2: each CPU's cseq renumbered
                                      from 0, a SUBMIT's task and client flag
                                      kept, gseq kept only with "gseq";
                                      "lose=N" leaves out CPU 1's N-th job
                                      event (from 0) as a full buffer would,
                                      its cseq taken
    gen_golden.py bare BARE OUT ORDER the bare stream BARE with its runs of
                                      one CPU in ORDER, as an old "record"
                                      would have written it had the CPUs
                                      drained so

zstd frames are compressed and decompressed with the zstd command.
"""

import os
import re
import struct
import subprocess
import sys

MAGIC = 0x52545247          # "GRTR"
VERSION = 1
HDR_SIZE = 32
CLOCK_MONOTONIC = 1
CLOCK_BOOTTIME = 7
FEATURES = 0x5f             # GSEQ | CSEQ | RING_REC | DERIVED | CSEQ_LOSS | CLIENT
HDR_DERIVED = 0x1          # grtrace_hdr.flags: DERIVED, TASK, CLIENT
HDR_TASK = 0x2
HDR_CLIENT = 0x4
FEAT_GSEQ = 0x1            # STREAM_INFO features: GSEQ, CSEQ_LOSS
FEAT_CSEQ_LOSS = 0x10
RING_DESC_SIZE = 80

TYPES = {
    1: "SUBMIT", 2: "COMMIT", 3: "START", 4: "END", 5: "COMPLETE",
    6: "CTX_SWITCH", 7: "IRQ", 8: "SYNC_WAIT_ENTER", 9: "SYNC_WAIT_EXIT",
    10: "ERROR", 0x100: "STREAM_INFO", 0x101: "METADATA", 0x102: "RING",
    0x103: "JOB_SUMMARY", 0x104: "TRIGGER", 0x105: "RECORDER",
}
TYPE_BY_NAME = {v: k for k, v in TYPES.items()}
ENGINES = ["unknown", "gfx", "compute", "copy", "video", "display", "control"]
CLOCKS = {CLOCK_MONOTONIC: "monotonic", CLOCK_BOOTTIME: "boottime"}

# struct grtrace_hdr: u16 type, u16 size, u16 cpu, u16 flags, u64 ts,
# u64 gseq, u64 cseq
HDR_FMT = "<HHHHQQQ"
# struct grtrace_stream_info payload: u32 magic, u16 version, u16 hdr_size,
# u32 clock_id, u32 nr_cpus, u64 features, u64 session_id
STREAM_INFO_FMT = "<IHHIIQQ"
# struct grtrace_metadata payload: u32 nr_rings, u16 ring_size,
# u16 reserved, char kernel[64]
METADATA_FMT = "<IHH64s"
# struct grtrace_ring_desc: u32 ring_id, u16 engine, u16 instance,
# char driver[16], char device[32], char name[24]
RING_DESC_FMT = "<IHH16s32s24s"
# struct grtrace_job_event payload: u64 ctx, u64 seqno, u32 ring_id,
# u16 engine, u16 reserved, u64 aux0, u64 aux1
JOB_FMT = "<QQIHHQQ"

assert struct.calcsize(HDR_FMT) == 32
assert struct.calcsize(HDR_FMT) + struct.calcsize(STREAM_INFO_FMT) == 64
assert struct.calcsize(HDR_FMT) + struct.calcsize(METADATA_FMT) == 104
assert struct.calcsize(RING_DESC_FMT) == RING_DESC_SIZE
assert struct.calcsize(HDR_FMT) + struct.calcsize(JOB_FMT) == 72

# struct grtrace_job_summary payload: u64 ctx, u64 seqno, u32 ring_id,
# u16 engine, u16 events, u16 derived, u16 reason, u32 pid, u32 tid,
# u32 waits, u64 ts[5], u64 wait_ns, u64 threshold
SUMMARY_FMT = "<QQIHHHHIII5QQQ"
# struct grtrace_trigger payload: u32 cause, u32 ring_id, u64 ctx,
# u64 seqno, s64 error, u64 frozen_ts, u64 later_triggers, u32 cpu,
# u32 reserved
TRIGGER_FMT = "<IIQQqQQII"
# struct grtrace_recorder_cpu payload: u32 cpu, u32 reserved,
# u64 first_ts, u64 last_ts, u64 emitted, u64 kept, u64 overwritten,
# u64 dropped, u64 buffer_size
RECORDER_FMT = "<IIQQQQQQQ"
MASK = (1 << 64) - 1

assert struct.calcsize(HDR_FMT) + struct.calcsize(SUMMARY_FMT) == 128
assert struct.calcsize(HDR_FMT) + struct.calcsize(TRIGGER_FMT) == 88
assert struct.calcsize(HDR_FMT) + struct.calcsize(RECORDER_FMT) == 96

# grtrace_trigger.cause
TRIGGER_CAUSES = {1: "manual", 2: "timeout", 3: "error"}

# The trace file ("The trace file"): the fixed header (magic, size,
# version, flags, stream format, cpus) and its text; a frame header
# ("GRFR", cpu, flags, stored, raw); task and client table entries.
GRF_MAGIC = b"GRTRACE\0"
GRF_FIXED = struct.Struct("<8sIHHII")
GRF_FRAME = struct.Struct("<4sHHII")
GRF_ZSTD = 1                # header and frame flags: compressed
GRF_TASKS, GRF_CLIENTS = 2, 4   # frame flags: a task / client table
GRF_TABLES = 14             # task, client and CPU tail tables: no records
TASK_FMT = "<II16s16s"      # pid, tid, comm, process
CLIENT_FMT = "<QII16s"      # id, pid, reserved, process

def u64(v):
    """Two's complement for negative values, as the emit file stores them."""
    return v & MASK


def fields(fmt, names, start=0):
    """{name: (offset, bytes)} of the fields @names of struct format @fmt
    at byte @start: where a test that changes one field finds it."""
    codes = []
    for count, code in re.findall(r"(\d*)([a-zA-Z])", fmt):
        # "64s" is one field of 64 bytes, "5Q" five of 8.
        codes += [count + code] if code == "s" else [code] * int(count or 1)
    out, off = {}, start
    for name, code in zip(names, codes):
        n = struct.calcsize("<" + code)
        out[name] = (off, n)
        off += n
    return out


# Format 1's fields, as include/uapi/linux/grtrace.h names them.
HDR_FIELDS = fields(HDR_FMT, ("type", "size", "cpu", "flags", "ts", "gseq",
                              "cseq"))
JOB_FIELDS = fields(JOB_FMT, ("ctx", "seqno", "ring_id", "engine", "reserved",
                              "aux0", "aux1"), HDR_SIZE)
STREAM_INFO_FIELDS = fields(STREAM_INFO_FMT, (
    "magic", "version", "hdr_size", "clock_id", "nr_cpus", "features",
    "session"), HDR_SIZE)
METADATA_FIELDS = fields(METADATA_FMT, ("nr_rings", "ring_size", "reserved",
                                        "kernel"), HDR_SIZE)
RING_FIELDS = fields(RING_DESC_FMT, ("ring_id", "engine", "instance",
                                     "driver", "device", "name"), HDR_SIZE)
SUMMARY_FIELDS = fields(SUMMARY_FMT, (
    "ctx", "seqno", "ring_id", "engine", "events", "derived", "reason", "pid",
    "tid", "waits", "ts0", "ts1", "ts2", "ts3", "ts4", "wait_ns", "threshold"),
    HDR_SIZE)
TRIGGER_FIELDS = fields(TRIGGER_FMT, (
    "cause", "ring_id", "ctx", "seqno", "error", "frozen_ts", "later_triggers",
    "cpu", "reserved"), HDR_SIZE)
RECORDER_FIELDS = fields(RECORDER_FMT, (
    "cpu", "reserved", "first_ts", "last_ts", "emitted", "kept", "overwritten",
    "dropped", "buffer_size"), HDR_SIZE)


# ---- format 1 records ---------------------------------------------------

def rec1(rtype, cpu, flags, ts, gseq, cseq, body):
    """A record: struct grtrace_hdr, then @body."""
    return struct.pack(HDR_FMT, rtype, HDR_SIZE + len(body), cpu, flags, ts,
                       gseq, cseq) + body


def job_body(ctx, seqno, ring, engine, aux0=0, aux1=0):
    """struct grtrace_job_event after the header."""
    return struct.pack(JOB_FMT, ctx, seqno, ring, engine, 0, u64(aux0),
                       u64(aux1))


def task_trailing(pid, tid):
    """The task of a job event flagged TASK: u32 pid, u32 tid after it."""
    return struct.pack("<II", pid, tid)


def stream_info_body(version, clock, nr_cpus, features, session,
                     magic=MAGIC, hdr_size=HDR_SIZE):
    return struct.pack(STREAM_INFO_FMT, magic, version, hdr_size, clock,
                       nr_cpus, features, session)


def ring_desc(ring_id, engine, instance, driver, device, name):
    return struct.pack(RING_DESC_FMT, ring_id, engine, instance, driver,
                       device, name)


def metadata_body(kernel, descs):
    """METADATA: its fixed part, then the ring descriptors @descs (bytes)."""
    return struct.pack(METADATA_FMT, len(descs), RING_DESC_SIZE, 0,
                       kernel) + b"".join(descs)


def summary_body(ctx, seqno, ring, engine, events, derived, reason, pid, tid,
                 waits, ts, wait_ns, threshold):
    """JOB_SUMMARY: @events bit (1 << type) per stamp of @ts (SUBMIT ..
    COMPLETE), @reason 1 slow, 2 given up open."""
    return struct.pack(SUMMARY_FMT, ctx, seqno, ring, engine, events, derived,
                       reason, pid, tid, waits, *ts, wait_ns, threshold)


def trigger_body(cause, ring, ctx, seqno, error, frozen_ts, later, cpu):
    """TRIGGER: @cause a TRIGGER_CAUSES number, @ring 0xffffffff for
    none, @error a negative errno or 0."""
    return struct.pack(TRIGGER_FMT, cause, ring, ctx, seqno, error,
                       frozen_ts, later, cpu, 0)


def recorder_body(cpu, first_ts, last_ts, emitted, kept, overwritten,
                  dropped, buffer_size):
    """RECORDER: one CPU's accounting of a flight recorder snapshot."""
    return struct.pack(RECORDER_FMT, cpu, 0, first_ts, last_ts, emitted,
                       kept, overwritten, dropped, buffer_size)


# ---- the trace file -----------------------------------------------------

def grf_header(text, version, stream_format, cpus, flags=0):
    """A file header: the fixed part and @text (NUL-terminated key=value
    lines), padded to a multiple of 8."""
    size = (GRF_FIXED.size + len(text) + 7) & ~7
    return GRF_FIXED.pack(GRF_MAGIC, size, version, flags, stream_format,
                          cpus) + text.ljust(size - GRF_FIXED.size, b"\0")


def grf_frame(cpu, flags, payload, raw=None):
    """A frame header and its @payload (@raw bytes once decompressed)."""
    return GRF_FRAME.pack(b"GRFR", cpu, flags, len(payload),
                          len(payload) if raw is None else raw) + payload


def task_table(tasks):
    """A task table frame of (pid, tid, comm, process), or b"" for none."""
    body = b"".join(struct.pack(TASK_FMT, pid, tid, comm.encode(),
                                proc.encode())
                    for pid, tid, comm, proc in tasks)
    return grf_frame(0, GRF_TASKS, body) if body else b""


def client_table(clients):
    """A client table frame of (id, pid, process), or b"" for none."""
    body = b"".join(struct.pack(CLIENT_FMT, cid, pid, 0, proc.encode())
                    for cid, pid, proc in clients)
    return grf_frame(0, GRF_CLIENTS, body) if body else b""


def zstd(data):
    return subprocess.run(["zstd", "-qc", "-1"], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def unzstd(data):
    return subprocess.run(["zstd", "-dcq"], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def fmt_str(b):
    """A NUL-terminated field as dump prints it: bytes outside '!'..'~' and
    the backslash become \\xNN."""
    b = b.split(b"\0", 1)[0]
    out = []
    for c in b:
        if 0x21 <= c <= 0x7E and c != 0x5C:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return "".join(out)


def engine_name(e):
    return ENGINES[e] if e < len(ENGINES) else str(e)


class Stream:
    def __init__(self):
        self.data = bytearray()
        self.lines = []     # (gseq, insertion index, text)
        self.starts = []    # byte offset of each record, in file order

    def _rec(self, rtype, cpu, ts, gseq, cseq, body, flags=0):
        assert len(body) % 8 == 0
        # Every record begins with its header: this is where it starts.
        self.starts.append(len(self.data))
        self.data += rec1(rtype, cpu, flags, ts, gseq, cseq, body)

    def _line(self, ts, cpu, gseq, name, text):
        self.lines.append((gseq, len(self.lines),
                           "%d %d %d %s %s" % (ts, cpu, gseq, name, text)))

    def stream_info(self, cpu, ts, gseq, cseq, nr_cpus, session,
                    clock=CLOCK_MONOTONIC, features=FEATURES):
        self._rec(0x100, cpu, ts, gseq, cseq,
                  stream_info_body(VERSION, clock, nr_cpus, features, session))
        self._line(ts, cpu, gseq, "STREAM_INFO",
                   "magic=ok version=%d clock=%s cpus=%d session=%d "
                   "features=0x%x" % (VERSION, CLOCKS[clock], nr_cpus,
                                      session, features))

    @staticmethod
    def _ring_desc(r):
        return ring_desc(r["id"], r["engine"], r["instance"], r["driver"],
                         r["device"], r["name"])

    @staticmethod
    def _ring_text(r):
        return "id=%d engine=%s instance=%d driver=%s device=%s name=%s" % (
            r["id"], engine_name(r["engine"]), r["instance"],
            fmt_str(r["driver"]), fmt_str(r["device"]), fmt_str(r["name"]))

    def metadata(self, cpu, ts, gseq, cseq, kernel, rings):
        self._rec(0x101, cpu, ts, gseq, cseq,
                  metadata_body(kernel, [self._ring_desc(r) for r in rings]))
        text = "kernel=%s rings=%d" % (fmt_str(kernel), len(rings))
        for r in rings:
            text += "\n    ring " + self._ring_text(r)
        self._line(ts, cpu, gseq, "METADATA", text)

    def ring(self, cpu, ts, gseq, cseq, r):
        self._rec(0x102, cpu, ts, gseq, cseq, self._ring_desc(r))
        self._line(ts, cpu, gseq, "RING", self._ring_text(r))

    def job(self, name, cpu, ts, gseq, cseq, ctx, engine, ring, seqno,
            aux0=0, aux1=0, trailing=b"", flags=0):
        self._rec(TYPE_BY_NAME[name], cpu, ts, gseq, cseq,
                  job_body(ctx, seqno, ring, engine, aux0, aux1) + trailing,
                  flags)
        self._line(ts, cpu, gseq, name,
                   "ctx=%d seqno=%d ring=%d engine=%s aux0=%d aux1=%d%s" % (
                       ctx, seqno, ring, engine_name(engine),
                       # ERROR's aux0 is a negative errno: shown signed.
                       aux0 if name == "ERROR" else u64(aux0), u64(aux1),
                       " derived=1" if flags & HDR_DERIVED else ""))

    def unknown(self, rtype, size, cpu, ts, gseq, cseq, fill=0xA5):
        self._rec(rtype, cpu, ts, gseq, cseq, bytes([fill]) * (size - 32))
        self._line(ts, cpu, gseq, "TYPE_0x%x" % rtype, "size=%d" % size)

    def dump_text(self):
        return "".join(t + "\n" for _, _, t in sorted(self.lines))

    def offsets_text(self):
        """The start of every record, then the file length: one decimal
        number a line."""
        return "".join("%d\n" % o for o in self.starts + [len(self.data)])


def emit_basic():
    """What grtrace.ko writes after a fresh insmod for: start; the emit
    lines below; stop.  Normalised: every ts=0 and cpu=0, STREAM_INFO
    nr_cpus=0, METADATA kernel all zeros."""
    s = Stream()
    s.stream_info(0, 0, 0, 0, nr_cpus=0, session=1)
    s.metadata(0, 0, 1, 1, kernel=b"", rings=[])
    emit = [
        "submit 100 1 0 1",
        "commit 100 1 0 1",
        "start 100 1 0 1",
        "end 100 1 0 1",
        "complete 100 1 0 1",
        "sync_wait_enter 100 1 0 2 200 7",
        "sync_wait_exit 100 1 0 2 200 7",
        "error 101 2 1 5 -62 0",
    ]
    seq = 2
    for line in emit:
        w = line.split()
        args = [int(x) for x in w[1:]] + [0, 0]
        ctx, engine, ring, seqno, aux0, aux1 = args[:6]
        s.job(w[0].upper(), 0, 0, seq, seq, ctx, engine, ring, seqno,
              aux0, aux1)
        seq += 1
    return s


def rings():
    """Decoder exercise: two CPUs' chunks in file order (not gseq order),
    a METADATA ring table, a RING record, an unknown type skipped by size,
    a SUBMIT with 8 trailing bytes, a COMPLETE flagged derived and an engine
    number without a name."""
    r0 = dict(id=0, engine=1, instance=0, driver=b"i915",
              device=b"0000:00:02.0", name=b"rcs0")
    r1 = dict(id=1, engine=3, instance=0, driver=b"amdgpu",
              device=b"0000:03:00.0", name=b"sdma0")
    r2 = dict(id=2, engine=4, instance=1, driver=b"amdgpu",
              device=b"0000:03:00.0", name=b"vcn_dec_1")
    s = Stream()
    # chunk of CPU 0
    s.stream_info(0, 1000, 10, 0, nr_cpus=2, session=3,
                  clock=CLOCK_BOOTTIME)
    s.metadata(0, 1000, 11, 1, kernel=b"6.1.0-grtrace-test", rings=[r0, r1])
    s.job("SUBMIT", 0, 1500, 13, 2, ctx=42, engine=1, ring=0, seqno=9,
          trailing=b"\xde\xad\xbe\xef\x01\x02\x03\x04")
    # chunk of CPU 1
    s.ring(1, 1200, 12, 0, r2)
    s.unknown(0x7777, 48, 1, 1600, 14, 1)
    s.job("COMPLETE", 1, 2000, 15, 2, ctx=42, engine=1, ring=0, seqno=9,
          flags=HDR_DERIVED)
    s.job("IRQ", 1, 2100, 16, 3, ctx=0, engine=9, ring=2, seqno=0,
          aux0=0x1234, aux1=1)
    return s


# ---- format 2, from the tables of Documentation/gpu/grtrace.rst ----------

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   "../../../../../Documentation/gpu/grtrace.rst")
CTYPE = {"u8": "B", "u16": "H", "u32": "I", "u64": "Q"}


def doc_table(name):
    """The rows of the table after ".. grtrace-v2-table: NAME": a list of
    cell lists, continuation lines joined to the row above."""
    lines = open(DOC).read().splitlines()
    i = lines.index(".. grtrace-v2-table: " + name)
    while not lines[i].startswith("="):
        i += 1
    border = lines[i]
    cols, pos = [], 0
    for run in border.split(" "):
        if run:
            cols.append(pos)
        pos += len(run) + 1
    rows, borders = [], 0
    for line in lines[i:]:
        if line.startswith("="):
            borders += 1
            if borders == 3:
                break
            continue
        if borders < 2:
            continue
        cells = [line[a:b].strip() for a, b in zip(cols, cols[1:] + [None])]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1][-1] += " " + cells[-1]
    return rows


def field_name(cell):
    return cell.split("``")[1]


def layout(name, start):
    """struct format and field names of a table of offset/type/field rows,
    checked to be contiguous from @start."""
    fmt, names, off = "<", [], start
    for o, t, f in doc_table(name):
        assert int(o) == off, "%s: %s at %s, expected %d" % (name, f, o, off)
        fmt += CTYPE[t]
        names.append(field_name(f))
        off += struct.calcsize("<" + CTYPE[t])
    return fmt, names


V2_HDR_FMT, V2_HDR_FIELDS = layout("header", 0)
V2_HDR_SIZE = struct.calcsize(V2_HDR_FMT)
V2_JOB_FMT, V2_JOB_FIELDS = layout("job", V2_HDR_SIZE)
V2_WIDE_FMT, V2_WIDE_FIELDS = layout("job-wide", V2_HDR_SIZE)
V2_TYPES = {r[1]: int(r[0], 16) for r in doc_table("types")}
V2_FLAGS = {r[1]: (1 << int(r[0]), int(r[2])) for r in doc_table("flags")}
V2_FEATURES = 0x7e          # CSEQ | RING_REC | DERIVED | CSEQ_LOSS | TASK | CLIENT
V2_UNKNOWN = 0xfe           # a type no table names


def v2_flag(name):
    return V2_FLAGS[name][0]


def rec2(rtype, flags, cseq, ts, body):
    """A format 2 record: the header of the "header" table, then @body."""
    vals = dict(type=rtype, flags=flags, size=V2_HDR_SIZE + len(body),
                cseq=cseq & 0xffffffff, ts=ts)
    return struct.pack(V2_HDR_FMT, *[vals[f] for f in V2_HDR_FIELDS]) + body


def job2_body(ctx, seqno, ring, engine, aux0=0, aux1=0, task=None,
              derived=False, client=False):
    """A job event's flags and body after the header: the fixed part of
    the "job" table, or "job-wide" when a number needs more than 32 bits,
    then AUX and TASK as the flags table says."""
    vals = dict(ctx=ctx, seqno=seqno, ring_id=ring, engine=engine,
                reserved=0)
    wide = any(u64(v) >> 32 for v in (ctx, seqno, aux0, aux1))
    fmt, fields = (V2_WIDE_FMT, V2_WIDE_FIELDS) if wide else \
        (V2_JOB_FMT, V2_JOB_FIELDS)
    body = struct.pack(fmt, *[vals[f] for f in fields])
    flags = v2_flag("WIDE") if wide else 0
    flags |= v2_flag("DERIVED") if derived else 0
    flags |= v2_flag("CLIENT") if client else 0
    if aux0 or aux1:
        flags |= v2_flag("AUX")
        body += struct.pack("<QQ" if wide else "<II", u64(aux0), u64(aux1))
        assert V2_FLAGS["AUX"][1] == 8
    if task is not None:
        flags |= v2_flag("TASK")
        body += struct.pack("<II", *task)
        assert V2_FLAGS["TASK"][1] == 8
    return flags, body


class Stream2:
    """One CPU's format 2 records, and the dump of a trace file of them."""

    def __init__(self):
        self.data = bytearray()
        self.lines = []
        self.starts = []
        self.cseq = 0

    def _rec(self, rtype, flags, ts, body):
        assert (V2_HDR_SIZE + len(body)) % 4 == 0
        self.starts.append(len(self.data))
        self.data += rec2(rtype, flags, self.cseq, ts, body)
        self.cseq += 1

    def stream_info(self, ts, session):
        self._rec(V2_TYPES["STREAM_INFO"], 0, ts,
                  stream_info_body(2, CLOCK_MONOTONIC, 0, V2_FEATURES, session,
                                   hdr_size=V2_HDR_SIZE))
        self.lines.append("%d 0 0 STREAM_INFO magic=ok version=2 "
                          "clock=monotonic cpus=0 session=%d features=0x%x"
                          % (ts, session, V2_FEATURES))

    def metadata(self, ts):
        self._rec(V2_TYPES["METADATA"], 0, ts,
                  metadata_body(b"", []))
        self.lines.append("%d 0 0 METADATA kernel= rings=0" % ts)

    def job(self, name, ts, ctx, engine, ring, seqno, aux0=0, aux1=0,
            task=None):
        flags, body = job2_body(ctx, seqno, ring, engine, aux0, aux1, task)
        self._rec(TYPE_BY_NAME[name], flags, ts, body)
        self.lines.append(
            "%d 0 0 %s ctx=%d seqno=%d ring=%d engine=%s aux0=%d aux1=%d%s"
            % (ts, name, ctx, seqno, ring, engine_name(engine),
               aux0 if name == "ERROR" else u64(aux0), u64(aux1),
               " pid=%d tid=%d" % task if task is not None else ""))

    def grf(self):
        """A trace file (see "The trace file") of these records: CPU 0's
        one raw frame."""
        text = b"kernel=golden\nhost=gen_golden\nclock=monotonic\nsession=1\n\0"
        return grf_header(text, 1, 2, 1) + grf_frame(0, 0, bytes(self.data))

    def dump_text(self):
        return "".join(l + "\n" for l in self.lines)

    def offsets_text(self):
        return "".join("%d\n" % o for o in self.starts + [len(self.data)])


def emit_basic_v2():
    """What grtrace.ko writes in format 2 (the default) for the emit lines
    of emit_basic(), from a task of the emitting test: normalised like it,
    and the SUBMIT's pid and tid zeroed."""
    s = Stream2()
    s.stream_info(0, session=1)
    s.metadata(0)
    for line in ["submit 100 1 0 1", "commit 100 1 0 1", "start 100 1 0 1",
                 "end 100 1 0 1", "complete 100 1 0 1",
                 "sync_wait_enter 100 1 0 2 200 7",
                 "sync_wait_exit 100 1 0 2 200 7", "error 101 2 1 5 -62 0"]:
        w = line.split()
        ctx, engine, ring, seqno, aux0, aux1 = ([int(x) for x in w[1:]] +
                                                [0, 0])[:6]
        s.job(w[0].upper(), 0, ctx, engine, ring, seqno, aux0, aux1,
              task=(0, 0) if w[0] == "submit" else None)
    return s


VECTORS = {"emit-basic": emit_basic, "rings": rings,
           "emit-basic-v2": emit_basic_v2}


# ---- the encoder of the tools' tests -------------------------------------

GFX, COPY = ENGINES.index("gfx"), ENGINES.index("copy")


class Trace:
    """Records in gseq order; written as per-CPU chunks like "record"."""

    def __init__(self, version=1):
        self.recs = []          # [cpu, type, ts, body, gseq, flags]
        self.version = version

    def add(self, rtype, ts, body, cpu=0, gseq=None, flags=0):
        self.recs.append([cpu, rtype, ts, body, gseq, flags])

    def stream_info(self, ts, magic=MAGIC, session=1, cpu=0, features=7):
        self.add(0x100, ts, stream_info_body(self.version, CLOCK_MONOTONIC, 2,
                                             features, session, magic=magic),
                 cpu)

    def metadata(self, ts, rings, cpu=0):
        """@rings: (ring_id, engine, instance, driver, device, name) each."""
        self.add(0x101, ts, metadata_body(b"golden",
                                          [ring_desc(*r) for r in rings]), cpu)

    def ev(self, ts, name, ctx, seqno, ring, engine, aux0=0, aux1=0, cpu=0,
           trailing=b"", flags=0):
        self.add(TYPE_BY_NAME[name.upper()], ts,
                 job_body(ctx, seqno, ring, engine, aux0, aux1) + trailing,
                 cpu, flags=flags)

    def summary(self, ts, *fields, cpu=0):
        """A JOB_SUMMARY record: summary_body(*@fields)."""
        self.add(0x103, ts, summary_body(*fields), cpu)

    def unknown(self, ts, rtype, size, cpu=0):
        self.add(rtype, ts, b"\xa5" * (size - 32), cpu)

    def chunks(self, chunk=3, swap=True):
        """Bytes of the file: each CPU's records in order, cut into chunks
        of @chunk records, interleaved; with @swap CPU 1 goes first, so the
        file is not in gseq order."""
        return b"".join(b for _, b in self.pieces(chunk, swap))

    def trace_file(self, tasks=(), chunk=3, clients=()):
        """The same records in a trace file of version 2 ("The trace
        file"): the header, each chunk a frame, then a task table of
        @tasks, (pid, tid, comm, process) each, if any; with @clients,
        (id, pid, process) each, version 3 and a client table after."""
        pieces = self.pieces(chunk, True)
        # "host" as when this lived in report_golden.py: the same bytes.
        text = (b"kernel=golden\nhost=report_golden.py\nclock=monotonic\n"
                b"session=1\nstarted=0\n\0")
        out = grf_header(text, 3 if clients else 2, self.version,
                         len({c for c, _ in pieces}))
        for cpu, blob in pieces:
            out += grf_frame(cpu, 0, blob)
        return out + task_table(tasks) + client_table(clients)

    def pieces(self, chunk, swap):
        """(cpu, bytes) of each chunk, in the order chunks() writes them."""
        per_cpu = {}
        cseq = {}
        for g, (cpu, rtype, ts, body, gseq, flags) in enumerate(self.recs):
            gseq = g if gseq is None else gseq
            cseq[cpu] = cseq.get(cpu, -1) + 1
            per_cpu.setdefault(cpu, []).append(
                rec1(rtype, cpu, flags, ts, gseq, cseq[cpu], body))
        cpus = sorted(per_cpu, reverse=swap)
        out = []
        i = 0
        while any(i < len(per_cpu[c]) for c in cpus):
            for c in cpus:
                if per_cpu[c][i:i + chunk]:
                    out.append((c, b"".join(per_cpu[c][i:i + chunk])))
            i += chunk
        return out


# ---- records read by the document ---------------------------------------

# Control record bodies, the same in both formats: struct format and the
# {field: (offset, bytes)} table above, whose order is the struct's.
CONTROL = {
    "STREAM_INFO": (STREAM_INFO_FMT, STREAM_INFO_FIELDS),
    "METADATA": (METADATA_FMT, METADATA_FIELDS),
    "RING": (RING_DESC_FMT, RING_FIELDS),
    "JOB_SUMMARY": (SUMMARY_FMT, SUMMARY_FIELDS),
    "TRIGGER": (TRIGGER_FMT, TRIGGER_FIELDS),
    "RECORDER": (RECORDER_FMT, RECORDER_FIELDS),
}
V2_NAMES = {v: k for k, v in V2_TYPES.items()}


def ring_fields(blob):
    """A ring descriptor as a dict, its strings up to their NUL."""
    r = dict(zip(RING_FIELDS, struct.unpack_from(RING_DESC_FMT, blob)))
    for k in ("driver", "device", "name"):
        r[k] = r[k].split(b"\0", 1)[0].decode(errors="replace")
    return r


def control_fields(name, body, where):
    """The fields of control record @name's @body (format 1's, in both
    formats) by their uapi names; METADATA's and RING's ring descriptors
    as "rings", a list of ring_fields() (only that for RING, whose
    "name" would hide the record's)."""
    fmt, names = CONTROL[name]
    need = struct.calcsize(fmt)
    if len(body) < need:
        raise ValueError("%s: %s body of %d bytes, below its %d"
                         % (where, name, len(body), need))
    if name == "RING":
        return {"rings": [ring_fields(body)]}
    r = dict(zip(names, struct.unpack_from(fmt, body)))
    if name == "METADATA":
        size, n = r["ring_size"], r["nr_rings"]
        if size < RING_DESC_SIZE or len(body) < need + n * size:
            raise ValueError("%s: METADATA of %d rings of %d bytes in %d"
                             % (where, n, size, len(body)))
        r["rings"] = [ring_fields(body[need + i * size:]) for i in range(n)]
        r["kernel"] = r["kernel"].split(b"\0", 1)[0].decode(errors="replace")
    return r


def job1_fields(flags, body, where):
    if len(body) < struct.calcsize(JOB_FMT):
        raise ValueError("%s: job event body of %d bytes" % (where, len(body)))
    r = dict(zip(JOB_FIELDS, struct.unpack_from(JOB_FMT, body)))
    if flags & HDR_TASK and len(body) >= 48:
        r["pid"], r["tid"] = struct.unpack_from("<II", body, 40)
    return r


def job2_fields(flags, body, where):
    """A format 2 job event's fixed part, then AUX and TASK, as the flags
    table says."""
    wide = flags & v2_flag("WIDE")
    fmt, names = (V2_WIDE_FMT, V2_WIDE_FIELDS) if wide else \
        (V2_JOB_FMT, V2_JOB_FIELDS)
    parts = [(fmt, names)]
    if flags & v2_flag("AUX"):
        parts.append(("<QQ" if wide else "<II", ("aux0", "aux1")))
    if flags & v2_flag("TASK"):
        parts.append(("<II", ("pid", "tid")))
    need = sum(struct.calcsize(f) for f, _ in parts)
    if len(body) < need:
        raise ValueError("%s: job event of %d bytes, its parts need %d"
                         % (where, len(body), need))
    r, off = dict(aux0=0, aux1=0), 0
    for f, n in parts:
        r.update(zip(n, struct.unpack_from(f, body, off)))
        off += struct.calcsize(f)
    return r


def decode(data, fmt=None, cpu=0):
    """The records of a bare stream of format @fmt (None: its first record
    tells, format 2's STREAM_INFO being type 0x80), one CPU's in format 2
    (@cpu, the channel's).  A dict each: offset, type, name (TYPE_0x...
    for a type no table names), size, flags, ts, cseq (format 2: its low
    32 bits), gseq (None where a format 2 record has none), channel (the
    CPU), and its body's fields by their uapi names.  ValueError, naming
    the byte, at the first record that is corrupt."""
    if fmt is None:
        fmt = 2 if data[:1] == bytes([V2_TYPES["STREAM_INFO"]]) else 1
    hsz = V2_HDR_SIZE if fmt == 2 else HDR_SIZE
    recs, off = [], 0
    while off < len(data):
        if off + hsz > len(data):
            raise ValueError("bad record size: a header cut short at "
                             "offset %d" % off)
        if fmt == 2:
            r = dict(zip(V2_HDR_FIELDS,
                         struct.unpack_from(V2_HDR_FMT, data, off)))
            r["channel"] = cpu
            bad = r["size"] % 4 or r["size"] > 8192
        else:
            r = dict(zip(HDR_FIELDS, struct.unpack_from(HDR_FMT, data, off)))
            r["channel"] = r.pop("cpu")
            bad = False
        size, flags = r["size"], r["flags"]
        if bad or size < hsz or off + size > len(data):
            raise ValueError("bad record size %d at offset %d" % (size, off))
        body = data[off + hsz:off + size]
        where = "byte %d" % off
        r["offset"] = off
        if fmt == 2:
            r["gseq"] = None
            if flags & v2_flag("GSEQ"):
                if len(body) < 8:
                    raise ValueError("%s: no room for its gseq" % where)
                r["gseq"] = struct.unpack_from("<Q", body, len(body) - 8)[0]
                body = body[:-8]
            name = V2_NAMES.get(r["type"], TYPES.get(r["type"])
                                if r["type"] < 32 else None)
        else:
            name = TYPES.get(r["type"])
        r["name"] = name or "TYPE_0x%x" % r["type"]
        if name in CONTROL:
            r.update(control_fields(name, body, where))
        elif name:
            r.update((job2_fields if fmt == 2 else job1_fields)(flags, body,
                                                                where))
        recs.append(r)
        off += size
    return fmt, recs


# ---- trace files: read by the document, packed from a bare stream -----

def grf_parse(data):
    """Yield ('header', offset, dict) and ('frame', offset, cpu, flags,
    payload, raw)."""
    pos = 0
    while pos < len(data):
        if data[pos:pos + 8] == GRF_MAGIC:
            magic, size, version, flags, fmt, cpus = \
                GRF_FIXED.unpack_from(data, pos)
            text = data[pos + GRF_FIXED.size:pos + size].split(b"\0", 1)[0]
            kv = dict(l.split("=", 1) for l in text.decode().splitlines()
                      if "=" in l)
            kv.update(size=size, version=version, flags=flags,
                      stream_format=fmt, cpus=cpus)
            yield ("header", pos, kv)
            pos += size
            continue
        magic, cpu, flags, stored, raw = GRF_FRAME.unpack_from(data, pos)
        if magic != b"GRFR":
            raise ValueError("byte %d: no frame" % pos)
        payload = data[pos + GRF_FRAME.size:pos + GRF_FRAME.size + stored]
        if len(payload) != stored:
            raise ValueError("byte %d: frame cut short" % pos)
        yield ("frame", pos, cpu, flags, payload, raw)
        pos += GRF_FRAME.size + stored


def frame_records(flags, payload, raw):
    out = unzstd(payload) if flags & GRF_ZSTD else payload
    if len(out) != raw:
        raise ValueError("frame decompresses to %d bytes, says %d"
                         % (len(out), raw))
    return out


def records1(data):
    """The records of a bare format 1 stream: (cpu, bytes) each, by their
    size fields, up to the first that is not whole (the input may be cut)."""
    out, pos = [], 0
    while pos + HDR_SIZE <= len(data):
        _, size, cpu = struct.unpack_from(HDR_FMT[:4], data, pos)
        if size < HDR_SIZE or size % 8 or pos + size > len(data):
            break
        out.append((cpu, data[pos:pos + size]))
        pos += size
    return out


def runs(data):
    """A bare format 1 stream's runs of one CPU: (cpu, bytes), in order."""
    out, pos, start, cur = [], 0, 0, None
    while pos < len(data):
        _, size, cpu = struct.unpack_from(HDR_FMT[:4], data, pos)
        if cpu != cur and pos != start:
            out.append((cur, data[start:pos]))
            start = pos
        cur = cpu
        pos += size
    if pos != start:
        out.append((cur, data[start:pos]))
    return out


def split(blob, limit):
    """Whole records of @blob in pieces of at most @limit bytes (both
    formats have the record's size at byte 2)."""
    pos, start = 0, 0
    while pos < len(blob):
        size = struct.unpack_from("<H", blob, pos + 2)[0]
        if pos + size - start > limit and pos != start:
            yield blob[start:pos]
            start = pos
        pos += size
    if pos != start:
        yield blob[start:pos]


def order(pieces, how):
    if how == "time":
        return pieces
    cpus = sorted({c for c, _ in pieces}, reverse=(how == "reverse"))
    return [p for c in cpus for p in pieces if p[0] == c]


def to_v2(data, gseq, lose, keep_cseq=False):
    """A bare format 1 stream as format 2 runs of one CPU: (cpu, bytes).
    With keep_cseq, each record keeps the low 32 bits of its cseq (a
    flight recorder's snapshot, whose gaps mean something) instead of
    being renumbered from 0."""
    out, cseq, jobs, pos = [], {}, {}, 0
    while pos < len(data):
        rtype, size, cpu, flags, ts, gs, cs = struct.unpack_from(HDR_FMT,
                                                                 data, pos)
        body = data[pos + HDR_SIZE:pos + size]
        pos += size
        n = cseq.get(cpu, 0)
        cseq[cpu] = n + 1
        if keep_cseq:
            n = cs & 0xffffffff
        if rtype < 32:
            j = jobs.get(cpu, 0)
            jobs[cpu] = j + 1
            if cpu == 1 and j == lose:
                continue
            ctx, seqno, ring, engine, _, aux0, aux1 = struct.unpack_from(
                JOB_FMT, body)
            # Format 1's pid and tid follow the job event.
            task = struct.unpack_from("<II", body, 40) \
                if flags & HDR_TASK and len(body) >= 48 else None
            fl, rec = job2_body(ctx, seqno, ring, engine, aux0, aux1, task,
                                flags & HDR_DERIVED, flags & HDR_CLIENT)
            t2 = rtype
        elif rtype == 0x100:
            # STREAM_INFO: version 2, hdr_size 16; gseq only if kept, and
            # cseq counts losses.
            magic, _, _, clock, ncpu, feat, sid = struct.unpack_from(
                STREAM_INFO_FMT, body)
            feat = (feat | FEAT_CSEQ_LOSS) & ~(0 if gseq else FEAT_GSEQ)
            fl, t2 = 0, V2_TYPES["STREAM_INFO"]
            rec = stream_info_body(2, clock, ncpu, feat, sid, magic=magic,
                                   hdr_size=V2_HDR_SIZE) + body[32:]
        else:
            # Other control types keep their low bits (TRIGGER 0x104 is
            # 0x84, RECORDER 0x105 0x85); unknown ones: 0xfe.
            fl, rec = 0, body
            t2 = rtype - 0x100 + 0x80 if 0x100 <= rtype < 0x180 else V2_UNKNOWN
        if gseq:
            fl |= v2_flag("GSEQ")
            rec += struct.pack("<Q", gs)
        rec = rec2(t2, fl, n, ts, rec)
        if out and out[-1][0] == cpu:
            out[-1] = (cpu, out[-1][1] + rec)
        else:
            out.append((cpu, rec))
    return out


def snapshot_v2(data):
    """A flight recorder's snapshot stream, given in format 1, as the
    module writes it in format 2 ("Flight recorder"): each record keeps
    the low 32 bits of its cseq, one whose gseq is 0 (the fresh records)
    has no GSEQ part, and STREAM_INFO says GSEQ: the session's job
    events carry it, though the fresh STREAM_INFO does not."""
    out, pos = b"", 0
    while pos < len(data):
        size = struct.unpack_from("<H", data, pos + 2)[0]
        rec = data[pos:pos + size]
        gs = struct.unpack_from("<Q", rec, HDR_FIELDS["gseq"][0])[0]
        b2 = b"".join(b for _, b in to_v2(rec, gs != 0, -1, keep_cseq=True))
        if b2[0] == V2_TYPES["STREAM_INFO"]:
            off = STREAM_INFO_FIELDS["features"][0] - HDR_SIZE + V2_HDR_SIZE
            feat = struct.unpack_from("<Q", b2, off)[0] | FEAT_GSEQ
            b2 = b2[:off] + struct.pack("<Q", feat) + b2[off + 8:]
        out += b2
        pos += size
    return out


def pack(src, dst, how, limit, compress, v2=None):
    """A trace file of the bare stream in file @src (see the usage)."""
    data = open(src, "rb").read()
    pieces = [(c, b) for c, run in (runs(data) if v2 is None else
                                    to_v2(data, *v2))
              for b in split(run, limit)]
    # "host" names the script this came from (tests/grf.py): the packed
    # files, and the tests that read their header, stay as they were.
    text = b"kernel=packed\nhost=grf.py\nclock=monotonic\nsession=1\nstarted=0\n\0"
    out = [grf_header(text, 1, 2 if v2 else 1, len({c for c, _ in pieces}),
                      GRF_ZSTD if compress else 0)]
    for cpu, blob in order(pieces, how):
        if compress:
            out.append(grf_frame(cpu, GRF_ZSTD, zstd(blob), len(blob)))
        else:
            out.append(grf_frame(cpu, 0, blob))
    open(dst, "wb").write(b"".join(out))


def grf_command(argv):
    """The trace file commands of the usage; False if @argv is none."""
    if len(argv) >= 5 and argv[0] == "pack2":
        opts = argv[5:]
        lose = [int(o[5:]) for o in opts if o.startswith("lose=")]
        pack(argv[1], argv[2], argv[3], int(argv[4]), "zstd" in opts,
             ("gseq" in opts, lose[0] if lose else -1))
    elif len(argv) >= 5 and argv[0] == "pack":
        pack(argv[1], argv[2], argv[3], int(argv[4]),
             len(argv) > 5 and argv[5] == "zstd")
    elif len(argv) == 4 and argv[0] == "bare":
        pieces = order(runs(open(argv[1], "rb").read()), argv[3])
        open(argv[2], "wb").write(b"".join(b for _, b in pieces))
    elif len(argv) == 2 and argv[0] == "info":
        for item in grf_parse(open(argv[1], "rb").read()):
            if item[0] == "header":
                print("header at %d: %s" % (item[1], " ".join(
                    "%s=%s" % kv for kv in sorted(item[2].items()))))
            else:
                _, pos, cpu, flags, payload, raw = item
                print("frame at %d: cpu=%d flags=%d stored=%d raw=%d" %
                      (pos, cpu, flags, len(payload), raw))
    elif len(argv) == 3 and argv[0] == "stream":
        for item in grf_parse(open(argv[1], "rb").read()):
            # Task, client and CPU tail tables hold no records.
            if item[0] == "frame" and item[2] == int(argv[2]) and \
               not item[3] & GRF_TABLES:
                sys.stdout.buffer.write(frame_records(*item[3:]))
    else:
        return False
    return True


def main():
    if sys.argv[1:] and sys.argv[1] != "--check":
        if grf_command(sys.argv[1:]):
            return 0
        print(__doc__, file=sys.stderr)
        return 2
    check = "--check" in sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    bad = 0
    for name, fn in VECTORS.items():
        s = fn()
        files = [(".bin", bytes(s.data)),
                 (".dump", s.dump_text().encode()),
                 (".offsets", s.offsets_text().encode())]
        if isinstance(s, Stream2):
            files.append((".grf", s.grf()))
        # The reader against the writer: a record where one was written.
        fmt = 2 if isinstance(s, Stream2) else 1
        got = [r["offset"] for r in decode(bytes(s.data), fmt)[1]]
        if got != s.starts:
            print("gen_golden: decode() of %s: records at %s, written at %s"
                  % (name, got, s.starts), file=sys.stderr)
            bad = 1
        for ext, content in files:
            path = os.path.join(here, name + ext)
            if check:
                try:
                    with open(path, "rb") as f:
                        same = f.read() == content
                except OSError:
                    same = False
                if not same:
                    print("gen_golden: %s is out of date" % path,
                          file=sys.stderr)
                    bad = 1
            else:
                with open(path, "wb") as f:
                    f.write(content)
    return bad


if __name__ == "__main__":
    sys.exit(main())
