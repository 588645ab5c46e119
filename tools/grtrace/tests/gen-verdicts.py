#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gen-verdicts.py - the malformed inputs of the "one verdict" rule.

Writes tests/corpus/verdict-*.{bin,grf} (the fuzz corpus holds them too):
small inputs, each broken in one way, built with gen_golden.py's encoder
(written from the document, not from the C code).  What every reader must
say of each is tests/bad-input.txt, written by hand from the document's
rules and the messages the format's checks give; run-tests.sh holds
report, dump, export, parse_events.py and the Python binding to it.

    gen-verdicts.py           (re)write the files
    gen-verdicts.py --check   exit 1 if a committed file differs
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "testing", "selftests", "grtrace",
                      "golden")
sys.path.insert(0, GOLDEN)
import gen_golden as g  # noqa: E402

SUBMIT = g.TYPE_BY_NAME["SUBMIT"]
STREAM_INFO = g.TYPE_BY_NAME["STREAM_INFO"]


def head():
    """A STREAM_INFO (64 bytes) and one SUBMIT (72 bytes): 136 bytes."""
    si = g.rec1(STREAM_INFO, 0, 0, 1000, 1, 1,
                g.stream_info_body(1, g.CLOCK_MONOTONIC, 1, g.FEATURES, 7))
    job = g.rec1(SUBMIT, 0, 0, 2000, 2, 2, g.job_body(1, 1, 0, 1))
    assert len(si) == 64 and len(job) == 72
    return si + job


def bad_size(size, body=b""):
    """head(), then a SUBMIT header at byte 136 whose size field is @size."""
    job = bytearray(g.rec1(SUBMIT, 0, 0, 3000, 3, 3, g.job_body(1, 2, 0, 1)))
    job[2:4] = size.to_bytes(2, "little")
    return head() + bytes(job[:g.HDR_SIZE]) + body


def grf_text():
    return (b"kernel=6.1.0\nhost=verdicts\nclock=monotonic\nsession=7\n"
            b"started=0\n\0")


def files():
    out = {}
    with open(os.path.join(GOLDEN, "emit-basic.bin"), "rb") as f:
        golden = f.read()
    out["verdict-empty.bin"] = b""
    # The header of the record at byte 672 cut after 28 bytes.
    out["verdict-cut-golden.bin"] = golden[:700]
    # 20 of a header's 32 bytes.
    out["verdict-cut-header.bin"] = bad_size(72)[:136 + 20]
    # Sizes the header may not have; the last larger than the file left.
    out["verdict-size-too-large.bin"] = bad_size(0xfff8, bytes(64))
    out["verdict-size-small.bin"] = bad_size(16, bytes(64))
    out["verdict-size-odd.bin"] = bad_size(76, bytes(64))
    out["verdict-size-job-short.bin"] = bad_size(40, bytes(64))
    out["verdict-size-past-end.bin"] = bad_size(4096, bytes(40))
    # Trace files: a header cut, a frame too big, a frame cut.
    hdr = g.grf_header(grf_text(), 3, 1, 1)
    assert len(hdr) == 88
    out["verdict-grf-cut-header.grf"] = hdr[:40]
    big = bytearray(g.grf_frame(0, 0, head()))
    big[8:16] = (32 << 20).to_bytes(4, "little") * 2
    out["verdict-grf-frame-too-big.grf"] = hdr + bytes(big)
    out["verdict-grf-frame-cut.grf"] = hdr + g.grf_frame(0, 0, head())[:16 + 100]
    # A head table (frame flag 0x10) whose one entry names CPU 2^32 - 1:
    # a record's CPU field has 16 bits.
    entry = (0xffffffff).to_bytes(4, "little") + bytes(4) + (5).to_bytes(8, "little")
    out["verdict-grf-head-cpu.grf"] = hdr + g.grf_frame(0, 0x10, entry)
    return out


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] and not check:
        print(__doc__, file=sys.stderr)
        return 2
    bad = []
    for name, data in sorted(files().items()):
        path = os.path.join(HERE, "corpus", name)
        if check:
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                bad.append(name)
        else:
            with open(path, "wb") as f:
                f.write(data)
    if bad:
        print("gen-verdicts.py: differ from what it generates: %s"
              % " ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
