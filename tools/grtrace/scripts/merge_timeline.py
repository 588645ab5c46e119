#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""merge_timeline.py - CPU-side ioctls and GPU jobs on one timeline.

Usage: merge_timeline.py --cpu CPU_TRACE --gpu GRTRACE_FILE [--output OUT]
                         [--clock-offset NS] [--stats-only] [--verbose]

CPU_TRACE is trace-cmd's trace.dat with the syscalls:sys_enter_ioctl and
sys_exit_ioctl events (record them with "trace-cmd record -C mono -e
syscalls:sys_enter_ioctl -e syscalls:sys_exit_ioctl", so that their clock
is grtrace's, or give the difference with --clock-offset, added to the CPU
side's times), read through libtracecmd by libgrtrace (built with it when
libtracecmd-dev is installed); or, told apart by its content, the output
of grtrace-bpf-annotate (tools/grtrace/bpf: DRM ioctls on grtrace's clock,
named as the kernel names them), or text of the same events from
"trace-cmd report" or "perf script" (or ftrace's trace file; times in
microseconds count an exit as late as it may be).  GRTRACE_FILE is a file
written by "grtrace record", read by libgrtrace (python/grtrace/timeline.py).

Each ioctl is the interval from its enter to its exit on one thread; a GPU
job is linked to the ioctl during which its thread wrote its SUBMIT (format
2 records the submitting thread).  The output is every ioctl and every job
event in time order, one line each:

    TS_NS  cpu  ioctl COMM/TID NAME dur=NS [jobs=CTX:SEQNO,...]
    TS_NS  gpu  TYPE CTX:SEQNO ring=NAME [pid=P tid=T] [summary=WHY] [ioctl=NAME]

A job the sampler wrote as one JOB_SUMMARY record (threshold mode) is
shown as the events its stamps stand for, marked summary=slow (or
summary=open: given up before it completed).

