#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""visualize_timeline.py - a Gantt chart of the GPU rings, and latencies.

Usage: visualize_timeline.py IN -o OUT.png [--latency-only] [--grtrace TOOL]

IN is the JSON of "grtrace report --format json", or a trace file (or a
bare stream), whose report libgrtrace makes through its Python module
(python/grtrace/, or where "make install" put it): the JSON report
with --per-ring, as "grtrace report" writes it.  So the jobs are the
report's: the same ring, the same phases, the same derived starts.  Only
where the module or its library cannot be loaded is TOOL run instead
("grtrace report"; default the grtrace next to this directory, else the
one in PATH).

The chart has one row per ring, labelled "ring ID NAME": each job a bar
from COMMIT to START (queued, light) and from START to END (executing,
dark; hatched where the start was derived; a job that started and never
ended, hatched to the end of the window), and the ring's busy share of
the window beside its label, the saturated rings (the report's
bottleneck) in red.  Under it, per ring, a histogram of t_total on a log
scale.  --latency-only draws the histograms alone.

It prints what it drew, one line per ring: "ring ID NAME: N jobs, M
executing bars, K never ended, busy P%, saturated yes/no".  Needs python3-matplotlib.
Bad input: one line naming the file, exit 1.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

PROG = "visualize_timeline.py"


class Bad(Exception):
    pass


