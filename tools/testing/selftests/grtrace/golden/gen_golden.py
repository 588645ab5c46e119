#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate the grtrace golden stream vectors and their expected dumps.

This is deliberately independent of the C code: the record layouts below are
written from the documentation of include/uapi/linux/grtrace.h (all fields
little-endian, 32-byte header, record size a multiple of 8), and the
expected "grtrace dump" text is formatted here from the same values, not by
decoding the bytes.  So are the record boundaries in *.offsets: where each
record was put, as this file built it, for the decoder's tests to compare
with.  Run it from any directory; it writes next to itself:

    python3 gen_golden.py          # (re)write *.bin, *.dump and *.offsets
    python3 gen_golden.py --check  # exit 1 if the committed files differ
"""

import os
import struct
import sys

MAGIC = 0x52545247          # "GRTR"
VERSION = 1
HDR_SIZE = 32
CLOCK_MONOTONIC = 1
CLOCK_BOOTTIME = 7
FEATURES = 0x5f             # GSEQ | CSEQ | RING_REC | DERIVED | CSEQ_LOSS | CLIENT
HDR_DERIVED = 0x1          # grtrace_hdr.flags
RING_DESC_SIZE = 80

TYPES = {
    1: "SUBMIT", 2: "COMMIT", 3: "START", 4: "END", 5: "COMPLETE",
    6: "CTX_SWITCH", 7: "IRQ", 8: "SYNC_WAIT_ENTER", 9: "SYNC_WAIT_EXIT",
    10: "ERROR", 0x100: "STREAM_INFO", 0x101: "METADATA", 0x102: "RING",
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


def u64(v):
    """Two's complement for negative values, as the emit file stores them."""
    return v & 0xFFFFFFFFFFFFFFFF


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

    def _hdr(self, rtype, size, cpu, ts, gseq, cseq, flags=0):
        assert size % 8 == 0 and size >= 32
        # Every record begins with its header: this is where it starts.
        self.starts.append(len(self.data))
        return struct.pack(HDR_FMT, rtype, size, cpu, flags, ts, gseq, cseq)

    def _line(self, ts, cpu, gseq, name, text):
        self.lines.append((gseq, len(self.lines),
                           "%d %d %d %s %s" % (ts, cpu, gseq, name, text)))

    def stream_info(self, cpu, ts, gseq, cseq, nr_cpus, session,
                    clock=CLOCK_MONOTONIC, features=FEATURES):
        body = struct.pack(STREAM_INFO_FMT, MAGIC, VERSION, HDR_SIZE, clock,
                           nr_cpus, features, session)
        self.data += self._hdr(0x100, 32 + len(body), cpu, ts, gseq, cseq)
        self.data += body
        self._line(ts, cpu, gseq, "STREAM_INFO",
                   "magic=ok version=%d clock=%s cpus=%d session=%d "
                   "features=0x%x" % (VERSION, CLOCKS[clock], nr_cpus,
                                      session, features))

    @staticmethod
    def _ring_desc(r):
        return struct.pack(RING_DESC_FMT, r["id"], r["engine"],
                           r["instance"], r["driver"], r["device"],
                           r["name"])

    @staticmethod
    def _ring_text(r):
        return "id=%d engine=%s instance=%d driver=%s device=%s name=%s" % (
            r["id"], engine_name(r["engine"]), r["instance"],
            fmt_str(r["driver"]), fmt_str(r["device"]), fmt_str(r["name"]))

    def metadata(self, cpu, ts, gseq, cseq, kernel, rings):
        body = struct.pack(METADATA_FMT, len(rings), RING_DESC_SIZE, 0,
                           kernel)
        for r in rings:
            body += self._ring_desc(r)
        self.data += self._hdr(0x101, 32 + len(body), cpu, ts, gseq, cseq)
        self.data += body
        text = "kernel=%s rings=%d" % (fmt_str(kernel), len(rings))
        for r in rings:
            text += "\n    ring " + self._ring_text(r)
        self._line(ts, cpu, gseq, "METADATA", text)

    def ring(self, cpu, ts, gseq, cseq, r):
        body = self._ring_desc(r)
        self.data += self._hdr(0x102, 32 + len(body), cpu, ts, gseq, cseq)
        self.data += body
        self._line(ts, cpu, gseq, "RING", self._ring_text(r))

    def job(self, name, cpu, ts, gseq, cseq, ctx, engine, ring, seqno,
            aux0=0, aux1=0, trailing=b"", flags=0):
        body = struct.pack(JOB_FMT, ctx, seqno, ring, engine, 0, u64(aux0),
                           u64(aux1)) + trailing
        self.data += self._hdr(TYPE_BY_NAME[name], 32 + len(body), cpu, ts,
                               gseq, cseq, flags)
        self.data += body
        self._line(ts, cpu, gseq, name,
                   "ctx=%d seqno=%d ring=%d engine=%s aux0=%d aux1=%d%s" % (
                       ctx, seqno, ring, engine_name(engine),
                       # ERROR's aux0 is a negative errno: shown signed.
                       aux0 if name == "ERROR" else u64(aux0), u64(aux1),
                       " derived=1" if flags & HDR_DERIVED else ""))

    def unknown(self, rtype, size, cpu, ts, gseq, cseq, fill=0xA5):
        self.data += self._hdr(rtype, size, cpu, ts, gseq, cseq)
        self.data += bytes([fill]) * (size - 32)
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