then a summary: ioctls, jobs, jobs linked to their ioctl, jobs whose SUBMIT
names a thread but no ioctl of it covers the SUBMIT, jobs without
submitter data.  --stats-only prints the summary alone.  DRM ioctls are
named from their command number (core ones, and the driver's own for
virtio_gpu, i915 and amdgpu when a linked job's ring names the driver);
others are shown as their hex command.

Bad input: one line naming the file and the line or byte, exit 1.
"""
import argparse
import bisect
import os
import re
import sys

PROG = "merge_timeline.py"
# The binding: python/ in the source tree, before any installed one (a
# package's, perhaps older than the tree), else where make install put it.
_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                     "python")
if os.path.exists(os.path.join(_TREE, "grtrace", "__init__.py")) and \
        _TREE not in sys.path:
    sys.dont_write_bytecode = True      # no __pycache__ in the tree
    sys.path.insert(0, _TREE)

# trace-cmd report and ftrace: "comm-tid [cpu] [flags] secs.frac: rest"
TRACE_CMD = re.compile(r"^\s*(?P<comm>.+?)-(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]"
                       r"(?:\s+[\w.]{4,10})?\s+(?P<ts>\d+\.\d+):\s+(?P<rest>.*)$")
# perf script: "comm tid [cpu] secs.frac: rest"
PERF = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+"
                  r"(?P<ts>\d+\.\d+):\s+(?P<rest>.*)$")
# rest: "[syscalls:]sys_enter_ioctl: fd: 0x3, cmd: 0xc0206442, ..." and
# "sys_exit_ioctl: 0x0" (trace-cmd, perf); the kernel's own trace file
# prints "sys_ioctl(fd: 3, cmd: c0206442, ...)" and "sys_ioctl -> 0x0"
# (from 6.16 on "cmd: 0xc0206442", hex either way).
ENTER = re.compile(r"^(?:syscalls:)?sys_enter_ioctl:.*?\bcmd:\s*(0x[0-9a-fA-F]+|\d+)"
                   r"|^sys_ioctl\(.*?\bcmd:\s*(?:0x)?([0-9a-fA-F]+)")
EXIT = re.compile(r"^(?:syscalls:)?sys_exit_ioctl:|^sys_ioctl\s+->")

DRM_BASE = 0x64                 # 'd'
DRM_COMMAND_BASE = 0x40
CORE = {0x00: "VERSION", 0x09: "GEM_CLOSE", 0x0b: "GEM_OPEN",
        0x0c: "GET_CAP", 0x2d: "PRIME_HANDLE_TO_FD",
        0x2e: "PRIME_FD_TO_HANDLE", 0xa0: "MODE_GETRESOURCES",
        0xa2: "MODE_SETCRTC", 0xae: "MODE_ADDFB", 0xaf: "MODE_RMFB",
        0xb0: "MODE_PAGE_FLIP", 0xb1: "MODE_DIRTYFB",
        0xb2: "MODE_CREATE_DUMB", 0xb3: "MODE_MAP_DUMB",
        0xb4: "MODE_DESTROY_DUMB", 0xbc: "MODE_ATOMIC",
        0xbf: "SYNCOBJ_CREATE", 0xc0: "SYNCOBJ_DESTROY",
        0xc3: "SYNCOBJ_WAIT"}
DRIVER = {
    "virtio_gpu": {0x01: "VIRTGPU_MAP", 0x02: "VIRTGPU_EXECBUFFER",
                   0x03: "VIRTGPU_GETPARAM", 0x04: "VIRTGPU_RESOURCE_CREATE",
                   0x05: "VIRTGPU_RESOURCE_INFO",
                   0x06: "VIRTGPU_TRANSFER_FROM_HOST",
                   0x07: "VIRTGPU_TRANSFER_TO_HOST", 0x08: "VIRTGPU_WAIT",
                   0x09: "VIRTGPU_GET_CAPS",
                   0x0a: "VIRTGPU_RESOURCE_CREATE_BLOB",
                   0x0b: "VIRTGPU_CONTEXT_INIT"},
    "i915": {0x1d: "I915_GEM_EXECBUFFER2", 0x1b: "I915_GEM_CREATE",
             0x24: "I915_GEM_WAIT"},
    "amdgpu": {0x00: "AMDGPU_GEM_CREATE", 0x04: "AMDGPU_CS",
               0x09: "AMDGPU_WAIT_CS"},
}


ANNOTATE = "# grtrace-bpf-annotate "


class Bad(Exception):
    pass


def read_annotate(f, path, offset):
    """The ioctls of grtrace-bpf-annotate's output (header line read), and
    how many it lost (its last line says)."""
    ioctls, lost, n = [], None, 1
    for n, line in enumerate(f, 2):
        if line.startswith("# end="):
            m = re.search(r" lost=(\d+) untimed=(\d+)", line)
            if not m:
                raise Bad("%s: line %d: a malformed end line" % (path, n))
            lost = int(m.group(1)) + int(m.group(2))
            continue
        if not line.strip() or line.startswith("#"):
            continue
        if lost is not None:
            raise Bad("%s: line %d: a record after the end line" % (path, n))
        p = line.split(None, 8)
        try:
            if len(p) != 9 or p[4].count(":") != 1:
                raise ValueError
            ts, dur, _, tid = (int(x) for x in p[:4])
            cmd, _ = int(p[5], 16), int(p[6])
            if dur < 0:
                raise ValueError
        except ValueError:
            raise Bad("%s: line %d: not an annotator record "
                      "(ts dur pid tid device cmd ret name comm)" % (path, n))
        ioctls.append({"tid": tid, "comm": p[8].rstrip("\n"),
                       "enter": ts + offset, "exit": ts + dur + offset,
                       "cmd": cmd, "name": p[7], "jobs": []})
    if lost is None:
        raise Bad("%s: line %d: no end line: truncated (was the annotator "
                  "killed?)" % (path, n))
    ioctls.sort(key=lambda io: io["enter"])
    return ioctls, lost


def ioctl_name(cmd, driver=None):
    if (cmd >> 8) & 0xff != DRM_BASE:
        return "0x%x" % cmd
    nr = cmd & 0xff
    if nr >= DRM_COMMAND_BASE and nr < 0xa0:
        name = DRIVER.get(driver or "", {}).get(nr - DRM_COMMAND_BASE)
        return "DRM_IOCTL_" + name if name else \
            "DRM_COMMAND_BASE+0x%02x" % (nr - DRM_COMMAND_BASE)
    return "DRM_IOCTL_" + CORE[nr] if nr in CORE else "DRM_IOCTL_0x%02x" % nr


class Cpu:
    """The ioctls as columns, sorted by enter: enter, exit (ns), tid,
    comm, cmd, name (the annotator's, else None); stray: enters and
    exits without their pair, or lost."""

    def __init__(self, ioctls, stray):
        ioctls.sort(key=lambda io: io["enter"])
        for k in ("enter", "exit", "tid", "comm", "cmd"):
            setattr(self, k, [io[k] for io in ioctls])
        names = [io.get("name") for io in ioctls]
        self.name = names if any(names) else None
        self.stray, self.ties = stray, True
        self.by_tid = None

    def find(self, tid, ts):
        """The index of @tid's ioctl whose interval holds @ts, or None."""
        if self.by_tid is None:
            self.by_tid = {}
            for i, t in enumerate(self.tid):
                self.by_tid.setdefault(t, []).append(i)
            self.starts = {t: [self.enter[i] for i in lst]
                           for t, lst in self.by_tid.items()}
        lst = self.by_tid.get(tid)
        if not lst:
            return None
        j = bisect.bisect_right(self.starts[tid], ts) - 1
        if j >= 0 and ts <= self.exit[lst[j]]:
            return lst[j]
        return None

    @classmethod
    def of_columns(cls, io):
        """The trace.dat's ioctls (grtrace.timeline.Ioctls) as lists."""
        self = cls([], io.stray)
        self.enter, self.exit, self.tid, self.cmd, self.comm = io.columns()
        return self


def read_tracedat(tl, grtrace, path, offset):
    """The ioctls of a trace.dat, read and paired by libgrtrace."""
    if not tl.TRACEDAT:
        raise Bad("%s: a trace-cmd trace.dat, but %s; or give the text of "
                  "\"trace-cmd report\"" % (path, tl.TRACEDAT_MISSING))
    try:
        io = tl.tracedat_ioctls(path, offset)
    except grtrace.Error as e:
        raise Bad("%s: %s" % (path, e.msg))
    if io.ties:
        # Ioctls of one time go by their text: the lines in Python.
        return Cpu.of_columns(io)
    io.name = None
    return io


def read_cpu(path, offset, tl=None, grtrace=None):
    """The ioctls of the CPU side (a Cpu): a trace.dat when @tl (the
    binding) says it is one, else text."""
    try:
        # A pipe is text: looking would eat its first bytes.
        if tl and os.path.isfile(path) and tl.is_tracedat(path):
            return read_tracedat(tl, grtrace, path, offset)
    except grtrace.Error as e:
        raise Bad("%s: %s" % (path, e.msg))
    return Cpu(*read_text(path, offset))


def read_text(path, offset):
    """The ioctls of a trace-cmd or perf text file: a list of dicts with
    tid, comm, enter, exit (ns), cmd; unmatched enters and exits counted."""
    open_by_tid, ioctls, stray = {}, [], 0
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror))
    with f:
        first = f.readline()
        if first.startswith(ANNOTATE):
            version = first[len(ANNOTATE):].split(None, 1)[0]
            if version != "1":
                raise Bad("%s: line 1: grtrace-bpf-annotate format %s, "
                          "this script reads 1" % (path, version))
            return read_annotate(f, path, offset)
        f.seek(0)
        known, unknown = 0, None
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith(("#", "cpus=",
                                                             "version")):
                continue
            m = TRACE_CMD.match(line) or PERF.match(line)
            if not m:
                unknown = unknown or n
                continue
            known += 1
            rest = m.group("rest")
            enter = ENTER.match(rest)
            if not enter and not EXIT.match(rest):
                if "sys_enter_ioctl" in rest.split(" ", 1)[0] or \
                   rest.startswith("sys_ioctl("):
                    raise Bad("%s: line %d: sys_enter_ioctl without cmd"
                              % (path, n))
                continue
            sec, frac = m.group("ts").split(".")
            ts = int(sec) * 10**9 + int((frac + "000000000")[:9]) + offset
            # Microseconds (ftrace's text): an exit may be up to 999 ns on.
            slack = 10 ** (9 - len(frac)) - 1 if len(frac) < 9 else 0
            tid = int(m.group("tid"))
            if enter:
                cmd = int(enter.group(1), 0) if enter.group(1) else \
                    int(enter.group(2), 16)
                if tid in open_by_tid:
                    stray += 1
                open_by_tid[tid] = {"tid": tid, "comm": m.group("comm").strip(),
                                    "enter": ts, "cmd": cmd, "jobs": []}
            else:
                io = open_by_tid.pop(tid, None)
                if io is None:
                    stray += 1
                    continue
                io["exit"] = ts + slack
                ioctls.append(io)
    # Lines, but none an event line of either tool: not a CPU trace at
    # all (an empty result would read as "no ioctls happened").
    if not known and unknown:
        raise Bad("%s: line %d: not grtrace-bpf-annotate output, nor "
                  "trace-cmd report or perf script text" % (path, unknown))
    stray += len(open_by_tid)
    return ioctls, stray


