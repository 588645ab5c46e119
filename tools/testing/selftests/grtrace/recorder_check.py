#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""recorder_check.py - check a flight recorder snapshot, read raw.

usage: recorder_check.py DIR [--cause C] [--ring NAME] [--hang] [--later N]
                         [--format F] [--error E] [--job CTX:SEQNO]
                         [--wrapped] [--session S]

DIR holds info (the recorder's info file) and snapshot<cpu> (each CPU's
snapshot stream, as read from debugfs).  Prints "PASS what" / "FAIL what"
lines for tap_lib.sh's check(), "# ..." comments.  The streams are read
by golden/gen_golden.py, the Python oracle of the format (written from
Documentation/gpu/grtrace.rst and the uapi header, independent of the
CLI's library).
"""

import argparse
import glob
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "golden"))
sys.dont_write_bytecode = True
import gen_golden  # noqa: E402

JOB = {t: n for t, n in gen_golden.TYPES.items() if t < 32}
CAUSES = {n: c for c, n in gen_golden.TRIGGER_CAUSES.items()}

results = []


def verdict(ok, what):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + what)


def parse(data):
    """Records of one stream, format 1 or 2 as its first record says:
    gen_golden.decode()'s dicts, its rings as (ring_id, name)."""
    fmt, recs = gen_golden.decode(data)
    for r in recs:
        if "rings" in r:
            r["rings"] = [(d["ring_id"], d["name"]) for d in r["rings"]]
    return fmt, recs


def read_info(path):
    info, cpus = {}, {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if words and words[0].startswith("cpu") and len(words) > 1:
                cpus[int(words[0][3:])] = {k: int(v) for k, v in
                                            (w.split("=") for w in words[1:])}
            elif "=" in line:
                k, v = line.strip().split("=", 1)
                info[k] = v
    return info, cpus


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--cause")
    ap.add_argument("--ring")
    ap.add_argument("--hang", action="store_true")
    ap.add_argument("--later", type=int)
    ap.add_argument("--format", type=int)
    ap.add_argument("--error", type=int)
    ap.add_argument("--job")
    ap.add_argument("--wrapped", action="store_true")
    ap.add_argument("--session", type=int)
    a = ap.parse_args()

    info, icpus = read_info(os.path.join(a.dir, "info"))
    verdict(info.get("state") == "triggered", "info: state=triggered (%s)" %
            info.get("state"))
    streams = {}
    for p in sorted(glob.glob(os.path.join(a.dir, "snapshot*"))):
        cpu = int(os.path.basename(p)[8:])
        with open(p, "rb") as f:
            try:
                streams[cpu] = parse(f.read())
            except (ValueError, struct.error) as e:
                verdict(False, "snapshot%d parses: %s" % (cpu, e))
                return 1
    verdict(bool(streams) and set(streams) == set(icpus),
            "a snapshot stream for each CPU of info (%s)" % sorted(streams))

    rings, trig, exact, shape, wrapped = {}, [], True, True, False
    fmts = set()
    for cpu, (fmt, recs) in sorted(streams.items()):
        fmts.add(fmt)
        names = [r["name"] for r in recs]
        if names[:2] != ["STREAM_INFO", "METADATA"]:
            shape = False
            print("# snapshot%d starts %s" % (cpu, names[:2]))
            continue
        for r in recs:
            for rid, name in r.get("rings", []):
                rings[rid] = name
        tail = 2 if names[-1] == "TRIGGER" else 1
        if names[-tail] != "RECORDER" or names.count("RECORDER") != 1:
            shape = False
            print("# snapshot%d ends %s" % (cpu, names[-2:]))
            continue
        rc = recs[-tail]
        if tail == 2:
            trig.append(recs[-1])
        head = 2
        while recs[head]["name"] == "RING" and recs[head]["cseq"] == recs[1]["cseq"]:
            head += 1
        kept = recs[head:-tail]
        ic = icpus.get(cpu, {})
        ok = (rc["emitted"] == rc["kept"] + rc["overwritten"] + rc["dropped"] and
              rc["kept"] == len(kept) and rc["cpu"] == cpu and
              ic.get("kept") == rc["kept"] and
              ic.get("overwritten") == rc["overwritten"] and
              (not kept or (rc["first_ts"] == kept[0]["ts"] and
                            rc["last_ts"] == kept[-1]["ts"])))
        print("# cpu%d: emitted=%d kept=%d (%d records) overwritten=%d dropped=%d"
              " window %d..%d" % (cpu, rc["emitted"], rc["kept"], len(kept),
                                  rc["overwritten"], rc["dropped"],
                                  rc["first_ts"], rc["last_ts"]))
        exact = exact and ok
        wrapped = wrapped or rc["overwritten"] > 0
        streams[cpu] = (fmt, kept)
        if a.session is not None and recs[0]["session"] != a.session:
            shape = False
            print("# snapshot%d: session %d" % (cpu, recs[0]["session"]))
    verdict(shape, "each stream: STREAM_INFO, METADATA, the kept records, "
            "RECORDER (then TRIGGER on one CPU)")
    verdict(exact, "per CPU: emitted == kept + overwritten + dropped, kept == "
            "the records in the stream, first/last ts, same as info")
    if a.format:
        verdict(fmts == {a.format}, "stream format %s" % sorted(fmts))
    if a.wrapped:
        verdict(wrapped, "the buffers wrapped: records overwritten")
    verdict(len(trig) == 1, "one TRIGGER record (%d)" % len(trig))
    if len(trig) != 1:
        return 1
    t = trig[0]
    freeze = t["frozen_ts"] - t["ts"]
    later = t["later_triggers"]
    print("# TRIGGER cause=%d ring=%d ctx=%d seqno=%d error=%d freeze_ns=%d "
          "later=%d cpu=%d" % (t["cause"], t["ring_id"], t["ctx"], t["seqno"],
                               t["error"], freeze, later, t["cpu"]))
    verdict(int(info["freeze_ns"]) == freeze and freeze > 0,
            "freeze_ns %d, as info says (its bound: recorder_test.sh)" % freeze)
    if a.cause:
        verdict(t["cause"] == CAUSES[a.cause] and info["cause"] == a.cause,
                "cause %s (%d, info %s)" % (a.cause, t["cause"], info["cause"]))
    if a.later is not None:
        verdict(later == a.later and int(info["later_triggers"]) == a.later,
                "later triggers %d (%d, info %s)" % (a.later, later,
                                                   info["later_triggers"]))
    if a.error is not None:
        verdict(t["error"] == a.error and int(info["error"]) == a.error,
                "error %d (%d)" % (a.error, t["error"]))
    if a.job:
        ctx, seqno = (int(x, 0) for x in a.job.split(":"))
        verdict((t["ctx"], t["seqno"]) == (ctx, seqno),
                "names job %d:%d (%d:%d)" % (ctx, seqno, t["ctx"], t["seqno"]))
    if a.ring:
        name = rings.get(t["ring_id"], "?")
        verdict(name == a.ring, "names ring %s (%d: %s)" % (a.ring, t["ring_id"],
                                                          name))
    if a.hang:
        hang_check(streams, t, rings)
    return 0 if all(results) else 1


def hang_check(streams, t, rings):
    """The hung job: SUBMIT and COMMIT before the trigger, no END."""
    jobs = {}
    for fmt, kept in streams.values():
        for r in kept:
            if r["name"] in JOB.values():
                jobs.setdefault((r["ctx"], r["seqno"]), {})[r["name"]] = r
    key = (t["ctx"], t["seqno"])
    if key == (0, 0):
        # Not named (PREEMPT_RT): the oldest unfinished job of its ring.
        # A job whose END was dropped, or overwritten on another CPU, has
        # ended all the same if its COMPLETE is kept or a later job of
        # its context ended: fences of a context signal in order.
        done = {}
        for (ctx, seqno), ev in jobs.items():
            if "END" in ev or "COMPLETE" in ev:
                done[ctx] = max(done.get(ctx, seqno), seqno)
        open_jobs = sorted((ev["COMMIT"]["ts"], k) for k, ev in jobs.items()
                           if "COMMIT" in ev and "END" not in ev and
                           "COMPLETE" not in ev and
                           done.get(k[0], -1) < k[1] and
                           ev["COMMIT"]["ring_id"] == t["ring_id"])
        print("# the trigger names no job: the oldest unfinished of ring %d" %
              t["ring_id"])
        key = open_jobs[0][1] if open_jobs else None
    ev = jobs.get(key, {})
    print("# hung job %s: %s" % (key, sorted(ev)))
    verdict("SUBMIT" in ev and "COMMIT" in ev and "END" not in ev and
            "COMPLETE" not in ev and
            ev["COMMIT"]["ts"] <= t["ts"] and ev["SUBMIT"]["ts"] <= t["ts"],
            "the hung job is in the snapshot: SUBMIT, COMMIT before the "
            "trigger, no END (drm_sched has no START: not observable)")
    others = sum(1 for k, e in jobs.items() if "END" in e)
    verdict(others > 0, "jobs finished before it are kept too (%d)" % others)


if __name__ == "__main__":
    sys.exit(main())
