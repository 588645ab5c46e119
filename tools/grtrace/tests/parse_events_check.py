#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of scripts/parse_events.py against the golden vectors.

Each golden stream (tools/testing/selftests/grtrace/golden) has its records
written out as "grtrace dump" text by gen_golden.py, independently of any
decoder.  parse_events.py's JSON rows, put in that text form, must give the
same lines: format 1 bare streams, format 2 bare and in a trace file.  Then
truncated and corrupt inputs: the rows before, one error line naming the
file and the byte, exit 1.

    parse_events_check.py GOLDEN_DIR TMPDIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdicts import Verdicts  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "scripts", "parse_events.py")


def run(path, *args):
    return subprocess.run([sys.executable, SCRIPT, "--json", path] + list(args),
                          capture_output=True, text=True)


def dump_line(r):
    """A row as gen_golden.py writes the dump text."""
    f = r.get("fields") or {}
    t = r["type"]
    if t == "STREAM_INFO":
        text = "magic=ok version=%d clock=%s cpus=%d session=%d features=%s" % (
            f["version"], f["clock"], f["cpus"], f["session"], f["features"])
    elif t == "METADATA":
        text = "kernel=%s rings=%d" % (f["kernel"], f["rings"])
        for i in range(f["rings"]):
            text += "\n    ring " + " ".join(
                "%s=%s" % (k, f["ring%d.%s" % (i, k)])
                for k in ("id", "engine", "instance", "driver", "device", "name"))
    elif t == "RING":
        text = " ".join("%s=%s" % (k, f[k]) for k in
                        ("id", "engine", "instance", "driver", "device", "name"))
    elif t.startswith("TYPE_"):
        text = "size=%d" % f["size"]
    else:
        text = "ctx=%d seqno=%d ring=%d engine=%s aux0=%d aux1=%d" % (
            r["ctx"], r["seqno"], r["ring"], r["engine"], r["aux0"], r["aux1"])
        if r["pid"] is not None:
            text += " pid=%d tid=%d" % (r["pid"], r["tid"])
        if r["derived"]:
            text += " derived=1"
    return "%d %d %d %s %s" % (r["ts"], r["cpu"], r["gseq"], t, text)


