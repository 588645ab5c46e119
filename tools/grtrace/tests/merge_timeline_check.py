#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of scripts/merge_timeline.py on hand-built inputs.

The GPU side is export_check.py's trace (SUBMITs of threads 501, 502 and
600); the CPU side is "trace-cmd report" text (and the same as "perf
script" text) with ioctls whose intervals cover some of those SUBMITs and
not others.  The expected links and counts are worked out below.

    merge_timeline_check.py TMPDIR
"""
import os
import subprocess
import sys


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from verdicts import Verdicts  # noqa: E402
from export_check import scenario, TASK  # noqa: E402

SCRIPT = os.path.join(HERE, "..", "scripts", "merge_timeline.py")
# (tid, comm, enter ns, exit ns, cmd): 0x42 is DRM_COMMAND_BASE + 2, 0xb2
# MODE_CREATE_DUMB.  SUBMITs: 100:1 at 1000 (tid 501), 100:2 at 1500
# (502), 200:1 at 5000 (501), 100:3 at 22000 (600), 200:2 at 40000 (600).
IOCTLS = [(501, "client", 900, 1100, 0xc0206442),     # covers 100:1
          (502, "client", 1400, 1600, 0xc0206442),    # covers 100:2
          (501, "client", 4000, 4500, 0xc0206442),    # ends before 200:1
          (600, "other", 21000, 23000, 0xc02064b2)]   # covers 100:3


def secs(ns):
    return "%d.%09d" % (ns // 10**9, ns % 10**9)


def trace_cmd_text(shift=0):
    lines = ["cpus=2"]
    evs = []
    for tid, comm, a, b, cmd in IOCTLS:
        evs.append((a, "%16s-%-5d [000] %s: sys_enter_ioctl:      fd: 0x00000003, cmd: 0x%08x, arg: 0x7ffc1000"
                    % (comm, tid, secs(a + shift), cmd)))
        evs.append((b, "%16s-%-5d [000] %s: sys_exit_ioctl:       0x0"
                    % (comm, tid, secs(b + shift))))
    evs.append((30000, "%16s-%-5d [001] %s: sys_exit_ioctl:       0x0"
                % ("stray", 700, secs(30000 + shift))))
    return "\n".join(lines + [t for _, t in sorted(evs)]) + "\n"


def perf_text():
    evs = []
    for tid, comm, a, b, cmd in IOCTLS:
        evs.append((a, "%16s %6d [000] %s: syscalls:sys_enter_ioctl: fd: 0x00000003, cmd: 0x%08x, arg: 0x7ffc1000"
                    % (comm, tid, secs(a), cmd)))
        evs.append((b, "%16s %6d [000] %s: syscalls:sys_exit_ioctl: 0x0"
                    % (comm, tid, secs(b))))
    evs.append((30000, "%16s %6d [001] %s: syscalls:sys_exit_ioctl: 0x0"
                % ("stray", 700, secs(30000))))
    return "\n".join(t for _, t in sorted(evs)) + "\n"


def annotate_text(lost=0):
    """The same ioctls as grtrace-bpf-annotate writes them (in the order
    they returned), with the driver's own name for 0x42."""
    lines = ["# grtrace-bpf-annotate 1 clock=monotonic pid=all start=1",
             "# ts_ns dur_ns pid tid device cmd ret name comm"]
    for tid, comm, a, b, cmd in sorted(IOCTLS, key=lambda i: i[3]):
        name = "DRM_IOCTL_VIRTGPU_EXECBUFFER" if cmd & 0xff == 0x42 else \
            "DRM_IOCTL_MODE_CREATE_DUMB"
        lines.append("%d %d %d %d virtio_gpu:card0 0x%x -38 %s %s"
                     % (a, b - a, 500, tid, cmd, name, comm))
    lines.append("# end=50000 ioctls=4 lost=%d untimed=0 before_start=0" % lost)
    return "\n".join(lines) + "\n"


STATS = ["ioctls: 4 (1 enter or exit without its pair, or lost)",
         "jobs: 5; linked to their ioctl: 3; submitter named but no ioctl of it covers the SUBMIT: 2; no submitter data: 0"]


def main():
    tmp = sys.argv[1]
    v = Verdicts()
    result = v.result

    def write(name, data):
        p = os.path.join(tmp, name)
        with open(p, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return p

    gpu = write("gpu.bin", scenario().chunks())
    tc = write("cpu.txt", trace_cmd_text())

    def run(*args):
        return subprocess.run([sys.executable, SCRIPT] + list(args),
                              capture_output=True, text=True)

    p = run("--cpu", tc, "--gpu", gpu)
    out = p.stdout.splitlines()
    want = [
        "900 cpu ioctl client/501 DRM_COMMAND_BASE+0x02 dur=200 jobs=100:1",
        "1000 gpu SUBMIT 100:1 ring=gfx0 pid=500 tid=501 ioctl=DRM_COMMAND_BASE+0x02",
        "1400 cpu ioctl client/502 DRM_COMMAND_BASE+0x02 dur=200 jobs=100:2",
        "1500 gpu SUBMIT 100:2 ring=gfx0 pid=500 tid=502 ioctl=DRM_COMMAND_BASE+0x02",
        "4000 cpu ioctl client/501 DRM_COMMAND_BASE+0x02 dur=500",
        "5000 gpu SUBMIT 200:1 ring=sdma0 pid=500 tid=501",
        "21000 cpu ioctl other/600 DRM_IOCTL_MODE_CREATE_DUMB dur=2000 jobs=100:3",
        "22000 gpu SUBMIT 100:3 ring=gfx0 pid=600 tid=600 ioctl=DRM_IOCTL_MODE_CREATE_DUMB",
    ]
    got = [l for l in out if " cpu " in l or " SUBMIT " in l][:8]
    result("merge_timeline: ioctls and SUBMITs in time order, each job linked to the ioctl covering it",
           p.returncode == 0 and got == want and out[-2:] == STATS,
           "exit %d %s\n" % (p.returncode, p.stderr) + "\n".join(out))
    evs = [l for l in out if " gpu " in l]
    result("merge_timeline: every job event of the trace on the timeline",
           len(evs) == sum(1 for r in scenario().recs if r[1] < 32),
           "%d gpu lines" % len(evs))

    q = run("--cpu", write("perf.txt", perf_text()), "--gpu", gpu)
    result("merge_timeline: perf script text gives the same timeline",
           q.returncode == 0 and q.stdout == p.stdout, q.stdout + q.stderr)
    # The kernel's own trace file: its arguments in hex without 0x, and
    # from 6.16 on with it.
    for name, pre, what in (("ftrace.txt", "", "the kernel's own trace text"),
                            ("ftrace616.txt", "0x", "the kernel's trace text of 6.16+ (cmd: 0x...)")):
        ft = trace_cmd_text()
        ft = ft.replace("sys_enter_ioctl:      fd: 0x00000003, cmd: 0x",
                        "sys_ioctl(fd: %s3, cmd: %s" % (pre, pre))
        ft = ft.replace(", arg: 0x7ffc1000", ", arg: %s7ffc1000)" % pre)
        ft = ft.replace("sys_exit_ioctl:       0x0", "sys_ioctl -> 0x0")
        q = run("--cpu", write(name, ft), "--gpu", gpu)
        result("merge_timeline: %s gives the same timeline" % what,
               q.returncode == 0 and q.stdout == p.stdout and
               "sys_ioctl(fd: %s3, cmd: %sc0206442" % (pre, pre) in ft,
               q.stdout + q.stderr)
    q = run("--cpu", write("shifted.txt", trace_cmd_text(7000)), "--gpu", gpu,
            "--clock-offset", "-7000")
    result("merge_timeline: --clock-offset moves the CPU side onto grtrace's clock",
           q.returncode == 0 and q.stdout == p.stdout, q.stdout + q.stderr)
    q = run("--cpu", tc, "--gpu", gpu, "--stats-only")
    result("merge_timeline: --stats-only prints the counts alone",
           q.returncode == 0 and q.stdout.splitlines() == STATS, q.stdout + q.stderr)

    q = run("--cpu", write("annotate.txt", annotate_text(1)), "--gpu", gpu)
    named = [l.replace("DRM_COMMAND_BASE+0x02", "DRM_IOCTL_VIRTGPU_EXECBUFFER")
             for l in p.stdout.splitlines()]
    result("merge_timeline: grtrace-bpf-annotate's output gives the same timeline, named as the kernel names the ioctls",
           q.returncode == 0 and q.stdout.splitlines() == named, q.stdout + q.stderr)
    bad = [("annotate-v2.txt", annotate_text().replace(" 1 clock", " 2 clock"),
            "line 1: grtrace-bpf-annotate format 2, this script reads 1"),
           ("annotate-cut.txt", annotate_text().rsplit("\n", 2)[0] + "\n",
            "line 6: no end line: truncated (was the annotator killed?)"),
           ("annotate-bad.txt", annotate_text().replace(" -38 ", " x "),
            "line 3: not an annotator record (ts dur pid tid device cmd ret name comm)")]
    for name, text, msg in bad:
        f = write(name, text)
        q = run("--cpu", f, "--gpu", gpu)
        result("merge_timeline: annotator output, %s: one line naming file and line, exit 1"
               % msg.split(": ", 1)[1].split(" (")[0],
               q.returncode == 1 and q.stdout == "" and
               q.stderr.strip() == "merge_timeline.py: %s: %s" % (f, msg), q.stderr)

    t = scenario()
    for r in t.recs:
        if r[5] & TASK:
            r[5] &= ~TASK
            r[3] = r[3][:-8]
    q = run("--cpu", tc, "--gpu", write("notask.bin", t.chunks()), "--stats-only")
    result("merge_timeline: without submitter data it says so and links nothing",
           q.returncode == 0 and q.stdout.splitlines()[1:] == [
               "jobs: 5; linked to their ioctl: 0; submitter named but no ioctl of it covers the SUBMIT: 0; no submitter data: 5",
               "no submitter data: the grtrace file's SUBMITs carry no thread (format 1, or submitted from interrupts): nothing can be linked"],
           q.stdout + q.stderr)

    # The sampler's threshold mode writes a slow job as one JOB_SUMMARY
    # (61:1, submitted by tid 78 at 2000) and one it gave up open as
    # another (61:2, no submitter, its END and COMPLETE written later).
    summ = os.path.join(HERE, "corpus", "report-summary.bin")
    sc = write("summary-cpu.txt",
               "  client-78 [000] %s: sys_enter_ioctl: fd: 0x00000003, cmd: 0xc0206442, arg: 0x7ffc1000\n"
               "  client-78 [000] %s: sys_exit_ioctl: 0x0\n" % (secs(1900), secs(2100)))
    q = run("--cpu", sc, "--gpu", summ)
    out = q.stdout.splitlines()
    want = ["2000 gpu SUBMIT 61:1 ring=gfx0 pid=77 tid=78 summary=slow ioctl=DRM_COMMAND_BASE+0x02",
            "2100 gpu COMMIT 61:1 ring=gfx0 summary=slow",
            "2500 gpu START 61:1 ring=gfx0 summary=slow",
            "3000 gpu SUBMIT 61:2 ring=gfx0 summary=open",
            "3200 gpu COMMIT 61:2 ring=gfx0 summary=open",
            "12500 gpu END 61:1 ring=gfx0 summary=slow",
            "12600 gpu COMPLETE 61:1 ring=gfx0 summary=slow"]
    result("merge_timeline: a sampler's JOB_SUMMARY jobs are on the timeline, linked to their ioctl",
           q.returncode == 0 and [l for l in out if "summary=" in l] == want and
           "1900 cpu ioctl client/78 DRM_COMMAND_BASE+0x02 dur=200 jobs=61:1" in out and
           out[-1] == "jobs: 3; linked to their ioctl: 1; submitter named but no ioctl of it covers the SUBMIT: 0; no submitter data: 2",
           q.stdout + q.stderr)

    data = open(gpu, "rb").read()
    cut = write("cut.bin", data[:-9])
    q = run("--cpu", tc, "--gpu", cut)
    result("merge_timeline: a truncated grtrace file: one line naming it and the byte, exit 1",
           q.returncode == 1 and q.stdout == "" and
           q.stderr.startswith("merge_timeline.py: %s: byte " % cut) and
           len(q.stderr.splitlines()) == 1, q.stderr)
    badcpu = write("badcpu.txt", "  client-501 [000] 0.000000900: sys_enter_ioctl: fd: 3\n")
    q = run("--cpu", badcpu, "--gpu", gpu)
    result("merge_timeline: an ioctl enter without its cmd: one line naming file and line",
           q.returncode == 1 and q.stderr.strip() ==
           "merge_timeline.py: %s: line 1: sys_enter_ioctl without cmd" % badcpu,
           q.stderr)
    other = write("other.txt", "# my own log\n\n[12.000100] ioctl enter tid=7 cmd=0xc0206442\n"
                  "[12.000200] ioctl exit tid=7\n")
    q = run("--cpu", other, "--gpu", gpu)
    result("merge_timeline: a CPU file in no format it reads: one line naming file and line, exit 1",
           q.returncode == 1 and q.stdout == "" and q.stderr.strip() ==
           "merge_timeline.py: %s: line 3: not grtrace-bpf-annotate output, nor trace-cmd report or perf script text" % other,
           q.stderr)
    q = run("--cpu", write("noioctl.txt", "cpus=2\n  client-501 [000] 0.000000900: sched_switch: x\n"),
            "--gpu", gpu, "--stats-only")
    result("merge_timeline: trace-cmd text without an ioctl is no ioctls, not an error",
           q.returncode == 0 and q.stdout.startswith("ioctls: 0 "), q.stdout + q.stderr)
    return v.failed


if __name__ == "__main__":
    sys.exit(main())