class Gpu:
    """The job events as columns, in the merge's order (grtrace.timeline's
    gpu_events()), a JOB_SUMMARY spread into the events it stands for."""


def read_gpu(tl, grtrace, path):
    try:
        g = tl.gpu_events(path)
    except grtrace.Error as e:
        # "what at byte N: why" as this script has always said it
        m = re.match(r"(.*?) at byte (\d+): (.*)$", e.msg)
        raise Bad("%s: %s" % (path, "byte %s: %s: %s" % (m.group(2), m.group(1),
                                                         m.group(3))
                              if m else e.msg))
    return g


def link(cpu, gpu):
    """Each SUBMIT with a thread to the ioctl of that thread covering it:
    {ioctl index: [jobs]}, {ioctl index: driver}, {event index: ioctl
    index}, counts."""
    st = dict(jobs=0, linked=0, unlinked=0, no_task=0)
    jobs, driver, of_event = {}, {}, {}
    for k, t in enumerate(gpu.type):
        if t != "SUBMIT":
            continue
        st["jobs"] += 1
        if gpu.tid[k] is None:
            st["no_task"] += 1
            continue
        i = cpu.find(gpu.tid[k], gpu.ts[k])
        if i is None:
            st["unlinked"] += 1
            continue
        jobs.setdefault(i, []).append("%d:%d" % (gpu.ctx[k], gpu.seqno[k]))
        driver.setdefault(i, gpu.rings.get(gpu.ring[k], ("", ""))[1])
        of_event[k] = i
        st["linked"] += 1
    return jobs, driver, of_event, st


