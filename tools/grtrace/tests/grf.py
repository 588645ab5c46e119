#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""grf.py - read a grtrace trace file by its specification alone.

Usage: grf.py info FILE        the header's fields and every frame, one a line
       grf.py stream FILE CPU  CPU's records, decompressed and joined in file
                               order, to standard output (a bare stream)
       grf.py pack BARE OUT ORDER FRAME [zstd]
                               a trace file of the bare stream BARE: each
                               CPU's records in frames of at most FRAME
                               bytes, the frames in ORDER: "time" (as the
                               stream has them), "cpu" (CPU 0's first) or
                               "reverse" (the last CPU's first)
       grf.py pack2 BARE OUT ORDER FRAME [zstd] [gseq] [lose=N]
                               as pack, the records converted to format 2
                               ("Format 2"): each CPU's cseq renumbered from
                               0, a SUBMIT's task and client flag kept,
                               gseq kept only with "gseq"; "lose=N"
                               leaves out CPU 1's N-th job event (from 0)
                               as a full buffer would, its cseq taken
       grf.py bare BARE OUT ORDER
                               the bare stream BARE with its runs of one
                               CPU in ORDER, as an old "record" would
                               have written it had the CPUs drained so

Written from Documentation/gpu/grtrace.rst ("The trace file", "Format 2"), not from
the tool's C code, so that the tests hold the two to the document.  zstd
frames are decompressed with the zstd command.
"""
import struct
import subprocess
import sys

MAGIC = b"GRTRACE\0"
FIXED = struct.Struct("<8sIHHII")        # magic, size, version, flags, format, cpus
FRAME = struct.Struct("<4sHHII")         # "GRFR", cpu, flags, stored, raw


def parse(data):
    """Yield ('header', offset, dict) and ('frame', offset, cpu, flags, payload, raw)."""
    pos = 0
    while pos < len(data):
        if data[pos:pos + 8] == MAGIC:
            magic, size, version, flags, fmt, cpus = FIXED.unpack_from(data, pos)
            text = data[pos + FIXED.size:pos + size].split(b"\0", 1)[0].decode()
            kv = dict(l.split("=", 1) for l in text.splitlines() if "=" in l)
            kv.update(size=size, version=version, flags=flags,
                      stream_format=fmt, cpus=cpus)
            yield ("header", pos, kv)
            pos += size
            continue
        magic, cpu, flags, stored, raw = FRAME.unpack_from(data, pos)
        if magic != b"GRFR":
            raise ValueError("byte %d: no frame" % pos)
        payload = data[pos + FRAME.size:pos + FRAME.size + stored]
        if len(payload) != stored:
            raise ValueError("byte %d: frame cut short" % pos)
        yield ("frame", pos, cpu, flags, payload, raw)
        pos += FRAME.size + stored


def records(flags, payload, raw):
    if flags & 1:
        out = subprocess.run(["zstd", "-dcq"], input=payload,
                             stdout=subprocess.PIPE, check=True).stdout
    else:
        out = payload
    if len(out) != raw:
        raise ValueError("frame decompresses to %d bytes, says %d" % (len(out), raw))
    return out


def runs(data):
    """The bare stream's runs of one CPU: (cpu, bytes), in stream order."""
    out, pos, start, cur = [], 0, 0, None
    while pos < len(data):
        size, cpu = struct.unpack_from("<HH", data, pos + 2)
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
        rtype, size, cpu, flags, ts, gs, cs = struct.unpack_from("<HHHHQQQ", data, pos)
        body = data[pos + 32:pos + size]
        pos += size
        n = cseq.get(cpu, 0)
        cseq[cpu] = n + 1
        if keep_cseq:
            n = cs
        if rtype < 32:
            j = jobs.get(cpu, 0)
            jobs[cpu] = j + 1
            if cpu == 1 and j == lose:
                continue
            ctx, seqno, ring, engine, _, aux0, aux1 = struct.unpack_from(
                "<QQIHHQQ", body)
            fl = flags & 1
            # WIDE (bit 4) when a number needs more than 32 bits.
            wide = any(v >> 32 for v in (ctx, seqno, aux0, aux1))
            n32 = "Q" if wide else "I"
            fl |= 0x10 if wide else 0
            # CLIENT (bit 5) as format 1's flags bit 2.
            fl |= 0x20 if flags & 4 else 0
            rec = struct.pack("<" + n32 * 2 + "HBB", ctx, seqno, ring, engine, 0)
            if aux0 or aux1:
                fl |= 2
                rec += struct.pack("<" + n32 * 2, aux0, aux1)
            # TASK (bit 2): format 1's pid and tid after the 72 bytes.
            if flags & 2 and len(body) >= 48:
                fl |= 4
                rec += body[40:48]
            t2 = rtype
        elif rtype == 0x100:
            # STREAM_INFO: version 2, hdr_size 16; gseq only if kept, and
            # cseq counts losses (features bits 0 and 4).
            magic, _, _, clock, ncpu, feat, sid = struct.unpack_from("<IHHIIQQ", body)
            feat = (feat | 0x10) & ~(0 if gseq else 1)
            fl, t2 = 0, 0x80
            rec = struct.pack("<IHHIIQQ", magic, 2, 16, clock, ncpu, feat, sid) + body[32:]
        else:
            # Other control types keep their low bits (TRIGGER 0x104 is
            # 0x84, RECORDER 0x105 0x85); unknown ones: 0xfe.
            fl, rec = 0, body
            t2 = rtype - 0x100 + 0x80 if 0x100 <= rtype < 0x180 else 0xfe
        if gseq:
            fl |= 8
            rec += struct.pack("<Q", gs)
        rec = struct.pack("<BBHIQ", t2, fl, 16 + len(rec), n & 0xffffffff, ts) + rec
        if out and out[-1][0] == cpu:
            out[-1] = (cpu, out[-1][1] + rec)
        else:
            out.append((cpu, rec))
    return out


def pack(src, dst, how, limit, zstd, v2=None):
    if v2 is None:
        pieces = [(c, b) for c, run in runs(open(src, "rb").read())
                  for b in split(run, limit)]
    else:
        pieces = [(c, b) for c, run in to_v2(open(src, "rb").read(), *v2)
                  for b in split(run, limit)]
    text = b"kernel=packed\nhost=grf.py\nclock=monotonic\nsession=1\nstarted=0\n\0"
    size = (FIXED.size + len(text) + 7) & ~7
    ncpu = len({c for c, _ in pieces})
    out = [FIXED.pack(MAGIC, size, 1, 1 if zstd else 0, 2 if v2 else 1, ncpu) +
           text.ljust(size - FIXED.size, b"\0")]
    for cpu, blob in order(pieces, how):
        payload, flags = blob, 0
        if zstd:
            payload = subprocess.run(["zstd", "-qc", "-1"], input=blob,
                                     stdout=subprocess.PIPE, check=True).stdout
            flags = 1
        out.append(FRAME.pack(b"GRFR", cpu, flags, len(payload), len(blob)))
        out.append(payload)
    open(dst, "wb").write(b"".join(out))


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "pack2":
        opts = sys.argv[6:]
        lose = [int(o[5:]) for o in opts if o.startswith("lose=")]
        pack(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
             "zstd" in opts, ("gseq" in opts, lose[0] if lose else -1))
        return
    if len(sys.argv) >= 6 and sys.argv[1] == "pack":
        pack(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
             len(sys.argv) > 6 and sys.argv[6] == "zstd")
        return
    if len(sys.argv) == 5 and sys.argv[1] == "bare":
        pieces = order(runs(open(sys.argv[2], "rb").read()), sys.argv[4])
        open(sys.argv[3], "wb").write(b"".join(b for _, b in pieces))
        return
    if len(sys.argv) < 3 or sys.argv[1] not in ("info", "stream"):
        sys.exit(__doc__)
    data = open(sys.argv[2], "rb").read()
    if sys.argv[1] == "info":
        for item in parse(data):
            if item[0] == "header":
                print("header at %d: %s" % (item[1], " ".join(
                    "%s=%s" % kv for kv in sorted(item[2].items()))))
            else:
                _, pos, cpu, flags, payload, raw = item
                print("frame at %d: cpu=%d flags=%d stored=%d raw=%d" %
                      (pos, cpu, flags, len(payload), raw))
        return
    want = int(sys.argv[3])
    for item in parse(data):
        # Task (bit 1), client (bit 2) and CPU tail (bit 3) tables hold
        # no records.
        if item[0] == "frame" and item[2] == want and not item[3] & 14:
            sys.stdout.buffer.write(records(item[3], item[4], item[5]))


if __name__ == "__main__":
    main()
