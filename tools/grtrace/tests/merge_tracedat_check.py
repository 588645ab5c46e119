#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of scripts/merge_timeline.py on trace-cmd's trace.dat.

    merge_tracedat_check.py TMPDIR [NO_TRACECMD_LIB]

tracedat/ioctl-v6.dat was recorded in the QEMU guest (vmtest.sh's
default kernel then, 7.3.4+deb13-rt-amd64) by
tests/vm/record-tracedat.sh (trace-cmd 3.1.6, "record -C mono -e
syscalls:sys_enter_ioctl -e syscalls:sys_exit_ioctl" around 40 ioctls of
python3), then stripped of kallsyms and the ftrace plugins' formats
(tracedat.strip(); 12 KB instead of 10 MB); ioctl-v6.report is the
guest's "trace-cmd report" of the recording, ioctl-v6.report-t the host's
"trace-cmd report -t" (nanoseconds) of the stripped file, ioctl-v7.dat its
"trace-cmd convert --file-version 7 --compression zstd".  The other
trace.dat files are written here (tracedat.py) around the ioctls of
merge_timeline_check.py, so that the answer is the text path's.

NO_TRACECMD_LIB: a libgrtrace.so.1 built without libtracecmd.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from verdicts import Verdicts  # noqa: E402
from export_check import scenario  # noqa: E402
from merge_timeline_check import IOCTLS, trace_cmd_text  # noqa: E402
import tracedat  # noqa: E402

SCRIPT = os.path.join(HERE, "..", "scripts", "merge_timeline.py")
VEC = os.path.join(HERE, "tracedat")
COMMS = {501: "client", 502: "client", 600: "other", 700: "stray"}


def gen(path, shift=0, ties=False):
    """merge_timeline_check's ioctls as a trace.dat of 2 CPUs: thread
    502's exit on the other CPU (it migrated), the stray exit of 700
    there too; with @ties, thread 599's ioctl beginning with 600's (the
    text orders them by name, "other/600" before "zother/599")."""
    t = open(os.path.join(VEC, "ioctl-v6.dat"), "rb").read()
    ids = tracedat.event_ids(t)
    cpus = [[], []]
    ioctls = list(IOCTLS)
    if ties:
        ioctls.append((599, "zother", 21000, 21500, 0xc0206442))
    for tid, _, a, b, cmd in ioctls:
        cpus[0].append((a + shift, tid, cmd))
        cpus[1 if tid in (502, 599) else 0].append((b + shift, tid, None))
    cpus[1].append((30000 + shift, 700, None))
    comms = dict(COMMS)
    if ties:
        comms[599] = "zother"
    with open(path, "wb") as f:
        tracedat.write(t, f, [tracedat.ioctl_pages(sorted(c), ids)
                              for c in cpus], comms)
    return path


def ties_text():
    """trace_cmd_text() with gen(ties=True)'s extra ioctl."""
    lines = trace_cmd_text().splitlines()
    add = ["          zother-599   [000] 0.000021000: sys_enter_ioctl:      fd: 0x00000003, cmd: 0xc0206442, arg: 0x7ffc1000",
           "          zother-599   [001] 0.000021500: sys_exit_ioctl:       0x0"]
    return "\n".join(lines + add) + "\n"


