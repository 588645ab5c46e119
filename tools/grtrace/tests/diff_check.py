#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of "grtrace diff" on synthetic pairs of recordings.

The traces are written with the golden vectors' encoder (gen_golden.py,
from the stream format of the document).  Three rings, each an open loop
of one job per 500 us: gfx0 (gfx) and comp0 (compute), submitted by
glxgears, draw their latencies at random from one distribution (a seed
per file); sdma0 (copy), submitted by copyd, runs t_exec of 100, 110, ...
190 us in turn (200 jobs: each value 20 times), t_queue and t_submit_host
10 us, COMPLETE 5 us after END, no dependency wait.  Its B side is the
same with every t_exec 30 % longer.  Each expected figure below is worked
out by hand from that.

    diff_check.py GRTRACE TMPDIR [SEEDS]
"""
import csv
import io
import json
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "testing", "selftests",
                                "grtrace", "golden"))
from verdicts import Verdicts  # noqa: E402
import gen_golden  # noqa: E402
from gen_golden import Trace, GFX, COPY  # noqa: E402

COMPUTE = gen_golden.ENGINES.index("compute")
VIDEO = gen_golden.ENGINES.index("video")
TASK = gen_golden.HDR_TASK
US = 1000
PERIOD = 500 * US
NJOBS = 200

# name, engine, the process submitting to it
GFX0 = ("gfx0", GFX, "glxgears")
COMP0 = ("comp0", COMPUTE, "glxgears")
SDMA0 = ("sdma0", COPY, "copyd")
VCN0 = ("vcn0", VIDEO, "vainfo")


def trace(seed, rings, ids, pids, slow=1.0, njobs=NJOBS, drop=0):
    """A trace file: @rings as above with ring ids @ids, the processes'
    pids from @pids ({process: pid}); sdma0's t_exec times @slow; @drop
    records taken out of the middle (a gap in gseq: records lost)."""
    rnd = random.Random(seed)
    evs = []
    for r, ((name, eng, proc), rid) in enumerate(zip(rings, ids)):
        pid = pids[proc]
        ctx = 100 + 10 * r
        for i in range(njobs):
            submit = 10000 + i * PERIOD + r * 7 * US
            if name == "sdma0":
                host, queue = 10 * US, 10 * US
                exec_ = (100 + 10 * (i % 10)) * US
                exec_ = int(round(exec_ * slow))
                wait = 0
            else:
                host = 10 * US + rnd.randrange(2 * US)
                queue = int(rnd.expovariate(1 / (20 * US)))
                queue = min(queue, 150 * US)
                exec_ = int(80 * US * math.exp(rnd.gauss(0, 0.3)))
                exec_ = min(exec_, 250 * US)
                wait = rnd.randrange(1, 8 * US) if rnd.random() < 0.125 \
                    else 0
            commit = submit + host
            start = commit + queue
            end = start + exec_
            complete = end + 5 * US
            key = (ctx, i + 1, rid, eng)
            evs.append((submit, "submit", key, pid))
            if wait:
                evs.append((submit + 1, "sync_wait_enter", key, None))
                evs.append((submit + 1 + wait, "sync_wait_exit", key, None))
            evs.append((commit, "commit", key, None))
            evs.append((start, "start", key, None))
            evs.append((end, "end", key, None))
            evs.append((complete, "complete", key, None))
    evs.sort(key=lambda e: e[0])
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, [(rid, eng, 0, b"gen", b"0000:00:02.0", name.encode())
                      for (name, eng, _), rid in zip(rings, ids)])
    for ts, what, (ctx, seqno, rid, eng), pid in evs:
        if pid is not None:
            t.ev(ts, what, ctx, seqno, rid, eng, cpu=seqno % 2,
                 trailing=gen_golden.task_trailing(pid, pid), flags=TASK)
        else:
            t.ev(ts, what, ctx, seqno, rid, eng, cpu=seqno % 2,
                 aux0=7 if what.startswith("sync") else 0)
    for g, rec in enumerate(t.recs):
        rec[4] = g
    if drop:
        mid = len(t.recs) // 2
        del t.recs[mid:mid + drop]
    tasks = [(pid, pid, proc, proc) for proc, pid in pids.items()]
    return t.trace_file(tasks=tasks)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def run(grtrace, *args):
    p = subprocess.run([grtrace, "diff"] + list(args), capture_output=True,
                       text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def flagged(doc):
    return sorted((c["group"], c[c["group"]], c["metric"])
                  for c in doc["comparisons"] if c["flagged"])


def find(doc, group, name, metric):
    for c in doc["comparisons"]:
        if c["group"] == group and c[group] == name and c["metric"] == metric:
            return c
    return None


def main():
    grtrace, tmp = sys.argv[1], sys.argv[2]
    seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    v = Verdicts()
    rings = [GFX0, COMP0, SDMA0]
    pa = {"glxgears": 4242, "copyd": 300}
    pb = {"glxgears": 5151, "copyd": 301}
    a = write(os.path.join(tmp, "a.dat"), trace(1, rings, [0, 1, 2], pa))
    # B: another seed, sdma0 30 % slower, the rings renumbered, new pids.
    b = write(os.path.join(tmp, "b.dat"),
              trace(2, rings, [5, 7, 0], pb, slow=1.3))
    rc, out, err = run(grtrace, "--format", "json", a, b)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    v.result("diff: json of a 30% t_exec slowdown on sdma0", rc == 0,
             "exit %d\n%s" % (rc, err))
    # By hand: only sdma0's jobs changed, so its ring, its class (copy:
    # sdma0 alone) and its process (copyd: sdma0 alone), in t_exec and in
    # t_total (= t_exec + 25 us), and nothing else.
    want = sorted((g, n, m) for g, n in (("ring", "sdma0"), ("engine", "copy"),
                                         ("process", "copyd"))
                  for m in ("t_exec", "t_total"))
    v.result("diff: the slowdown is flagged on sdma0 (its ring, class and process) and nowhere else",
             flagged(doc) == want, "flagged %s" % flagged(doc))
    c = find(doc, "ring", "sdma0", "t_exec") or {}
    # t_exec of 100..190 us, 20 each: nearest rank 100 of 200 is 140 us,
    # rank 180 is 180 us, rank 198 is 190 us; times 1.3 in B.
    v.result("diff: sdma0 t_exec p50/p90/p99 and +30%",
             c.get("a") == {"jobs": 200, "p50": 140000, "p90": 180000,
                            "p99": 190000} and
             c.get("b") == {"jobs": 200, "p50": 182000, "p90": 234000,
                            "p99": 247000} and
             abs(c.get("change_pct", 0) - 30.0) < 1e-6 and
             c.get("direction") == "slower" and c.get("kind") == "copy" and
             c.get("p_value") is not None and c["p_value"] < 1e-20,
             json.dumps(c))
    c = find(doc, "ring", "sdma0", "t_total") or {}
    # t_total = 10 + 10 + t_exec + 5 us: p50 165 -> 207 us.
    v.result("diff: sdma0 t_total p50 165 us -> 207 us (+25.45%)",
             c.get("a", {}).get("p50") == 165000 and
             c.get("b", {}).get("p50") == 207000 and
             abs(c.get("change_pct", 0) - 100.0 * 42 / 165) < 1e-3,
             json.dumps(c))
    c = find(doc, "ring", "sdma0", "t_queue") or {}
    v.result("diff: sdma0 t_queue the same 10 us: p-value 1, not flagged",
             c.get("p_value") == 1 and c.get("change_pct") == 0 and
             c.get("flagged") is False, json.dumps(c))
    only = [c for c in doc["comparisons"] if c.get("only")]
    ring_names = sorted({c["ring"] for c in doc["comparisons"]
                         if c["group"] == "ring"})
    v.result("diff: rings renumbered between the files still match",
             not only and ring_names == ["comp0", "gfx0", "sdma0"] and
             all(c["a"] is not None and c["b"] is not None
                 for c in doc["comparisons"]),
             "only %s rings %s" % (only, ring_names))
    keys = {"group", "metric", "a", "b", "change_pct", "p_value", "flagged",
            "lost_a", "lost_b"}
    v.result("diff: every JSON comparison names its group, metric, sides, change, p-value and flag",
             doc["comparisons"] and
             all(keys <= set(c) and c[c["group"]] for c in doc["comparisons"]),
             json.dumps(doc["comparisons"][:2]))
    c = find(doc, "ring", "sdma0", "busy_pct") or {}
    # Busy: the jobs' t_exec over the window; B's execs are 1.3 times.
    v.result("diff: sdma0's busy share is compared, with both verdicts",
             c.get("b", {}).get("busy_pct", 0) > c.get("a", {}).get("busy_pct", 1)
             and c.get("a", {}).get("verdict") == "ok" and
             c.get("flagged") is False and c.get("p_value") is None,
             json.dumps(c))

    # Text: flagged lines first, one line each.
    rc, out, err = run(grtrace, a, b)
    lines = [ln for ln in out.splitlines() if ln.startswith(("! ", "  "))]
    marks = [ln.startswith("! ") for ln in lines]
    v.result("diff: text lists the 6 flagged lines first",
             rc == 0 and marks[:6] == [True] * 6 and not any(marks[6:]) and
             all("sdma0" in ln or "copy" in ln for ln in lines[:6]),
             out)
    # CSV: the same comparisons.
    rc, out, err = run(grtrace, "--format=csv", a, b)
    rows = list(csv.DictReader(io.StringIO(out)))
    v.result("diff: csv flags the same six",
             rc == 0 and sorted((r["group"], r["name"], r["metric"])
                                for r in rows if r["flagged"] == "1") == want,
             out[:2000])
    # --fail-on regression: 1 on the slowdown, 0 the other way round.
    rc, _, err = run(grtrace, "--fail-on", "regression", a, b)
    rc2, out2, _ = run(grtrace, "--fail-on=regression", "-f", "json", b, a)
    back = json.loads(out2) if rc2 == 0 else {"comparisons": []}
    v.result("diff: --fail-on regression exits 1 on a slowdown, 0 on a speedup",
             rc == 1 and rc2 == 0 and flagged(back) == want and
             all(c["direction"] == "faster" for c in back["comparisons"]
                 if c["flagged"]), "exit %d, %d %s" % (rc, rc2, err))
    # The same recording renumbered: every ring matched, nothing changed.
    a2 = write(os.path.join(tmp, "a2.dat"), trace(1, rings, [9, 3, 4], pb))
    rc, out, err = run(grtrace, "-f", "json", "--fail-on", "regression", a, a2)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    v.result("diff: a recording against itself renumbered: all matched, p 1, none flagged",
             rc == 0 and not flagged(doc) and
             all(c["p_value"] == 1 for c in doc["comparisons"]
                 if c["p_value"] is not None) and
             not any(c.get("only") for c in doc["comparisons"]),
             out[:2000] + err)

    # Renumbered and listed in another order: a ring's place in the file
    # is no more its identity than its id.
    b2 = write(os.path.join(tmp, "b2.dat"),
               trace(2, [SDMA0, GFX0, COMP0], [3, 9, 4], pb, slow=1.3))
    rc, out, err = run(grtrace, "-f", "json", a, b2)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    v.result("diff: rings renumbered and listed in another order still match",
             rc == 0 and flagged(doc) == want and
             not any(c.get("only") for c in doc["comparisons"]) and
             (find(doc, "ring", "sdma0", "t_exec") or {}).get("b", {})
             .get("p50") == 182000, "%s %s" % (flagged(doc), err))

    # --min-change: sdma0's t_exec moved 30 % at each percentile, its
    # t_total 25.5 % .. 26.5 % (above); the p-values are far below alpha.
    rc, out, err = run(grtrace, "-f", "json", "--min-change", "29", a, b)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    v.result("diff: --min-change 29 flags sdma0's t_exec (30%) and not its t_total (26.5%)",
             rc == 0 and doc.get("min_change_pct") == 29 and
             flagged(doc) == [w for w in want if w[2] == "t_exec"],
             "%s %s" % (flagged(doc), err))
    # The value as given, every digit (it was cut to six).
    rc, out, err = run(grtrace, "-f", "json", "--min-change", "12.345678",
                       a, b)
    v.result("diff: --min-change 12.345678 is used and reported as given",
             rc == 0 and json.loads(out).get("min_change_pct") == 12.345678,
             out[:300] + err)
    rc, out, err = run(grtrace, "--min-change=31%", "--fail-on", "regression",
                       a, b)
    v.result("diff: --min-change 31%: nothing flagged, --fail-on regression exits 0",
             rc == 0 and "flagged: 0 (0 slower, 0 faster)" in out,
             "exit %d %s" % (rc, err))
    # --alpha: below sdma0's adjusted p-value nothing is flagged, above
    # it the six are.
    rc, out, err = run(grtrace, "-f", "json", a, b)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    padj = min([c["p_adjusted"] for c in doc["comparisons"] if c["flagged"]]
               or [0.5])
    rc1, out1, _ = run(grtrace, "-f", "json", "--alpha", "%.6g" % (padj / 4),
                       "--fail-on=regression", a, b)
    rc2, out2, _ = run(grtrace, "-f", "json", "--alpha=%.6g" % (padj * 4),
                       "--fail-on=regression", a, b)
    d1 = json.loads(out1) if rc1 == 0 else {"comparisons": [1]}
    d2 = json.loads(out2) if rc2 == 1 else {"comparisons": []}
    v.result("diff: --alpha below the adjusted p flags nothing (exit 0), above it the six (exit 1)",
             padj < 1e-20 and rc1 == 0 and not flagged(d1) and
             rc2 == 1 and flagged(d2) == want,
             "p_adjusted %g, exit %d, %d" % (padj, rc1, rc2))

    # Flagged only when a percentile moved --min-change the way the test
    # found.  gfx0, 200 jobs: A runs 180 of 100 us and 20 of 300 us, B
    # 180 of 104 us and 20 of 200 us.  B's ranks are higher (U = 180 *
    # 180 + 20 * 180 = 36000 of 40000 pairs: slower, p far below 0.01),
    # its p50 and p90 (ranks 100, 180) 4 % longer, its p99 (rank 198)
    # 33 % shorter: no 5 % move the slower way, so nothing is flagged;
    # with --min-change 3 the 4 % is enough.
    da = write(os.path.join(tmp, "dir-a.dat"),
               small(lambda i: (100 if i < 180 else 300) * US, 200))
    db = write(os.path.join(tmp, "dir-b.dat"),
               small(lambda i: (104 if i < 180 else 200) * US, 200))
    rc, out, err = run(grtrace, "-f", "json", da, db)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    c = find(doc, "ring", "gfx0", "t_exec") or {}
    v.result("diff: slower by the ranks, p99 33% shorter, p50 4% longer: not flagged",
             c.get("direction") == "slower" and c.get("p_adjusted", 1) < 1e-9
             and c.get("a", {}).get("p99") == 300 * US and
             c.get("b", {}).get("p99") == 200 * US and
             abs(c.get("change_pct", 0) - 4.0) < 1e-9 and
             c.get("flagged") is False and not flagged(doc), json.dumps(c))
    rc, out, err = run(grtrace, "-f", "json", "--min-change", "3", da, db)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    c = find(doc, "ring", "gfx0", "t_exec") or {}
    v.result("diff: ... flagged with --min-change 3",
             c.get("flagged") is True and doc.get("regressions", 0) >= 1,
             json.dumps(c))

    # Saturation verdicts: sdma0's t_exec 3.5 times, 350 .. 665 us a job
    # each 500 us; the five under 500 us leave 150 + 115 + 80 + 45 + 10 =
    # 400 us idle of each 5000 us: busy 92 % (A: 1450 of 5000, 29 %), at
    # or above the report's 90 %: saturated.
    sat = write(os.path.join(tmp, "sat.dat"),
                trace(2, rings, [5, 7, 0], pb, slow=3.5))
    rc, out, err = run(grtrace, "-f", "json", a, sat)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    c = find(doc, "ring", "sdma0", "busy_pct") or {}
    others = [find(doc, "ring", r, "busy_pct") or {} for r in ("gfx0", "comp0")]
    v.result("diff: sdma0 busy 29% -> 92%, its verdict ok -> saturated, the others' unchanged",
             abs(c.get("a", {}).get("busy_pct", 0) - 29) < 0.2 and
             abs(c.get("b", {}).get("busy_pct", 0) - 92) < 0.2 and
             c["a"]["verdict"] == "ok" and c["b"]["verdict"] == "saturated"
             and c.get("verdict_changed") is True and
             all(o.get("verdict_changed") is False and
                 o["a"]["verdict"] == o["b"]["verdict"] == "ok"
                 for o in others), json.dumps([c] + others))
    rc, out, err = run(grtrace, a, sat)
    v.result("diff: text shows the verdicts, ok -> saturated",
             rc == 0 and any(ln.startswith("  ring sdma0 [copy]") and
                             "busy_pct" in ln and
                             ln.endswith(", ok -> saturated")
                             for ln in out.splitlines()), out[-1500:])

    # A ring and a process on one side only.
    c3 = write(os.path.join(tmp, "c.dat"),
               trace(3, rings + [VCN0], [0, 1, 2, 3],
                     dict(pa, vainfo=77)))
    rc, out, err = run(grtrace, "-f", "json", a, c3)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    only = sorted((c["group"], c[c["group"]], c["only"])
                  for c in doc["comparisons"] if c.get("only"))
    v.result("diff: what is in B only is listed as such",
             only == [("engine", "video", "B"), ("process", "vainfo", "B"),
                      ("ring", "vcn0", "B")] and
             find(doc, "ring", "vcn0", "jobs")["b"]["jobs"] == NJOBS,
             json.dumps(only))
    rc, out, err = run(grtrace, c3, a)
    v.result("diff: text says 'only in A'",
             rc == 0 and any("vcn0" in ln and "only in A: 200 jobs" in ln
                             for ln in out.splitlines()), out)

    # Losses and damage.
    lossy = write(os.path.join(tmp, "lossy.dat"),
                  trace(2, rings, [5, 7, 0], pb, drop=3))
    rc, out, err = run(grtrace, "-f", "json", a, lossy)
    doc = json.loads(out) if rc == 0 else {"b": {}, "comparisons": []}
    v.result("diff: records lost in B are shown beside its figures",
             rc == 0 and doc["b"].get("lost_records") == 3 and
             all(c["lost_b"] == 3 and c["lost_a"] == 0
                 for c in doc["comparisons"]), out[:1500] + err)
    rc, out, err = run(grtrace, a, lossy)
    lines = [ln for ln in out.splitlines() if ln.startswith(("! ", "  "))]
    # Every comparison line, the jobs' counts and rates too: a record
    # lost may be a job's SUBMIT or COMPLETE, and the job goes uncounted.
    v.result("diff: text marks every line of a lossy input, the job counts' too",
             rc == 0 and "B: %s:" % lossy in out and "3 records lost" in out
             and lines and any(" jobs " in ln for ln in lines) and
             all(ln.endswith("  [lost records: A 0, B 3]") for ln in lines),
             out[:1500])
    rc, out, err = run(grtrace, c3, lossy)
    v.result("diff: ... and the lines of what is on one side only",
             rc == 0 and any("only in A: 200 jobs" in ln and
                             ln.endswith("[lost records: A 0, B 3]")
                             for ln in out.splitlines()), out[:1500])
    with open(b, "rb") as f:
        data = f.read()
    cut = write(os.path.join(tmp, "cut.dat"), data[:len(data) * 2 // 3])
    rc, out, err = run(grtrace, a, cut)
    v.result("diff: a damaged B is named, the diff of what was read printed, exit 1",
             rc == 1 and err.startswith("grtrace: diff: %s: " % cut) and
             len(err.splitlines()) == 1 and "DAMAGED" in out and
             "ring sdma0" in out, "exit %d\n%s\n%s" % (rc, err, out[:800]))

    # Usage errors: one line, status 2.
    for args, what in ((["--alpha", "2", a, b], "--alpha"),
                       (["--min-change", "x", a, b], "--min-change"),
                       (["--fail-on", "speed", a, b], "--fail-on"),
                       (["-f", "xml", a, b], "format"),
                       ([a], "two recordings"),
                       ([a, b, b], "unexpected argument"),
                       # The option named, not the word before it, nor
                       # a value after the files.
                       (["-xf", "json", a, b], "unknown option '-x'"),
                       ([a, "-f", "json", b],
                        "option '-f' after a recording")):
        rc, out, err = run(grtrace, *args)
        v.result("diff: usage error: %s" % what,
                 rc == 2 and what in err.splitlines()[0] and not out,
                 "exit %d\n%s" % (rc, err))
    rc, out, err = run(grtrace, a, os.path.join(tmp, "none.dat"))
    v.result("diff: a missing input is named, exit 1",
             rc == 1 and "none.dat" in err and len(err.splitlines()) == 1,
             err)

    # The test itself, on small samples (exact) and on large (normal).
    exact_a = write(os.path.join(tmp, "ex-a.dat"),
                    small(lambda i: (i + 1) * 1000 * US))
    exact_b = write(os.path.join(tmp, "ex-b.dat"),
                    small(lambda i: (i + 6) * 1000 * US))
    rc, out, err = run(grtrace, "-f", "json", exact_a, exact_b)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    c = find(doc, "ring", "gfx0", "t_exec") or {}
    # 5 jobs against 5, all of B above all of A: 2 of the C(10, 5) = 252
    # splits are this far from the middle.
    v.result("diff: exact Mann-Whitney p of 5 vs 5 apart is 2/252",
             c.get("test") == "mann-whitney-u exact" and
             abs(c.get("p_value", 0) - 2 / 252) < 1e-9, json.dumps(c))

    # The Python binding: the same diff through the same library call.
    import grtrace as gt
    rc, out, err = run(grtrace, "-f", "json", a, b)
    doc = gt.diff(a, b)
    v.result("diff: grtrace.diff() in Python gives the CLI's JSON",
             rc == 0 and doc == json.loads(out), json.dumps(doc)[:1000])

    # False alarms: pairs of one distribution over many seeds, in memory.
    alarms = alarms0 = raw = tests = 0
    traces = [gt.Trace(data=trace(1000 + s, [GFX0, COMP0], [0, 1], pa,
                                  njobs=150))
              for s in range(seeds + 1)]
    for s in range(seeds):
        doc = gt.diff(traces[s], traces[s + 1])
        alarms += doc["regressions"] > 0 or any(c["flagged"] for c in
                                                doc["comparisons"])
        alarms0 += any(c["p_adjusted"] is not None and c["p_adjusted"] < 0.01
                       for c in doc["comparisons"])
        # Each ring's own tests (the classes repeat them), unadjusted.
        p = [c["p_value"] for c in doc["comparisons"]
             if c["group"] == "ring" and c["p_value"] is not None]
        tests += len(p)
        raw += sum(x < 0.01 for x in p)
    print("# %d seeds: %d flagged anything, %d had a test reject; "
          "%d of %d ring tests had p < 0.01 unadjusted"
          % (seeds, alarms, alarms0, raw, tests))
    v.result("diff: two samples of one distribution flag nothing (under 1%% of %d seeds)"
             % seeds, alarms * 100 < seeds, "%d of %d" % (alarms, seeds))
    v.result("diff: ... and even the test alone rejects under 1% of them",
             alarms0 * 100 < seeds, "%d of %d" % (alarms0, seeds))
    # The test is calibrated: about 1 % of one distribution's pairs of
    # samples have p < 0.01 (not 0: a test that never rejects is no test).
    v.result("diff: unadjusted, p < 0.01 in about 1% of the tests (0.25% .. 2.5%)",
             0.0025 * tests <= raw <= 0.025 * tests, "%d of %d" % (raw, tests))

    # Many groups: 24 rings, each its own process, so the table of groups
    # grows while a job's ring and engine groups are in hand (a real
    # recording on 7.3.4, a kworker per job batch, crashed diff so).
    many = [("r%d" % i, GFX, "proc%d" % i) for i in range(24)]
    pm = {"proc%d" % i: 1000 + i for i in range(24)}
    a = write(os.path.join(tmp, "many-a.dat"),
              trace(3, many, list(range(24)), pm, njobs=20))
    b = write(os.path.join(tmp, "many-b.dat"),
              trace(4, many, list(range(24)), pm, njobs=20))
    rc, out, err = run(grtrace, "--format", "json", a, b)
    doc = json.loads(out) if rc == 0 else {"comparisons": []}
    groups = {(c["group"], c[c["group"]]) for c in doc["comparisons"]}
    v.result("diff: 24 rings of 24 processes: every ring and process compared",
             rc == 0 and all(("ring", "r%d" % i) in groups and
                             ("process", "proc%d" % i) in groups
                             for i in range(24)),
             "exit %d, %d groups\n%s" % (rc, len(groups), err[-500:]))

    # One machine, two GPUs, each with a ring "gfx0": the device tells
    # them apart on both sides, whichever GPU finished a job first.  diff
    # named the first one found gfx0@DEVICE and left the other the bare
    # name, so the bare name was one GPU in A and the other in B, whose
    # 100 and 300 us jobs were compared: two false flags, --fail-on 1.
    def two_gpus(path, devs):
        t = Trace()
        t.stream_info(1000)
        t.metadata(1000, [(rid, GFX, 0, b"gen", d.encode(), b"gfx0")
                          for rid, d, _ in devs])
        evs = []
        for r, (rid, d, ex) in enumerate(devs):
            for i in range(200):
                s0 = 10000 + i * PERIOD + r * 250 * US
                for w, at in (("submit", 0), ("commit", 10), ("start", 20),
                              ("end", 20 + ex), ("complete", 25 + ex)):
                    evs.append((s0 + at * US, w, 100 + r, i + 1, rid))
        for ts, w, ctx, seq, rid in sorted(evs):
            t.ev(ts, w, ctx, seq, rid, GFX)
        return write(path, t.trace_file())
    a = two_gpus(os.path.join(tmp, "gpus-a.dat"),
                 [(0, "0000:03:00.0", 100), (1, "0000:04:00.0", 300)])
    b = two_gpus(os.path.join(tmp, "gpus-b.dat"),
                 [(0, "0000:04:00.0", 300), (1, "0000:03:00.0", 100)])
    rc, out, err = run(grtrace, "-f", "json", "--fail-on", "regression",
                       a, b)
    doc = json.loads(out) if out else {"comparisons": []}
    rings = {c["ring"] for c in doc["comparisons"] if c["group"] == "ring"}
    v.result("diff: two GPUs' rings of one name: each compared with itself "
             "(gfx0@DEVICE on both sides), nothing flagged, exit 0",
             rc == 0 and rings == {"gfx0@0000:03:00.0", "gfx0@0000:04:00.0"}
             and not flagged(doc) and
             not any(c["only"] for c in doc["comparisons"]),
             "exit %d, rings %s, flagged %s" % (rc, sorted(rings),
                                                flagged(doc)))

    # A metric measured on one side only (A's kernel has no COMMIT, so no
    # t_queue): named so, no test, no figure for A; it was printed as
    # "0 ns -> 1000 ns +inf ... p=1 no significant change".
    def commits(path, commit):
        t = Trace()
        t.stream_info(1000)
        t.metadata(1000, [(0, GFX, 0, b"gen", b"0000:00:02.0", b"gfx0")])
        ts = 10000
        for i in range(100):
            for w, at in (("submit", 0), ("commit", 1), ("start", 2),
                          ("end", 102), ("complete", 103)):
                if w != "commit" or commit:
                    t.ev(ts + at * US, w, 100, i + 1, 0, GFX)
            ts += 104 * US
        return write(path, t.trace_file())
    a = commits(os.path.join(tmp, "nocommit-a.dat"), False)
    b = commits(os.path.join(tmp, "nocommit-b.dat"), True)
    rc, text, err = run(grtrace, a, b)
    line = [x for x in text.splitlines()
            if x.lstrip().startswith("ring gfx0") and "t_queue" in x]
    rc2, out, err2 = run(grtrace, "-f", "json", a, b)
    c = find(json.loads(out) if rc2 == 0 else {"comparisons": []},
             "ring", "gfx0", "t_queue") or {}
    rc3, out3, err3 = run(grtrace, "-f", "csv", a, b)
    rows = [r for r in csv.DictReader(io.StringIO(out3))
            if r["group"] == "ring" and r["metric"] == "t_queue"]
    v.result("diff: a metric not measured in A: 'not measured in A: not "
             "tested' with B's figures; JSON nulls for A's and the change; "
             "CSV fields empty",
             rc == 0 and len(line) == 1 and
             line[0].endswith("p50 1000 ns  p90 1000 ns  p99 1000 ns  "
                              "n 0/100  not measured in A: not tested") and
             c.get("a") == {"jobs": 0, "p50": None, "p90": None,
                            "p99": None} and
             c.get("b", {}).get("p50") == 1000 and
             c.get("change_pct", 0) is None and c.get("p_value", 0) is None
             and len(rows) == 1 and rows[0]["a_p50"] == "" and
             rows[0]["b_p50"] == "1000" and rows[0]["change_pct"] == "",
             "%s\n%s\n%s" % (line, json.dumps(c), rows))

    # An input named by a long path of bytes outside ASCII: each is
    # escaped to six, and the name went through a line of 4096 bytes,
    # which cut it, closing quote and all: invalid JSON, exit 0.
    d = os.path.join(tmp, *(["\u00e9" * 120] * 3))
    os.makedirs(d, exist_ok=True)
    long_a = os.path.join(d, "a.dat")
    with open(a, "rb") as src, open(long_a, "wb") as dst:
        dst.write(src.read())
    rc, out, err = run(grtrace, "-f", "json", long_a, b)
    try:
        name = json.loads(out)["a"]["input"]
    except (ValueError, KeyError) as e:
        name = "%s: %s" % (type(e).__name__, e)
    v.result("diff -f json: an input path of 720 bytes outside ASCII is "
             "written whole (valid JSON)",
             rc == 0 and name == os.fsencode(long_a).decode("latin-1"),
             "exit %d: %s" % (rc, str(name)[:200]))
    return v.failed


def small(exec_of, njobs=5):
    """Ring gfx0 with @njobs jobs one after another, t_exec from
    exec_of(i)."""
    t = Trace()
    t.stream_info(1000)
    t.metadata(1000, [(0, GFX, 0, b"gen", b"0000:00:02.0", b"gfx0")])
    ts = 10000
    for i in range(njobs):
        e = exec_of(i)
        for what, at in (("submit", 0), ("commit", US), ("start", 2 * US),
                         ("end", 2 * US + e), ("complete", 3 * US + e)):
            t.ev(ts + at, what, 100, i + 1, 0, GFX)
        ts += 4 * US + e
    return t.trace_file()


if __name__ == "__main__":
    sys.exit(main())