class Stream2:
    """One CPU's format 2 records, and the dump of a trace file of them."""

    def __init__(self):
        self.data = bytearray()
        self.lines = []
        self.starts = []
        self.cseq = 0

    def _rec(self, rtype, flags, ts, body):
        size = V2_HDR_SIZE + len(body)
        assert size % 4 == 0
        vals = dict(type=rtype, flags=flags, size=size, cseq=self.cseq, ts=ts)
        self.starts.append(len(self.data))
        self.data += struct.pack(V2_HDR_FMT, *[vals[f] for f in V2_HDR_FIELDS])
        self.data += body
        self.cseq += 1

    def stream_info(self, ts, session):
        self._rec(V2_TYPES["STREAM_INFO"], 0, ts,
                  struct.pack(STREAM_INFO_FMT, MAGIC, 2, V2_HDR_SIZE,
                              CLOCK_MONOTONIC, 0, V2_FEATURES, session))
        self.lines.append("%d 0 0 STREAM_INFO magic=ok version=2 "
                          "clock=monotonic cpus=0 session=%d features=0x%x"
                          % (ts, session, V2_FEATURES))

    def metadata(self, ts):
        self._rec(V2_TYPES["METADATA"], 0, ts,
                  struct.pack(METADATA_FMT, 0, RING_DESC_SIZE, 0, b""))
        self.lines.append("%d 0 0 METADATA kernel= rings=0" % ts)

    def job(self, name, ts, ctx, engine, ring, seqno, aux0=0, aux1=0,
            task=None):
        vals = dict(ctx=ctx, seqno=seqno, ring_id=ring, engine=engine,
                    reserved=0)
        # WIDE when a number needs more than 32 bits (the flags table).
        wide = any(u64(v) >> 32 for v in (ctx, seqno, aux0, aux1))
        fmt, fields = (V2_WIDE_FMT, V2_WIDE_FIELDS) if wide else \
            (V2_JOB_FMT, V2_JOB_FIELDS)
        body = struct.pack(fmt, *[vals[f] for f in fields])
        flags = V2_FLAGS["WIDE"][0] if wide else 0
        if aux0 or aux1:
            flags |= V2_FLAGS["AUX"][0]
            body += struct.pack("<QQ" if wide else "<II", u64(aux0), u64(aux1))
            assert V2_FLAGS["AUX"][1] == 8
        if task is not None:
            flags |= V2_FLAGS["TASK"][0]
            body += struct.pack("<II", *task)
            assert V2_FLAGS["TASK"][1] == 8
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
        size = (24 + len(text) + 7) & ~7
        head = struct.pack("<8sIHHII", b"GRTRACE\0", size, 1, 0, 2, 1)
        head += text.ljust(size - 24, b"\0")
        return head + struct.pack("<4sHHII", b"GRFR", 0, 0, len(self.data),
                                  len(self.data)) + bytes(self.data)

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


def main():
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
