#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""merge_timeline.py - CPU-side ioctls and GPU jobs on one timeline.

Usage: merge_timeline.py --cpu CPU_TRACE --gpu GRTRACE_FILE [--output OUT]
                         [--clock-offset NS] [--stats-only] [--verbose]

CPU_TRACE is the output of grtrace-bpf-annotate (tools/grtrace/bpf: DRM
ioctls on grtrace's clock, named as the kernel names them), or text from
"trace-cmd report" or "perf script" (or ftrace's trace file; times in
microseconds count an exit as late as it may be) with the
syscalls:sys_enter_ioctl and sys_exit_ioctl events (record them with
"trace-cmd record -C mono -e syscalls:sys_enter_ioctl -e
syscalls:sys_exit_ioctl", so that their clock is grtrace's, or give the
difference with --clock-offset, added to the CPU side's times).
GRTRACE_FILE is a file written by "grtrace record" (read with
parse_events.py).

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parse_events  # noqa: E402

PROG = "merge_timeline.py"

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


def read_cpu(path, offset):
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


def summary_events(r, fl):
    """A JOB_SUMMARY's stamps as the job events it stands for.

    The sampler writes a slow job (or one it gave up open) as one record
    instead of its events; on the timeline it is the same job, so each
    stamp it holds becomes that event, marked with the summary's reason.
    Its pid and tid are 0 when the submitter was not known.
    """
    evs = []
    for i, st in enumerate(parse_events.STAMPS):
        if st not in fl:
            continue
        e = dict(r, type=st.upper(), ts=fl[st], ctx=fl["ctx"],
                 seqno=fl["seqno"], ring=fl["ring"], pid=None, tid=None,
                 summary=fl["reason"])
        if i == 0 and fl["tid"]:
            e.update(pid=fl["pid"], tid=fl["tid"])
        evs.append(e)
    return evs


def read_gpu(path):
    """Job events and ring names of a grtrace file, in merge order."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror))
    rings, events = {}, []
    try:
        for r in parse_events.parse(data, 0, None):
            fl = r.get("fields") or {}
            if r["type"] == "RING":
                rings[fl["id"]] = (fl["name"], fl["driver"])
            elif r["type"] == "METADATA":
                for i in range(fl["rings"]):
                    rings[fl["ring%d.id" % i]] = (fl["ring%d.name" % i],
                                                  fl["ring%d.driver" % i])
            elif r["type"] == "JOB_SUMMARY":
                events.extend(summary_events(r, fl))
            elif "ctx" in r:
                events.append(r)
    except parse_events.Bad as e:
        raise Bad("%s: %s" % (path, e))
    return events, rings


def link(ioctls, events, rings):
    """Each SUBMIT with a thread to the ioctl of that thread covering it."""
    by_tid = {}
    for io in ioctls:
        by_tid.setdefault(io["tid"], []).append(io)
    for lst in by_tid.values():
        lst.sort(key=lambda io: io["enter"])
    starts = {t: [io["enter"] for io in lst] for t, lst in by_tid.items()}
    st = dict(jobs=0, linked=0, unlinked=0, no_task=0)
    for e in events:
        if e["type"] != "SUBMIT":
            continue
        st["jobs"] += 1
        if e["tid"] is None:
            st["no_task"] += 1
            continue
        lst = by_tid.get(e["tid"], [])
        i = bisect.bisect_right(starts.get(e["tid"], []), e["ts"]) - 1
        if i >= 0 and lst[i]["enter"] <= e["ts"] <= lst[i]["exit"]:
            io = lst[i]
            io["jobs"].append("%d:%d" % (e["ctx"], e["seqno"]))
            io.setdefault("driver", rings.get(e["ring"], ("", ""))[1])
            e["ioctl"] = io
            st["linked"] += 1
        else:
            st["unlinked"] += 1
    return st


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("--cpu", required=True, help="trace-cmd report or perf script text")
    ap.add_argument("--gpu", required=True, help="a grtrace trace file")
    ap.add_argument("--output", help="the merged timeline (default: standard output)")
    ap.add_argument("--clock-offset", type=int, default=0,
                    help="ns added to the CPU side's times")
    ap.add_argument("--stats-only", action="store_true")
    ap.add_argument("--verbose", action="store_true",
                    help="also the ioctl command in hex and the ioctl's CPU times")
    a = ap.parse_args()
    try:
        ioctls, stray = read_cpu(a.cpu, a.clock_offset)
        events, rings = read_gpu(a.gpu)
    except Bad as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    st = link(ioctls, events, rings)
    try:
        out = open(a.output, "w") if a.output else sys.stdout
    except OSError as e:
        print("%s: %s: %s" % (PROG, a.output, e.strerror), file=sys.stderr)
        return 1
    if not a.stats_only:
        lines = []
        for io in ioctls:
            name = io.get("name") or ioctl_name(io["cmd"], io.get("driver"))
            s = "%d cpu ioctl %s/%d %s dur=%d" % (
                io["enter"], io["comm"], io["tid"], name,
                io["exit"] - io["enter"])
            if io["jobs"]:
                s += " jobs=" + ",".join(io["jobs"])
            if a.verbose:
                s += " cmd=0x%x exit=%d" % (io["cmd"], io["exit"])
            lines.append((io["enter"], 0, s))
        for k, e in enumerate(events):
            s = "%d gpu %s %d:%d ring=%s" % (
                e["ts"], e["type"], e["ctx"], e["seqno"],
                rings.get(e["ring"], (str(e["ring"]), ""))[0])
            if e["tid"] is not None:
                s += " pid=%d tid=%d" % (e["pid"], e["tid"])
            if "summary" in e:
                s += " summary=" + e["summary"]
            if "ioctl" in e:
                s += " ioctl=" + (e["ioctl"].get("name") or
                                  ioctl_name(e["ioctl"]["cmd"],
                                             e["ioctl"].get("driver")))
            lines.append((e["ts"], 1 + k, s))
        for _, _, s in sorted(lines):
            out.write(s + "\n")
    out.write("ioctls: %d (%d enter or exit without its pair, or lost)\n" % (len(ioctls), stray))
    out.write("jobs: %d; linked to their ioctl: %d; submitter named but no ioctl of it covers the SUBMIT: %d; no submitter data: %d\n"
              % (st["jobs"], st["linked"], st["unlinked"], st["no_task"]))
    if st["jobs"] and st["no_task"] == st["jobs"]:
        out.write("no submitter data: the grtrace file's SUBMITs carry no thread (format 1, or submitted from interrupts): nothing can be linked\n")
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