def main():
    tmp = sys.argv[1]
    nolib = sys.argv[2] if len(sys.argv) > 2 else None
    v = Verdicts()
    result = v.result

    def write(name, data):
        p = os.path.join(tmp, name)
        with open(p, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return p

    def run(*args, env=None):
        return subprocess.run([sys.executable, SCRIPT] + list(args),
                              capture_output=True, text=True,
                              env=dict(os.environ, **(env or {})))

    gpu = write("gpu.bin", scenario().chunks())
    v6, v7 = os.path.join(VEC, "ioctl-v6.dat"), os.path.join(VEC, "ioctl-v7.dat")

    # The guest's recording against trace-cmd's own reading of it.
    d = run("--cpu", v6, "--gpu", gpu)
    t = run("--cpu", os.path.join(VEC, "ioctl-v6.report-t"), "--gpu", gpu)
    result("merge_tracedat: a trace.dat recorded in the guest gives the timeline of its \"trace-cmd report -t\" text, byte for byte",
           d.returncode == 0 and d.stdout == t.stdout and
           "ioctls: 70 (0 enter or exit without its pair, or lost)" in d.stdout,
           d.stderr + t.stderr + d.stdout[-300:])
    g = run("--cpu", os.path.join(VEC, "ioctl-v6.report"), "--gpu", gpu)
    # trace-cmd rounds to the microsecond
    us = ["%d %s" % ((int(l.split()[0]) + 500) // 1000,
                     l.split(" ", 1)[1].split(" dur=")[0])
          for l in d.stdout.splitlines() if " cpu " in l]
    gus = ["%d %s" % (int(l.split()[0]) // 1000,
                      l.split(" ", 1)[1].split(" dur=")[0])
           for l in g.stdout.splitlines() if " cpu " in l]
    result("merge_tracedat: and the guest's own \"trace-cmd report\" (microseconds) the same ioctls at the same microseconds",
           g.returncode == 0 and us == gus and len(us) == 70 and
           g.stdout.splitlines()[-2:] == d.stdout.splitlines()[-2:],
           g.stderr + "\n".join(us[:3] + gus[:3]))
    q = run("--cpu", v7, "--gpu", gpu)
    result("merge_tracedat: the same recording as trace.dat version 7, zstd-compressed, gives the same timeline",
           q.returncode == 0 and q.stdout == d.stdout, q.stderr)

    # Written here: the answer is the text path's.
    p = run("--cpu", write("cpu.txt", trace_cmd_text()), "--gpu", gpu)
    q = run("--cpu", gen(os.path.join(tmp, "gen.dat")), "--gpu", gpu)
    result("merge_tracedat: ioctls of 2 CPUs (one thread migrating mid-ioctl) and a stray exit: the text path's timeline, jobs linked",
           q.returncode == 0 and q.stdout == p.stdout and
           "jobs: 5; linked to their ioctl: 3;" in q.stdout, q.stdout + q.stderr)
    for args in (["--verbose"], ["--stats-only"]):
        a = run("--cpu", os.path.join(tmp, "cpu.txt"), "--gpu", gpu, *args)
        b = run("--cpu", os.path.join(tmp, "gen.dat"), "--gpu", gpu, *args)
        result("merge_tracedat: %s gives the text path's output" % args[0],
               b.returncode == 0 and a.stdout == b.stdout, b.stdout + b.stderr)
    # The library writes the lines a slice of ioctls at a time: job
    # events and linked ioctls at the slices' edges.
    bad = []
    for n in (1, 2, 3, 4):
        for args in ([], ["--verbose"]):
            a = run("--cpu", os.path.join(tmp, "cpu.txt"), "--gpu", gpu, *args)
            b = run("--cpu", os.path.join(tmp, "gen.dat"), "--gpu", gpu, *args,
                    env={"GRTRACE_MERGE_SLICE": str(n)})
            if b.returncode or a.stdout != b.stdout:
                bad.append("slices of %d %s: %s" % (n, args, b.stdout + b.stderr))
    result("merge_tracedat: written in slices of 1 to 4 ioctls, the same timeline",
           not bad, "\n".join(bad))
    q = run("--cpu", gen(os.path.join(tmp, "shift.dat"), 7000), "--gpu", gpu,
            "--clock-offset", "-7000")
    result("merge_tracedat: --clock-offset moves a trace.dat's times",
           q.returncode == 0 and q.stdout == p.stdout, q.stdout + q.stderr)
    out = os.path.join(tmp, "out.txt")
    q = run("--cpu", os.path.join(tmp, "gen.dat"), "--gpu", gpu, "--output", out)
    result("merge_tracedat: --output writes the same timeline to a file",
           q.returncode == 0 and q.stdout == "" and
           open(out).read() == p.stdout, q.stderr)
    a = run("--cpu", write("ties.txt", ties_text()), "--gpu", gpu)
    b = run("--cpu", gen(os.path.join(tmp, "ties.dat"), ties=True), "--gpu", gpu)
    result("merge_tracedat: two ioctls beginning at one time keep the text path's order",
           b.returncode == 0 and a.stdout == b.stdout and
           "21000 cpu ioctl zother/599" in b.stdout, a.stdout + b.stdout + b.stderr)

    # Bad input: one line naming the file and the problem, exit 1.
    data6, data7 = open(v6, "rb").read(), open(v7, "rb").read()
    for name, data, msg in (
            ("cut-data.dat", data6[:8000], "a trace.dat, but its CPU data is cut short (the file is truncated)"),
            ("cut-head.dat", data6[:1500], "a trace.dat, but its event formats are cut short"),
            ("cut-v7.dat", data7[:33], "a trace.dat, but its first header is cut short"),
            ("cut-v7-late.dat", data7[:1000], "not a trace.dat libtracecmd can read (truncated or corrupt headers)")):
        f = write(name, data)
        q = run("--cpu", f, "--gpu", gpu)
        result("merge_tracedat: %s: %s, one line, exit 1" % (name, msg),
               q.returncode == 1 and q.stdout == "" and
               q.stderr == "merge_timeline.py: %s: %s\n" % (f, msg), q.stderr)

    # A libgrtrace built without libtracecmd: trace.dat refused, saying
    # why; text still read.
    if not nolib:
        result("merge_tracedat: a libgrtrace without libtracecmd refuses a trace.dat, saying why",
               False, "no library built without libtracecmd given (run from make check)")
        return v.failed
    env = {"GRTRACE_LIB": nolib}
    q = run("--cpu", v6, "--gpu", gpu, env=env)
    result("merge_tracedat: a libgrtrace without libtracecmd refuses a trace.dat: one line naming the file and what to install, exit 1",
           q.returncode == 1 and q.stdout == "" and len(q.stderr.splitlines()) == 1 and
           q.stderr.startswith("merge_timeline.py: %s: a trace-cmd trace.dat, but the libgrtrace loaded (%s) was built without libtracecmd: install libtracecmd-dev"
                               % (v6, nolib)), q.stderr)
    q = run("--cpu", os.path.join(tmp, "cpu.txt"), "--gpu", gpu, env=env)
    result("merge_tracedat: without libtracecmd text is read as before",
           q.returncode == 0 and q.stdout == p.stdout, q.stderr)
    return v.failed


if __name__ == "__main__":
    sys.exit(main())