class Names(dict):
    """ioctl_name() of a command without a driver, remembered."""

    def __missing__(self, cmd):
        v = self[cmd] = ioctl_name(cmd)
        return v


def cpu_lines(cpu, jobs, driver, verbose):
    """The ioctls' lines, in @cpu's order."""
    names = Names()
    given = cpu.name
    if given is None and not verbose:
        lines = ["%d cpu ioctl %s/%d %s dur=%d" % (e, c, t, names[k], x - e)
                 for e, c, t, k, x in zip(cpu.enter, cpu.comm, cpu.tid,
                                          cpu.cmd, cpu.exit)]
        redo = jobs
    else:
        lines, redo = [None] * len(cpu.enter), range(len(cpu.enter))
    for i in redo:
        lines[i] = cpu_line(cpu, i, cpu.comm[i], jobs, driver, verbose)
    return lines


def cpu_line(cpu, i, comm, jobs, driver, verbose):
    """The line of ioctl @i."""
    name = (cpu.name and cpu.name[i]) or ioctl_name(cpu.cmd[i], driver.get(i))
    s = "%d cpu ioctl %s/%d %s dur=%d" % (
        cpu.enter[i], comm, cpu.tid[i], name, cpu.exit[i] - cpu.enter[i])
    if i in jobs:
        s += " jobs=" + ",".join(jobs[i])
    if verbose:
        s += " cmd=0x%x exit=%d" % (cpu.cmd[i], cpu.exit[i])
    return s


def gpu_lines(cpu, gpu, driver, of_event):
    """(ts, index, line) of the job events."""
    out = []
    for k in range(len(gpu.ts)):
        s = "%d gpu %s %d:%d ring=%s" % (
            gpu.ts[k], gpu.type[k], gpu.ctx[k], gpu.seqno[k],
            gpu.rings.get(gpu.ring[k], (str(gpu.ring[k]), ""))[0])
        if gpu.tid[k] is not None:
            s += " pid=%d tid=%d" % (gpu.pid[k], gpu.tid[k])
        if gpu.summary[k]:
            s += " summary=" + gpu.summary[k]
        i = of_event.get(k)
        if i is not None:
            s += " ioctl=" + ((cpu.name and cpu.name[i]) or
                              ioctl_name(cpu.cmd[i], driver.get(i)))
        out.append((gpu.ts[k], k, s))
    out.sort()
    return out


