#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gen-tracedat.py - a synthetic trace.dat of ioctls, for bench-merge.sh.

    gen-tracedat.py [--threads N] [--cpus N] SIZE_MB OUT

Writes a trace-cmd trace.dat (version 6) of about SIZE_MB megabytes whose
headers (event formats, cmdlines, options) are those of the guest
recording tests/tracedat/ioctl-v6.dat, and whose CPU data is ioctls of
N threads (default 8) spread over the CPUs (default 2): each thread's
enter and exit 1 to 4 us apart, DRM and other commands mixed.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tracedat  # noqa: E402

CMDS = (0xc0206442, 0xc01064b2, 0x5401, 0xc0186444)
PER_IOCTL = 72              # bytes of ring buffer per enter + exit


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("size_mb", type=float)
    ap.add_argument("out")
    a = ap.parse_args()
    with open(os.path.join(HERE, "tracedat", "ioctl-v6.dat"), "rb") as f:
        template = f.read()
    ids = tracedat.event_ids(template)
    per_cpu = int(a.size_mb * 1e6 / PER_IOCTL * 4080 / 4096) // a.cpus
    pages = []
    for c in range(a.cpus):
        tids = [1000 + t for t in range(a.threads) if t % a.cpus == c]
        ts, evs = 10**9 + c * 137, []
        for i in range(per_cpu):
            tid = tids[i % len(tids)]
            dur = 1000 + (i * 7919) % 3000
            evs.append((ts, tid, CMDS[i % len(CMDS)]))
            evs.append((ts + dur, tid, None))
            ts += dur + 200 + (i * 104729) % 800
        pages.append(tracedat.ioctl_pages(evs, ids))
    with open(a.out, "wb") as f:
        tracedat.write(template, f, pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