def main():
    golden, tmp = sys.argv[1], sys.argv[2]
    v = Verdicts()
    result = v.result

    for vec, src in (("emit-basic", "emit-basic.bin"), ("rings", "rings.bin"),
                     ("emit-basic-v2", "emit-basic-v2.bin"),
                     ("emit-basic-v2", "emit-basic-v2.grf")):
        p = run(os.path.join(golden, src))
        want = open(os.path.join(golden, vec + ".dump")).read()
        got = "".join(dump_line(json.loads(l)) + "\n"
                      for l in p.stdout.splitlines()) if p.returncode == 0 else ""
        result("parse_events: %s decodes as gen_golden.py wrote it" % src,
               p.returncode == 0 and p.stderr == "" and got == want,
               "exit %d %s\ngot:\n%swant:\n%s" % (p.returncode, p.stderr, got,
                                                   want))

    # Cut short, and a record size that is not a multiple of 8.
    data = open(os.path.join(golden, "emit-basic.bin"), "rb").read()
    offs = [int(x) for x in open(os.path.join(golden, "emit-basic.offsets"))]
    cut = os.path.join(tmp, "cut.bin")
    with open(cut, "wb") as f:
        f.write(data[:offs[3] + 40])
    p = run(cut)
    rows = p.stdout.splitlines()
    result("parse_events: a truncated stream: its whole records, then the byte",
           p.returncode == 1 and len(rows) == 3 and
           p.stderr.startswith("parse_events.py: %s: byte %d: truncated record at byte %d: "
                               % (cut, offs[3], offs[3])) and "size 72" in p.stderr and
           len(p.stderr.splitlines()) == 1,
           "exit %d, %d rows, stderr %r" % (p.returncode, len(rows), p.stderr))
    bad = bytearray(data)
    bad[offs[2] + 2] = 70
    badp = os.path.join(tmp, "bad.bin")
    with open(badp, "wb") as f:
        f.write(bad)
    p = run(badp)
    result("parse_events: a corrupt record size: one line naming file and byte",
           p.returncode == 1 and len(p.stdout.splitlines()) == 2 and
           p.stderr.startswith("parse_events.py: %s: byte %d: corrupt record at byte %d: "
                               % (badp, offs[2], offs[2])) and "size 70" in p.stderr and
           len(p.stderr.splitlines()) == 1,
           "exit %d, stderr %r" % (p.returncode, p.stderr))
    grf = open(os.path.join(golden, "emit-basic-v2.grf"), "rb").read()
    cutf = os.path.join(tmp, "cut.grf")
    with open(cutf, "wb") as f:
        f.write(grf[:-5])
    p = run(cutf)
    result("parse_events: a truncated trace file: an error naming the frame's byte",
           p.returncode == 1 and "byte " in p.stderr and
           p.stderr.startswith("parse_events.py: %s: byte " % cutf) and
           len(p.stderr.strip().splitlines()) == 1,
           "exit %d, stderr %r" % (p.returncode, p.stderr))
    # A trace file of version 2 with a task table (export_check's trace).
    from export_check import scenario
    named = os.path.join(tmp, "named.grf")
    with open(named, "wb") as f:
        f.write(scenario().trace_file([(500, 501, "render", "glxgears"),
                                       (500, 502, "upload", "glxgears")]))
    p = run(named)
    rows = [json.loads(l) for l in p.stdout.splitlines()] if p.returncode == 0 else []
    tasks = [(r["pid"], r["tid"], r["fields"]["comm"], r["fields"]["process"])
             for r in rows if r["type"] == "TASK"]
    result("parse_events: a version 2 trace file: its records, then a TASK row per task table entry",
           p.returncode == 0 and rows[-2:] and all(r["type"] == "TASK" for r in rows[-2:]) and
           tasks == [(500, 501, "render", "glxgears"), (500, 502, "upload", "glxgears")] and
           sum(1 for r in rows if r["type"] == "SUBMIT") == 5,
           "exit %d %s %r" % (p.returncode, p.stderr, tasks))
    # Version 3: SUBMITs flagged CLIENT, and a client table.
    from export_check import kworker_scenario, KW_TASKS, KW_CLIENTS
    kw = os.path.join(tmp, "clients.grf")
    data = kworker_scenario().trace_file(KW_TASKS, clients=KW_CLIENTS)
    with open(kw, "wb") as f:
        f.write(data)
    p = run(kw)
    rows = [json.loads(l) for l in p.stdout.splitlines()] if p.returncode == 0 else []
    clients = [(r["client"], r["pid"], r["fields"]["process"])
               for r in rows if r["type"] == "CLIENT"]
    subs = [r["client"] for r in rows if r["type"] == "SUBMIT"]
    others = {r["client"] for r in rows if r["type"] in ("COMMIT", "END")}
    result("parse_events: a version 3 trace file: client of each SUBMIT flagged CLIENT, then a CLIENT row per client table entry",
           p.returncode == 0 and rows and rows[-1]["type"] == "CLIENT" and
           clients == [(7, 4242, "glxgears")] and subs == [7, 9, 7] and
           others == {None},
           "exit %d %s %r %r" % (p.returncode, p.stderr, clients, subs))
    q = subprocess.run([sys.executable, SCRIPT, kw], capture_output=True, text=True)
    lines = q.stdout.splitlines()
    result("parse_events: CSV: the client column last",
           q.returncode == 0 and lines[0].endswith(",fields,client") and
           lines[-1].split(",")[-1] == "7" and lines[-1].split(",")[6] == "CLIENT",
           "exit %d %s %r" % (q.returncode, q.stderr, lines[:1] + lines[-1:]))
    bad = os.path.join(tmp, "badclients.grf")
    at = len(data) - 32 - 16
    with open(bad, "wb") as f:
        f.write(data[:at + 8] + (33).to_bytes(4, "little") * 2 +
                data[at + 16:] + b"\0")
    p = run(bad)
    result("parse_events: a client table of partial entries: one line naming the byte",
           p.returncode == 1 and p.stderr.strip() ==
           "parse_events.py: %s: byte %d: client table of 33 bytes, not whole 32-byte entries"
           % (bad, at), "exit %d, stderr %r" % (p.returncode, p.stderr))
    p = run(os.path.join(tmp, "nonexistent.bin"))
    result("parse_events: a missing file: one line, exit 1",
           p.returncode == 1 and p.stderr.strip() == "parse_events.py: %s: No such file or directory"
           % os.path.join(tmp, "nonexistent.bin"), p.stderr)
    return v.failed


if __name__ == "__main__":
    sys.exit(main())
