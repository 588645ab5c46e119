#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of "grtrace export" (a Perfetto trace), decoded by protoc.

A hand-built trace goes through "grtrace export"; protoc decodes the
output against perfetto_subset.proto (Perfetto's documented field
numbers), and the checks below assert the tracks, the slices on each
track (which must nest), the flows and the counters that the trace's
timestamps call for; the expected values are worked out in the comments.

    export_check.py GRTRACE DIR     one "ok NAME" / "not ok NAME" per check
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The encoder: the golden vectors' generator, written from the document
# (no __pycache__ beside the golden vectors).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "testing", "selftests",
                                "grtrace", "golden"))
import gen_golden  # noqa: E402
from gen_golden import Trace, GFX, COPY  # noqa: E402

TASK = gen_golden.HDR_TASK      # GRTRACE_HDR_TASK: pid, tid follow the job
CLIENT = gen_golden.HDR_CLIENT  # GRTRACE_HDR_CLIENT: aux0 is the DRM client
RINGS = [(0, GFX, 0, b"testdrv", b"0000:00:02.0", b"gfx0"),
         (1, COPY, 0, b"testdrv", b"0000:00:02.0", b"sdma0")]
S = 1000000000


def scenario():
    """Ring 0: 100:1 and 100:2 overlap (two lanes), 100:3 after them on the
    first lane with an error.  Ring 1: 200:1 waits on 100:1 (a flow), 200:2
    starts at 40 us and never ends: at 1.2 s it has run over a second (hung).
    One record (an IRQ) is lost: a gseq gap.  Tasks: 500/501, 500/502,
    600/600."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)

    def ev(ts, name, ctx, seqno, task=None, **k):
        ring, eng = (0, GFX) if ctx == 100 else (1, COPY)
        if task:
            k.update(trailing=bytes(memoryview(
                (task[0]).to_bytes(4, "little") +
                (task[1]).to_bytes(4, "little"))), flags=TASK)
        t.ev(ts, name, ctx, seqno, ring, eng, **k)

    ev(1000, "submit", 100, 1, (500, 501))
    ev(1500, "submit", 100, 2, (500, 502))
    ev(2000, "commit", 100, 1)
    ev(2500, "commit", 100, 2)
    ev(3000, "start", 100, 1)
    ev(5000, "submit", 200, 1, (500, 501), cpu=1)
    ev(5100, "sync_wait_enter", 200, 1, aux0=100, aux1=1, cpu=1)
    ev(13000, "end", 100, 1)
    ev(13000, "start", 100, 2)
    ev(13100, "sync_wait_exit", 200, 1, aux0=100, aux1=1, cpu=1)
    ev(13200, "commit", 200, 1, cpu=1)
    ev(13300, "start", 200, 1, cpu=1)
    ev(14000, "complete", 100, 1)
    ev(15000, "end", 200, 1, cpu=1)
    ev(15100, "complete", 200, 1, cpu=1)
    ev(20000, "end", 100, 2)
    ev(21000, "complete", 100, 2)
    ev(22000, "submit", 100, 3, (600, 600))
    ev(22500, "commit", 100, 3)
    ev(23000, "start", 100, 3)
    ev(29000, "error", 100, 3, aux0=-62)
    t.ev(29500, "irq", 0, 0, 0, GFX, aux0=1)      # lost
    ev(30000, "end", 100, 3)
    ev(30500, "complete", 100, 3)
    ev(40000, "submit", 200, 2, (600, 600), cpu=1)
    ev(40100, "commit", 200, 2, cpu=1)
    ev(40200, "start", 200, 2, cpu=1)
    t.ev(1200000000, "irq", 0, 0, 0, GFX, aux0=1)
    for g, r in enumerate(t.recs):
        r[4] = g
    t.recs = [r for r in t.recs if r[2] != 29500]
    return t


def kworker_scenario():
    """Ring 0: 100:1 submitted through DRM client 7 and 100:2 through
    client 9, both pushed by kworker 77; 100:3 through client 7 by thread
    4243 of glxgears (4242) itself.  The client table names client 7 only
    (9 was closed before record saw it)."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, RINGS)

    def job(ts, seqno, task, client):
        trailing = gen_golden.task_trailing(*task)
        t.ev(ts, "submit", 100, seqno, 0, GFX, aux0=client,
             trailing=trailing, flags=TASK | CLIENT)
        t.ev(ts + 1000, "commit", 100, seqno, 0, GFX)
        t.ev(ts + 2000, "start", 100, seqno, 0, GFX)
        t.ev(ts + 3000, "end", 100, seqno, 0, GFX)
        t.ev(ts + 3500, "complete", 100, seqno, 0, GFX)

    job(1000, 1, (77, 77), 7)
    job(5000, 2, (77, 77), 9)
    job(9000, 3, (4242, 4243), 7)
    return t


