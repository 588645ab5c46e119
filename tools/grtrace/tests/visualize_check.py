#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of scripts/visualize_timeline.py on export_check.py's trace.

Ring 0 (gfx0) ran three jobs, each with a START and an END, 24 us in a
1.2 s window; ring 1 (sdma0) one finished job and one that started at
40.2 us and never ended, so it is busy to the end: saturated.  The script
says what it drew; the PNG's header gives its size.  A trace is read
through python/grtrace (the tool it is given is only a fallback).

    visualize_check.py GRTRACE TMPDIR     (run with a python3 that has
                                           matplotlib)
"""
import os
import struct
import subprocess
import sys


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from verdicts import Verdicts  # noqa: E402
from export_check import scenario  # noqa: E402

SCRIPT = os.path.join(HERE, "..", "scripts", "visualize_timeline.py")
WANT = ["ring 0 gfx0: 3 jobs, 3 executing bars, 0 never ended, busy 0.00%, saturated no",
        "ring 1 sdma0: 2 jobs, 1 executing bars, 1 never ended, busy 100.00%, saturated yes"]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def main():
    tool, tmp = sys.argv[1], sys.argv[2]
    v = Verdicts()
    result = v.result

    def run(*args):
        return subprocess.run([sys.executable, SCRIPT, "--grtrace", tool] +
                              list(args), capture_output=True, text=True)

    src = os.path.join(tmp, "vis.bin")
    with open(src, "wb") as f:
        f.write(scenario().chunks())
    out = os.path.join(tmp, "vis.png")
    p = run(src, "-o", out)
    result("visualize: a trace file: per ring its jobs, bars, busy share and verdict",
           p.returncode == 0 and p.stdout.splitlines() == WANT and p.stderr == "",
           "exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    result("visualize: the chart is a PNG of 1200 x 540 (Gantt and histograms)",
           png_size(out) == (1200, 540), png_size(out))

    # The trace is read through the binding: no tool is run.
    q = subprocess.run([sys.executable, SCRIPT, "--grtrace",
                        os.path.join(tmp, "no-such-grtrace"), src, "-o", out],
                       capture_output=True, text=True)
    result("visualize: a trace file is read through libgrtrace's Python module, not by running the tool",
           q.returncode == 0 and q.stdout.splitlines() == WANT,
           "exit %d\n%s%s" % (q.returncode, q.stdout, q.stderr))

    js = os.path.join(tmp, "vis.json")
    with open(js, "w") as f:
        subprocess.run([tool, "report", "-i", src, "--format", "json",
                        "--per-ring"], stdout=f, check=True)
    lat = os.path.join(tmp, "lat.png")
    q = run(js, "-o", lat, "--latency-only")
    result("visualize: report JSON in, --latency-only: the histograms alone (800 x 300)",
           q.returncode == 0 and q.stdout.splitlines() == WANT and
           png_size(lat) == (800, 300), "%s %s %s" % (q.stdout, q.stderr, png_size(lat)))

    missing = os.path.join(tmp, "missing.bin")
    q = run(missing, "-o", out)
    result("visualize: a missing input: one line naming it, exit 1",
           q.returncode == 1 and q.stderr.strip() ==
           "visualize_timeline.py: %s: No such file or directory" % missing, q.stderr)
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"jobs": [{"ring": 1}]}')
    q = run(bad, "-o", out)
    result("visualize: JSON that is not a report: one line, exit 1",
           q.returncode == 1 and len(q.stderr.strip().splitlines()) == 1 and
           "not a grtrace report JSON" in q.stderr, q.stderr)
    cut = os.path.join(tmp, "cut.bin")
    with open(src, "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:-9])
    q = run(cut, "-o", out)
    result("visualize: a truncated trace: report's error naming the file, exit 1",
           q.returncode == 1 and "cut.bin" in q.stderr and "byte" in q.stderr and
           len(q.stderr.strip().splitlines()) == 1, q.stderr)
    return v.failed


if __name__ == "__main__":
    sys.exit(main())