def timeline(cpu, lines, glines):
    """Every line in time order: at one time the ioctls first (those of
    one time by their text), then the job events in the merge's order."""
    enter = cpu.enter
    if cpu.ties:
        order = sorted(range(len(lines)), key=lambda i: (enter[i], lines[i]))
        lines = [lines[i] for i in order]
        enter = [enter[i] for i in order]
    out, prev = [], 0
    for ts, _, s in glines:
        pos = bisect.bisect_right(enter, ts, prev)
        if pos > prev:
            out.append("\n".join(lines[prev:pos]))
            prev = pos
        out.append(s)
    if prev < len(lines):
        out.append("\n".join(lines[prev:]))
    return "\n".join(out) + "\n" if out else ""


# Ioctls the library writes at a time (smaller for the tests' sake).
SLICE = int(os.environ.get("GRTRACE_MERGE_SLICE", 1 << 16))


def timeline_lib(out, io, glines, jobs, driver, verbose):
    """timeline() of a trace.dat's ioctls into the binary file @out: their
    lines written by the library (given a text per thread and command), a
    slice at a time, but those of the ioctls that jobs name, and the job
    events in between, written here."""
    texts = ["%s/%d %s" % (comm, tid, ioctl_name(cmd))
             for tid, cmd, comm in io.kinds]
    # (line, 1, 0, text) replaces a line; (line, 0, n, text) goes before it
    points = [(i, 1, 0, cpu_line(io, i, io.comm(i), jobs, driver, verbose))
              for i in jobs]
    prev = 0
    for n, (ts, _, s) in enumerate(glines):
        prev = bisect.bisect_right(io.enter, ts, prev)
        points.append((prev, 0, n, s))
    points.sort()
    cur, k = 0, 0
    for first in range(0, io.n, SLICE):
        last = min(io.n, first + SLICE)
        data, off = io.format(texts, verbose, first, last - first)
        while k < len(points) and points[k][0] < last:
            pos, replace, _, s = points[k]
            out.write(data[off[cur - first]:off[pos - first]])
            out.write(s.encode() + b"\n")
            cur = pos + replace
            k += 1
        out.write(data[off[cur - first]:])
        cur = last
        data.release()
    for _, _, _, s in points[k:]:
        out.write(s.encode() + b"\n")
    io.close()


def load():
    """The binding (grtrace, grtrace.timeline), or Bad saying why not."""
    try:
        import grtrace
        import grtrace.timeline
    except (ImportError, OSError) as e:
        raise Bad("cannot load libgrtrace's Python binding: %s" % e)
    return grtrace, grtrace.timeline


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("--cpu", required=True,
                    help="trace-cmd's trace.dat, or trace-cmd report, perf "
                    "script or grtrace-bpf-annotate text")
    ap.add_argument("--gpu", required=True, help="a grtrace trace file")
    ap.add_argument("--output", help="the merged timeline (default: standard output)")
    ap.add_argument("--clock-offset", type=int, default=0,
                    help="ns added to the CPU side's times")
    ap.add_argument("--stats-only", action="store_true")
    ap.add_argument("--verbose", action="store_true",
                    help="also the ioctl command in hex and the ioctl's CPU times")
    a = ap.parse_args()
    try:
        grtrace, tl = load()
        cpu = read_cpu(a.cpu, a.clock_offset, tl, grtrace)
        gpu = read_gpu(tl, grtrace, a.gpu)
    except Bad as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    jobs, driver, of_event, st = link(cpu, gpu)
    try:
        out = open(a.output, "w") if a.output else sys.stdout
    except OSError as e:
        print("%s: %s: %s" % (PROG, a.output, e.strerror), file=sys.stderr)
        return 1
    if not a.stats_only:
        glines = gpu_lines(cpu, gpu, driver, of_event)
        if isinstance(cpu, Cpu):
            out.write(timeline(cpu, cpu_lines(cpu, jobs, driver, a.verbose),
                               glines))
        else:
            out.flush()
            timeline_lib(out.buffer, cpu, glines, jobs, driver, a.verbose)
            out.buffer.flush()
    out.write("ioctls: %d (%d enter or exit without its pair, or lost)\n" % (len(cpu.enter), cpu.stray))
    out.write("jobs: %d; linked to their ioctl: %d; submitter named but no ioctl of it covers the SUBMIT: %d; no submitter data: %d\n"
              % (st["jobs"], st["linked"], st["unlinked"], st["no_task"]))
    if st["jobs"] and st["no_task"] == st["jobs"]:
        out.write("no submitter data: the grtrace file's SUBMITs carry no thread (format 1, or submitted from interrupts): nothing can be linked\n")
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