KW_TASKS = [(77, 77, "kworker/u8:2", "kworker/u8:2"),
            (4242, 4243, "glxgears:cs0", "glxgears")]
KW_CLIENTS = [(7, 4242, "glxgears")]


# ---- protoc's text format ---------------------------------------------------

TOKEN = re.compile(r'\s*(?:(\})|([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*'
                   r'("(?:[^"\\]|\\.)*"|[^\s]+)))')


def parse_text(text):
    """protoc --decode output as nested dicts: every field a list."""
    root = {}
    stack = [root]
    pos = 0
    while True:
        m = TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip():
                raise ValueError("protoc output: cannot parse at %r"
                                 % text[pos:pos + 40])
            break
        pos = m.end()
        if m.group(1):
            stack.pop()
        elif m.group(3) == "{":
            child = {}
            stack[-1].setdefault(m.group(2), []).append(child)
            stack.append(child)
        else:
            v = m.group(4)
            if v.startswith('"'):
                v = bytes(v[1:-1], "utf-8").decode("unicode_escape")
            elif re.fullmatch(r"-?\d+", v):
                v = int(v)
            elif re.fullmatch(r"-?[\d.eE+-]+", v):
                v = float(v)
            stack[-1].setdefault(m.group(2), []).append(v)
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


class Export:
    """The decoded packets: tracks by uuid, events in file order."""

    def __init__(self, packets):
        self.tracks = {}
        self.events = []
        for i, p in enumerate(packets):
            td = one(p, "track_descriptor")
            if td:
                uuid = one(td, "uuid")
                if uuid in self.tracks:
                    raise AssertionError("track %d described twice" % uuid)
                self.tracks[uuid] = td
            te = one(p, "track_event")
            if te:
                te["ts"] = one(p, "timestamp")
                te["i"] = i
                if one(te, "track_uuid") not in self.tracks:
                    raise AssertionError("event %d on an undescribed track" % i)
                self.events.append(te)

    def track(self, name, parent=None):
        got = [u for u, t in self.tracks.items() if one(t, "name") == name and
               (parent is None or one(t, "parent_uuid") == parent)]
        if len(got) != 1:
            raise AssertionError("%d tracks named %r" % (len(got), name))
        return got[0]

    def children(self, parent):
        return sorted(one(t, "name") for t in self.tracks.values()
                      if one(t, "parent_uuid") == parent)

    def slices(self, uuid):
        """[(name, begin, end, depth)] of a track, by replaying its BEGIN and
        END events in time order (file order for equal times), as the trace
        processor does; a slice that does not nest is an error."""
        evs = sorted((e for e in self.events if one(e, "track_uuid") == uuid),
                     key=lambda e: (e["ts"], e["i"]))
        out, stack = [], []
        for e in evs:
            ty = one(e, "type")
            if ty == "TYPE_SLICE_BEGIN":
                stack.append([one(e, "name"), e["ts"], None, len(stack)])
                out.append(stack[-1])
            elif ty == "TYPE_SLICE_END":
                if not stack:
                    raise AssertionError("track %d: END at %d with no slice open"
                                         % (uuid, e["ts"]))
                stack.pop()[2] = e["ts"]
            elif ty == "TYPE_INSTANT":
                out.append([one(e, "name"), e["ts"], e["ts"], len(stack)])
        if stack:
            raise AssertionError("track %d: %s never ended" % (uuid, stack))
        return [tuple(s) for s in out]

    def counter(self, uuid):
        return [(e["ts"], one(e, "counter_value",
                              one(e, "double_counter_value")))
                for e in sorted(self.events, key=lambda e: (e["ts"], e["i"]))
                if one(e, "track_uuid") == uuid]

    def flows(self):
        """{flow id: [(track uuid, ts, name, 'out' or 'in')]}."""
        fl = {}
        for e in self.events:
            for key, way in (("flow_ids", "out"),
                             ("terminating_flow_ids", "in")):
                for f in e.get(key, []):
                    fl.setdefault(f, []).append(
                        (one(e, "track_uuid"), e["ts"], one(e, "name"), way))
        return fl


def expect(what, got, want):
    if got != want:
        raise AssertionError("%s:\n  got  %r\n  want %r" % (what, got, want))