def binding():
    """The grtrace module (the source tree's, else the installed one), or
    None if it or its library cannot be loaded."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "python")
    if os.path.exists(os.path.join(here, "grtrace", "__init__.py")) and here not in sys.path:
        sys.dont_write_bytecode = True      # no __pycache__ in the tree
        sys.path.insert(0, here)
    try:
        import grtrace
    except (ImportError, AttributeError):
        return None
    return grtrace


def load(path, tool):
    """The report JSON of @path: read, or made by "grtrace report"."""
    try:
        with open(path, "rb") as f:
            head = f.read(1)
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror))
    if head == b"{":
        try:
            with open(path) as f:
                return json.load(f)
        except ValueError as e:
            raise Bad("%s: not a grtrace report JSON: %s" % (path, e))
    grtrace = binding()
    if grtrace:
        try:
            with grtrace.Trace(path) as t:
                return json.loads(t.report("json", "--per-ring"))
        except grtrace.Error as e:
            raise Bad("%s: %s" % (path, e.msg))
    try:
        p = subprocess.run([tool, "report", "-i", path, "--format", "json",
                            "--per-ring"], capture_output=True, text=True)
    except OSError as e:
        raise Bad("no grtrace module, and %s: %s" % (tool, e.strerror))
    if p.returncode != 0:
        raise Bad("%s" % (p.stderr.strip().splitlines() or ["grtrace report failed"])[-1])
    return json.loads(p.stdout)


def rings_of(rep):
    """Per ring id: name, jobs, bars; from the job rows and ring rows.  A
    job that started and never ended runs to the end of the window."""
    end = rep.get("summary", {}).get("window_end_ns")
    rings = {}
    for r in rep.get("rings", []):
        rings[r["ring"]] = {"name": r["ring_name"] or "(unnamed)",
                            "busy": r["busy_pct"],
                            "saturated": bool(r.get("bottleneck")),
                            "queue": [], "exec": [], "derived": [],
                            "running": [], "jobs": 0, "total": []}
    for j in rep.get("jobs", []):
        g = rings.setdefault(j["ring"], {
            "name": j["ring_name"] or "(unnamed)", "busy": None,
            "saturated": False, "queue": [], "exec": [], "derived": [],
            "running": [], "jobs": 0, "total": []})
        g["jobs"] += 1
        if j["commit_ts"] is not None and j["start_ts"] is not None and \
           j["start_ts"] > j["commit_ts"]:
            g["queue"].append((j["commit_ts"], j["start_ts"] - j["commit_ts"]))
        if j["start_ts"] is not None and j["end_ts"] is not None:
            bar = (j["start_ts"], max(j["end_ts"] - j["start_ts"], 0))
            (g["derived"] if j["start_derived"] else g["exec"]).append(bar)
        elif j["start_ts"] is not None and end is not None and \
                j["complete_ts"] is None and end > j["start_ts"]:
            g["running"].append((j["start_ts"], end - j["start_ts"]))
        if j["t_total"] is not None:
            g["total"].append(j["t_total"])
    return rings


def draw(rings, t0, out, latency_only):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = sorted(rings)
    n = len(ids)
    if latency_only:
        fig, axes = plt.subplots(1, max(n, 1), figsize=(4 * max(n, 1), 3),
                                 squeeze=False)
        hax = axes[0]
    else:
        fig = plt.figure(figsize=(12, 1.2 + 0.6 * n + 3))
        gs = fig.add_gridspec(2, max(n, 1), height_ratios=[0.6 * n + 1, 3])
        gax = fig.add_subplot(gs[0, :])
        hax = [fig.add_subplot(gs[1, k]) for k in range(max(n, 1))]
        labels = []
        for y, rid in enumerate(ids):
            g = rings[rid]
            color = "tab:red" if g["saturated"] else "tab:blue"
            ms = lambda bars: [((a - t0) / 1e6, d / 1e6) for a, d in bars]  # noqa: E731
            gax.broken_barh(ms(g["queue"]), (y - 0.35, 0.7), facecolors=color,
                            alpha=0.25)
            gax.broken_barh(ms(g["exec"]), (y - 0.35, 0.7), facecolors=color)
            gax.broken_barh(ms(g["derived"]), (y - 0.35, 0.7), facecolors=color,
                            hatch="//", alpha=0.7)
            gax.broken_barh(ms(g["running"]), (y - 0.35, 0.7), facecolors="none",
                            edgecolors=color, hatch="xx")
            busy = "" if g["busy"] is None else ", busy %.1f%%" % g["busy"]
            labels.append("ring %d %s%s%s" % (rid, g["name"], busy,
                                             " (saturated)" if g["saturated"] else ""))
        gax.set_yticks(range(n))
        gax.set_yticklabels(labels)
        gax.invert_yaxis()
        gax.set_xlabel("ms from the first job (light: queued, dark: executing, "
                       "hatched //: start derived, xx: never ended)")
        gax.set_title("GPU rings")
    for k, rid in enumerate(ids):
        g, ax = rings[rid], hax[k]
        vals = [v / 1e3 for v in g["total"] if v > 0]
        if vals:
            lo, hi = math.log10(min(vals)), math.log10(max(vals))
            bins = [10 ** (lo + (hi - lo + 1e-9) * i / 20) for i in range(21)]
            ax.hist(vals, bins=bins, color="tab:red" if g["saturated"] else "tab:blue")
            ax.set_xscale("log")
        ax.set_title("ring %d %s: t_total" % (rid, g["name"]), fontsize=9)
        ax.set_xlabel("us")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--latency-only", action="store_true")
    here = os.path.dirname(os.path.abspath(__file__))
    default_tool = os.path.join(here, "..", "grtrace")
    ap.add_argument("--grtrace", default=default_tool if os.access(
        default_tool, os.X_OK) else shutil.which("grtrace") or "grtrace")
    a = ap.parse_args()
    try:
        rep = load(a.input, a.grtrace)
        rings = rings_of(rep)
    except Bad as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    except (KeyError, TypeError) as e:
        print("%s: %s: not a grtrace report JSON (no %s)" % (PROG, a.input, e),
              file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("%s: needs matplotlib (apt-get install python3-matplotlib)" % PROG,
              file=sys.stderr)
        return 1
    t0 = min([a for g in rings.values() for a, _ in g["queue"] + g["exec"] +
              g["derived"]] or [0])
    try:
        draw(rings, t0, a.output, a.latency_only)
    except OSError as e:
        print("%s: %s: %s" % (PROG, a.output, e.strerror), file=sys.stderr)
        return 1
    for rid in sorted(rings):
        g = rings[rid]
        print("ring %d %s: %d jobs, %d executing bars, %d never ended, busy %s, saturated %s" % (
            rid, g["name"], g["jobs"], len(g["exec"]) + len(g["derived"]),
            len(g["running"]),
            "-" if g["busy"] is None else "%.2f%%" % g["busy"],
            "yes" if g["saturated"] else "no"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