def main():
    tool, d = sys.argv[1], sys.argv[2]
    failed = 0

    def check(name, fn):
        nonlocal failed
        try:
            fn()
            print("ok %s" % name)
        except (AssertionError, ValueError, KeyError, IndexError,
                TypeError, OSError) as e:
            failed = 1
            print("not ok %s" % name)
            for line in str(e).splitlines() or ["(no message)"]:
                print("# %s" % line)

    src = os.path.join(d, "export.bin")
    out = os.path.join(d, "export.pftrace")
    with open(src, "wb") as f:
        f.write(scenario().chunks())
    p = subprocess.run([tool, "export", "-i", src, "-o", out],
                       capture_output=True, text=True)
    dec = subprocess.run(["protoc", "--decode=perfetto.protos.Trace",
                          "-I", HERE, os.path.join(HERE, "perfetto_subset.proto")],
                         stdin=open(out, "rb") if p.returncode == 0 else None,
                         capture_output=True, text=True) \
        if p.returncode == 0 else None
    state = {}

    def decoded():
        expect("export exit status (stderr: %s)" % p.stderr.strip(),
               p.returncode, 0)
        expect("export stderr", p.stderr, "")
        expect("protoc exit status (%s)" % dec.stderr.strip(),
               dec.returncode, 0)
        if re.search(r"^\s*\d+:", dec.stdout, re.M):
            raise AssertionError("fields not in Perfetto's numbering: %s" %
                                 re.findall(r"^\s*\d+:.*", dec.stdout, re.M)[:3])
        state["x"] = Export(parse_text(dec.stdout).get("packet", []))
    check("export: protoc decodes every packet as Perfetto's Trace", decoded)
    if "x" not in state:
        return 1
    x = state["x"]
    r0 = x.track("ring 0 gfx0 (testdrv 0000:00:02.0)")
    r1 = x.track("ring 1 sdma0 (testdrv 0000:00:02.0)")

    def tracks():
        expect("ring 0's tracks", x.children(r0),
               ["busy %", "jobs 0", "jobs 1", "queue depth"])
        expect("ring 1's tracks", x.children(r1),
               ["busy %", "hang", "jobs 0", "queue depth"])
        threads = sorted((one(one(t, "thread"), "pid"),
                          one(one(t, "thread"), "tid"))
                         for t in x.tracks.values() if one(t, "thread"))
        expect("submitting threads", threads, [(500, 501), (500, 502),
                                               (600, 600)])
        procs = sorted(one(one(t, "process"), "pid")
                       for t in x.tracks.values() if one(t, "process"))
        expect("submitting processes", procs, [500, 600])
    check("export: a track group per ring: lanes, counters, hang; a track per submitting thread", tracks)

    def lanes():
        # 100:1 [1000, 14000] and 100:2 [1500, 21000] overlap: two lanes;
        # 100:3 [22000, 30500] after both, back on the first.  Each job's
        # phases run between its events; the error at its END, in exec.
        # The dependency's "signalled" instant is written with 200:1, after
        # 100:1: at 13000 it falls into 100:1's complete phase.
        expect("ring 0 lane 0", x.slices(x.track("jobs 0", r0)), [
            ("100:1", 1000, 14000, 0), ("submit", 1000, 2000, 1),
            ("queue", 2000, 3000, 1), ("exec", 3000, 13000, 1),
            ("complete", 13000, 14000, 1), ("signalled 100:1", 13000, 13000, 2),
            ("100:3", 22000, 30500, 0), ("submit", 22000, 22500, 1),
            ("queue", 22500, 23000, 1), ("exec", 23000, 30000, 1),
            ("error -62", 30000, 30000, 2), ("complete", 30000, 30500, 1)])
        expect("ring 0 lane 1", x.slices(x.track("jobs 1", r0)), [
            ("100:2", 1500, 21000, 0), ("submit", 1500, 2500, 1),
            ("queue", 2500, 13000, 1), ("exec", 13000, 20000, 1),
            ("complete", 20000, 21000, 1)])
        # 200:1 waits on 100:1 from 5100 to 13100, inside its submit phase;
        # 200:2 runs from 40200 to the end of the trace (1.2 s).
        expect("ring 1 lane 0", x.slices(x.track("jobs 0", r1)), [
            ("200:1", 5000, 15100, 0), ("submit", 5000, 13200, 1),
            ("wait 100:1", 5100, 13100, 2), ("dependency 100:1", 13100, 13100, 2),
            ("queue", 13200, 13300, 1), ("exec", 13300, 15000, 1),
            ("complete", 15000, 15100, 1),
            ("200:2", 40000, 1200000000, 0), ("submit", 40000, 40100, 1),
            ("queue", 40100, 40200, 1),
            ("exec (never ended)", 40200, 1200000000, 1)])
    check("export: jobs on lanes, phases and waits nested, overlapping jobs apart", lanes)

    def flows():
        fl = x.flows()
        t501 = [u for u, t in x.tracks.items() if one(one(t, "thread", {}), "tid") == 501][0]
        t502 = [u for u, t in x.tracks.items() if one(one(t, "thread", {}), "tid") == 502][0]
        t600 = [u for u, t in x.tracks.items() if one(one(t, "thread", {}), "tid") == 600][0]
        l0, l1 = x.track("jobs 0", r0), x.track("jobs 1", r0)
        m0 = x.track("jobs 0", r1)
        want = sorted([
            [(t501, 1000, "submit 100:1", "out"), (l0, 1000, "100:1", "in")],
            [(t502, 1500, "submit 100:2", "out"), (l1, 1500, "100:2", "in")],
            [(t501, 5000, "submit 200:1", "out"), (m0, 5000, "200:1", "in")],
            [(t600, 22000, "submit 100:3", "out"), (l0, 22000, "100:3", "in")],
            [(t600, 40000, "submit 200:2", "out"), (m0, 40000, "200:2", "in")],
            # 100:1 ended at 13000; 200:1's wait for it ended at 13100.
            [(l0, 13000, "signalled 100:1", "out"),
             (m0, 13100, "dependency 100:1", "in")]])
        expect("flows (each id once out, once in)", sorted(fl.values()), want)
    check("export: flows from each submitting thread and from the dependency", flows)

    def counters():
        # Queue depth: COMMITs at 2000, 2500, 22500; ENDs at 13000, 20000,
        # 30000.  Ring 1: 13200 in, 15000 out, 40100 in (never out).
        expect("ring 0 queue depth", x.counter(x.track("queue depth", r0)),
               [(2000, 1), (2500, 2), (13000, 1), (20000, 0), (22500, 1),
                (30000, 0)])
        expect("ring 1 queue depth", x.counter(x.track("queue depth", r1)),
               [(13200, 1), (15000, 0), (40100, 1)])
        # Busy per 100 ms from the first record (1000): ring 0 ran
        # 3000..13000, 13000..20000 and 23000..30000: 24000 ns of the first
        # interval, 0.024 %, then idle: one 0 at the second interval.
        busy = x.counter(x.track("busy %", r0))
        expect("ring 0 busy %", [(ts, round(v, 6)) for ts, v in busy],
               [(1000, 0.024), (100001000, 0.0)])
        # Ring 1: 13300..15000 (1700 ns) and 40200 on, in the first
        # interval 100001000 - 40200 more: (1700 + 99960800) / 1e8; busy
        # to the end of the window (1.2 s - 1000 ns: 12 intervals, the
        # last 99.999 ms long).
        b1 = x.counter(x.track("busy %", r1))
        expect("ring 1 busy intervals", [ts for ts, _ in b1],
               [1000 + k * 100000000 for k in range(12)])
        expect("ring 1 busy % (first, second, last)",
               [round(b1[0][1], 6), b1[1][1], b1[-1][1]],
               [99.9625, 100.0, 100.0])
    check("export: queue depth and busy % counters per ring", counters)

    def markers():
        hang = x.slices(x.track("hang", r1))
        expect("hang marker", [(h[1], h[0].split(":")[0]) for h in hang],
               [(40200, "ring 1 sdma0 hung")])
        lost = x.slices(x.track("grtrace: records lost"))
        expect("lost marker", lost, [("lost 1 records", 30000, 30000, 0)])
    check("export: markers for a hung ring and for lost records", markers)

    def no_task():
        # Format 1 without the TASK flag: no submitter tracks, and it says so.
        t = scenario()
        for r in t.recs:
            if r[5] & TASK:
                r[5] &= ~TASK
                r[3] = r[3][:-8]
        with open(os.path.join(d, "notask.bin"), "wb") as f:
            f.write(t.chunks())
        q = subprocess.run([tool, "export", "-i", os.path.join(d, "notask.bin"),
                            "-o", os.path.join(d, "notask.pftrace")],
                           capture_output=True, text=True)
        expect("exit status", q.returncode, 0)
        expect("stderr", q.stderr.strip(),
               "grtrace: export: no submitter data (no SUBMIT carries a pid and tid): the trace has no submitter tracks or flows")
        r = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I",
                            HERE, os.path.join(HERE, "perfetto_subset.proto")],
                           stdin=open(os.path.join(d, "notask.pftrace"), "rb"),
                           capture_output=True, text=True)
        y = Export(parse_text(r.stdout).get("packet", []))
        expect("thread tracks", [t for t in y.tracks.values() if one(t, "thread")], [])
        expect("flows", sorted(y.flows().values()), [
            [(y.track("jobs 0", y.track("ring 0 gfx0 (testdrv 0000:00:02.0)")),
              13000, "signalled 100:1", "out"),
             (y.track("jobs 0", y.track("ring 1 sdma0 (testdrv 0000:00:02.0)")),
              13100, "dependency 100:1", "in")]])
    check("export: without submitter data it says so and draws no submitter", no_task)

    def report_task():
        # The same jobs in "report": pid and tid from each SUBMIT's task.
        q = subprocess.run([tool, "report", "-i", src, "--format", "json"],
                           capture_output=True, text=True)
        expect("report exit status", q.returncode, 0)
        import json
        got = sorted(("%d:%d" % (j["ctx"], j["seqno"]), j["pid"], j["tid"])
                     for j in json.loads(q.stdout)["jobs"])
        expect("jobs' pid and tid", got, [
            ("100:1", 500, 501), ("100:2", 500, 502), ("100:3", 600, 600),
            ("200:1", 500, 501), ("200:2", 600, 600)])
        q = subprocess.run([tool, "report", "-i", os.path.join(d, "notask.bin"),
                            "--format", "csv"], capture_output=True, text=True)
        rows = [r.split(",") for r in q.stdout.splitlines()]
        expect("CSV columns", rows[0][-5:], ["pid", "tid", "comm", "process",
                                             "client_id"])
        expect("no task: NA", sorted({tuple(r[-5:]) for r in rows[1:]}),
               [("",) * 5])
    check("report: pid and tid of each job from its SUBMIT, NA without", report_task)

    def bad_input():
        trunc = os.path.join(d, "trunc.bin")
        with open(src, "rb") as f:
            data = f.read()
        with open(trunc, "wb") as f:
            f.write(data[:len(data) - 7])
        q = subprocess.run([tool, "export", "-i", trunc, "-o",
                            os.path.join(d, "trunc.pftrace")],
                           capture_output=True, text=True)
        expect("exit status of a truncated input", q.returncode, 1)
        lines = q.stderr.strip().splitlines()
        if not lines or not re.match(r"grtrace: .*trunc\.bin: .*(byte|offset) \d+",
                                     lines[-1]):
            raise AssertionError("no error naming the file and offset: %r"
                                 % q.stderr)
        q = subprocess.run([tool, "export", "-i", src], capture_output=True,
                           text=True)
        expect("without -o: exit status", q.returncode, 2)
        expect("without -o: message", "give the file to write with -o" in q.stderr,
               True)
        q = subprocess.run([tool, "export", "-i", src, "-o", "/nonexistent/x"],
                           capture_output=True, text=True)
        expect("unwritable -o: exit status", q.returncode, 1)
        expect("unwritable -o: names it", "/nonexistent/x" in q.stderr, True)
        q = subprocess.run([tool, "export", "-i", src, "-o", out, "--per-ring"],
                           capture_output=True, text=True)
        expect("a report option: exit status", q.returncode, 2)
    check("export: bad input and bad options get a clear error", bad_input)

    # The same trace as "record" writes it, with a task table naming
    # 501 and 502 of process 500; 600 exited before it could be named.
    tasks = [(500, 501, "render", "glxgears"), (500, 502, "upload", "glxgears")]
    named = os.path.join(d, "named.grf")
    with open(named, "wb") as f:
        f.write(scenario().trace_file(tasks))

    def report(*args):
        q = subprocess.run([tool, "report"] + list(args), capture_output=True,
                           text=True)
        expect("report %s: exit status (%s)" % (" ".join(args), q.stderr),
               q.returncode, 0)
        return q.stdout

    def names():
        import json
        got = {"%d:%d" % (j["ctx"], j["seqno"]): (j["comm"], j["process"])
               for j in json.loads(report("-i", named, "--format", "json"))["jobs"]}
        expect("jobs' comm and process", got, {
            "100:1": ("render", "glxgears"), "100:2": ("upload", "glxgears"),
            "100:3": (None, None), "200:1": ("render", "glxgears"),
            "200:2": (None, None)})
        rows = {l.split()[0]: l.split() for l in report("-i", named).splitlines()
                if re.match(r"\d+:\d+ ", l)}
        expect("text submitter of 100:1, 100:2, 100:3, 200:2",
               [rows[k][-2] for k in ("100:1", "100:2", "100:3", "200:2")],
               ["render/501", "upload/502", "600/600", "600/600"])
        rows = [l.split() for l in report("-i", os.path.join(d, "notask.bin")).splitlines()
                if re.match(r"\d+:\d+ ", l)]
        expect("text submitter without submitter data", {r[-2] for r in rows}, {"-"})
        pf = os.path.join(d, "named.pftrace")
        q = subprocess.run([tool, "export", "-i", named, "-o", pf],
                           capture_output=True, text=True)
        expect("export exit status (%s)" % q.stderr, q.returncode, 0)
        q = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I", HERE,
                            os.path.join(HERE, "perfetto_subset.proto")],
                           stdin=open(pf, "rb"), capture_output=True, text=True)
        descs = [one(pk, "track_descriptor") for pk in
                 parse_text(q.stdout).get("packet", []) if "track_descriptor" in pk]
        threads = {one(one(t, "thread"), "tid"): one(one(t, "thread"), "thread_name")
                   for t in descs if "thread" in t}
        procs = {one(one(t, "process"), "pid"): one(one(t, "process"), "process_name")
                 for t in descs if "process" in t}
        expect("export: thread names", threads, {501: "render", 502: "upload", 600: None})
        expect("export: process names", procs, {500: "glxgears", 600: None})
    check("report: comm and process from the file's task table, pid/tid when not named, - without", names)

    def per_process():
        import json
        j = json.loads(report("-i", named, "--format", "json", "--per-process",
                              "--limit", "0"))
        got = [(p["pid"], p["process"], p["threads"], p["jobs"],
                p["t_total_count"]) for p in j["processes"]]
        # 500: 100:1, 100:2 (threads 501, 502) and 200:1 (501), all
        # complete; 600: 100:3 (complete) and 200:2 (never ended).
        expect("processes", sorted(got), [(500, "glxgears", 2, 3, 3),
                                          (600, None, 1, 2, 1)])
        expect("jobs without submitter", j["jobs_without_submitter"], 0)
        text = report("-i", named, "--per-process", "--limit", "0")
        for want in ("process 500 glxgears: 3 jobs from 2 threads",
                     "process 600 (not named): 2 jobs from 1 thread"):
            expect("text line %r" % want, want in text.splitlines(), True)
        notask = os.path.join(d, "notask.bin")
        text = report("-i", notask, "--per-process", "--limit", "0")
        expect("without submitter data: says so",
               "  no submitter data: no SUBMIT names its thread (format 1, or "
               "submitted from interrupt or kernel-thread context); 5 jobs not "
               "attributed" in text.splitlines(), True)
        expect("without submitter data: no process", "\nprocess " in text, False)
        rows = report("-i", notask, "--per-process", "--format", "csv").splitlines()
        expect("CSV header", rows[0].split(",")[:4], ["pid", "process", "threads", "jobs"])
        expect("CSV rows without submitter data",
               [r.split(",")[:4] for r in rows[1:]],
               [["", "(no submitter data)", "0", "5"]])
        text = report("-i", src, "--per-process", "--limit", "0")
        expect("a file without a task table: says so",
               "  (no task table in the input: processes by pid only)" in
               text.splitlines(), True)
    check("report --per-process: jobs and latencies per submitting process, named from the task table", per_process)

    def bad_tasks():
        data = scenario().trace_file(tasks)
        at = len(data) - 80 - 16
        for body, why in ((data[at + 16:-1], "task table of 79 bytes, not whole 40-byte entries"),
                          (None, "frame of CPU 0 has unknown flags 0x3")):
            bad = os.path.join(d, "badtasks.grf")
            # The last frame, CPU 0's task table, rewritten.
            if body is None:
                frame = gen_golden.grf_frame(0, 3, data[at + 16:])
            else:
                frame = gen_golden.grf_frame(0, gen_golden.GRF_TASKS, body)
            with open(bad, "wb") as f:
                f.write(data[:at] + frame)
            q = subprocess.run([tool, "report", "-i", bad], capture_output=True,
                               text=True)
            expect("exit status", q.returncode, 1)
            expect("message", q.stderr.strip().splitlines()[-1],
                   "grtrace: %s: byte %d: %s" % (bad, at, why))
    check("report: a task table of partial entries, or compressed: one line naming the byte", bad_tasks)

    # DRM clients (6.16 on): a SUBMIT pushed by a kworker names the client
    # of the file it came through; the client table names its process.
    kw = os.path.join(d, "clients.grf")
    with open(kw, "wb") as f:
        f.write(kworker_scenario().trace_file(KW_TASKS, clients=KW_CLIENTS))
    kw_bare = os.path.join(d, "clients.bin")
    with open(kw_bare, "wb") as f:
        f.write(kworker_scenario().chunks())
    kw_v2 = os.path.join(d, "clients-v2.grf")
    with open(kw_v2, "wb") as f:
        f.write(kworker_scenario().trace_file(KW_TASKS))
    unnamed = "  (1 jobs carry a DRM client id the client table does not name " \
        "(closed before record saw it): each goes to the process of the " \
        "thread that ran its SUBMIT)"

    def none_note(why):
        return "  (jobs carry DRM client ids but the input names none (%s): " \
            "each goes to the process of the thread that ran its SUBMIT)" % why

    def submitters(path):
        return {l.split()[0]: l.split()[-2] for l in report("-i", path).splitlines()
                if re.match(r"\d+:\d+ ", l)}

    def client_names():
        expect("text submitters", submitters(kw), {
            "100:1": "glxgears/4242", "100:2": "kworker/u8:2/77",
            "100:3": "glxgears/4242"})
        import json
        # pid and process: the submitting process; tid and comm: the
        # thread that ran the SUBMIT.
        got = {"%d:%d" % (j["ctx"], j["seqno"]):
               (j["pid"], j["process"], j["tid"], j["comm"], j["client_id"])
               for j in json.loads(report("-i", kw, "--format", "json"))["jobs"]}
        expect("JSON: the client's process, the SUBMIT's thread", got, {
            "100:1": (4242, "glxgears", 77, "kworker/u8:2", 7),
            "100:2": (77, "kworker/u8:2", 77, "kworker/u8:2", 9),
            "100:3": (4242, "glxgears", 4243, "glxgears:cs0", 7)})
        rows = report("-i", kw, "--format", "csv").splitlines()
        expect("CSV: client_id last", rows[0].split(",")[-5:],
               ["pid", "tid", "comm", "process", "client_id"])
        expect("CSV: 100:1's", rows[1].split(",")[-5:],
               ["4242", "77", "kworker/u8:2", "glxgears", "7"])
        q = subprocess.run([tool, "dump", "-i", kw], capture_output=True,
                           text=True)
        subs = [l for l in q.stdout.splitlines() if " SUBMIT " in l]
        expect("dump: client= on each SUBMIT",
               [l.split(" pid=")[1] for l in subs],
               ["77 tid=77 client=7", "77 tid=77 client=9",
                "4242 tid=4243 client=7"])
    check("report: a job's submitter is the process of its DRM client from the client table, its task (a kworker) when not named", client_names)

    def client_procs():
        import json
        text = report("-i", kw, "--per-process", "--limit", "0").splitlines()
        for want in ("process 4242 glxgears: 2 jobs from 1 thread and 1 DRM client",
                     "process 77 kworker/u8:2: 1 jobs from 1 thread", unnamed):
            expect("text line %r in %r" % (want, text), want in text, True)
        expect("no note of a missing task table",
               any("no task table" in l for l in text), False)
        j = json.loads(report("-i", kw, "--format", "json", "--per-process",
                              "--limit", "0"))
        expect("processes", sorted((p["pid"], p["process"], p["threads"],
                                    p["clients"], p["jobs"])
                                   for p in j["processes"]),
               [(77, "kworker/u8:2", 1, 0, 1), (4242, "glxgears", 1, 1, 2)])
        expect("jobs whose client is not named", j["jobs_client_not_named"], 1)
        rows = report("-i", kw, "--per-process", "--format", "csv").splitlines()
        expect("CSV: clients last", rows[0].split(",")[-1], "clients")
    check("report --per-process: a DRM client's jobs go to the process holding it; its threads are its own", client_procs)

    def client_none():
        # The same jobs without a client table: each by its task, and why.
        v3 = bytearray(open(kw_v2, "rb").read())
        v3[12] = 3
        kw_v3 = os.path.join(d, "clients-none.grf")
        with open(kw_v3, "wb") as f:
            f.write(v3)
        for path, why, sub in (
                (kw_bare, "a bare stream", "77/77"),
                (kw_v2, "a trace file of version 2, from before the client table",
                 "kworker/u8:2/77"),
                (kw_v3, "record found none of them open", "kworker/u8:2/77")):
            expect("%s: submitters" % why, set(submitters(path).values()),
                   {sub, "glxgears:cs0/4243" if sub != "77/77" else "4242/4243"})
            text = report("-i", path, "--per-process", "--limit", "0").splitlines()
            expect("%s: the note" % why, none_note(why) in text, True)
            expect("%s: no process of a client" % why,
                   any("DRM client" in l and l.startswith("process ")
                       for l in text), False)
    check("report: jobs with client ids and no client table (bare stream, version 2, none found): by their task, and a note saying why", client_none)

    def client_v2():
        # The same records in format 2 (gen_golden.py's pack2).
        import json
        v2 = os.path.join(d, "clients-f2.grf")
        gen_golden.pack(kw_bare, v2, "time", 65536, False, (False, -1))
        got = sorted(("%d:%d" % (j["ctx"], j["seqno"]), j["pid"], j["tid"],
                      j["client_id"])
                     for j in json.loads(report("-i", v2, "--format", "json"))["jobs"])
        expect("format 2: task and client of each job", got, [
            ("100:1", 77, 77, 7), ("100:2", 77, 77, 9), ("100:3", 4242, 4243, 7)])
        q = subprocess.run([tool, "dump", "-i", v2], capture_output=True, text=True)
        expect("format 2: dump", [l.split(" engine=gfx ")[1] for l in
                                  q.stdout.splitlines() if " SUBMIT " in l],
               ["aux0=7 aux1=0 pid=77 tid=77 client=7",
                "aux0=9 aux1=0 pid=77 tid=77 client=9",
                "aux0=7 aux1=0 pid=4242 tid=4243 client=7"])
    check("report, dump: format 2 SUBMITs flagged CLIENT name their DRM client", client_v2)

    def client_export():
        pf = os.path.join(d, "clients.pftrace")
        q = subprocess.run([tool, "export", "-i", kw, "-o", pf],
                           capture_output=True, text=True)
        expect("export exit status (%s)" % q.stderr, q.returncode, 0)
        expect("export stderr", q.stderr, "")
        q = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I", HERE,
                            os.path.join(HERE, "perfetto_subset.proto")],
                           stdin=open(pf, "rb"), capture_output=True, text=True)
        y = Export(parse_text(q.stdout).get("packet", []))
        procs = {one(one(t, "process"), "pid"): (u, one(one(t, "process"), "process_name"))
                 for u, t in y.tracks.items() if one(t, "process")}
        expect("processes", sorted((p, n) for p, (_, n) in procs.items()),
               [(77, "kworker/u8:2"), (4242, "glxgears")])
        c7 = y.track("DRM client 7", procs[4242][0])
        expect("threads", sorted((one(one(t, "thread"), "pid"),
                                  one(one(t, "thread"), "tid"))
                                 for t in y.tracks.values() if one(t, "thread")),
               [(77, 77)])
        t77 = [u for u, t in y.tracks.items()
               if one(one(t, "thread", {}), "tid") == 77][0]
        lane = y.track("jobs 0", y.track("ring 0 gfx0 (testdrv 0000:00:02.0)"))
        expect("flows from the client's track and the kworker's",
               sorted(y.flows().values()), sorted([
                   [(c7, 1000, "submit 100:1", "out"), (lane, 1000, "100:1", "in")],
                   [(t77, 5000, "submit 100:2", "out"), (lane, 5000, "100:2", "in")],
                   [(c7, 9000, "submit 100:3", "out"), (lane, 9000, "100:3", "in")]]))
    check("export: a DRM client's jobs submitted from a track of it under its process", client_export)

    def bad_clients():
        data = kworker_scenario().trace_file(KW_TASKS, clients=KW_CLIENTS)
        at = len(data) - 32 - 16
        for body, flags, why in (
                (data[at + 16:] + b"\0", 4,
                 "client table of 33 bytes, not whole 32-byte entries"),
                (data[at + 16:], 5, "frame of CPU 0 has unknown flags 0x5"),
                (data[at + 16:], 6, "frame of CPU 0 has unknown flags 0x6")):
            bad = os.path.join(d, "badclients.grf")
            # The last frame, CPU 0's client table, rewritten.
            with open(bad, "wb") as f:
                f.write(data[:at] + gen_golden.grf_frame(0, flags, body))
            q = subprocess.run([tool, "report", "-i", bad], capture_output=True,
                               text=True)
            expect("exit status", q.returncode, 1)
            expect("message", q.stderr.strip().splitlines()[-1],
                   "grtrace: %s: byte %d: %s" % (bad, at, why))
    check("report: a client table of partial entries, compressed or a task table too: one line naming the byte", bad_clients)
    return failed


if __name__ == "__main__":
    sys.exit(main())
