#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""recorder_check.py - check a flight recorder snapshot, read raw.

usage: recorder_check.py DIR [--cause C] [--ring NAME] [--hang] [--later N]
                         [--format F] [--error E] [--job CTX:SEQNO]
                         [--wrapped] [--session S]

DIR holds info (the recorder's info file) and snapshot<cpu> (each CPU's
snapshot stream, as read from debugfs).  Prints "PASS what" / "FAIL what"
lines for tap_lib.sh's check(), "# ..." comments.  Its own stream reader,
independent of the CLI's: struct layouts of include/uapi/linux/grtrace.h.
"""

import argparse
import glob
import os
import struct
import sys

V1_CTL = {0x100: "STREAM_INFO", 0x101: "METADATA", 0x102: "RING",
          0x103: "JOB_SUMMARY", 0x104: "TRIGGER", 0x105: "RECORDER"}
V2_CTL = {t - 0x100 + 0x80: n for t, n in V1_CTL.items()}
JOB = {1: "SUBMIT", 2: "COMMIT", 3: "START", 4: "END", 5: "COMPLETE",
       6: "CTX_SWITCH", 7: "IRQ", 8: "SYNC_WAIT_ENTER", 9: "SYNC_WAIT_EXIT",
       10: "ERROR"}
CAUSES = {"manual": 1, "timeout": 2, "error": 3}

results = []


def verdict(ok, what):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + what)


def parse(data):
    """Records of one stream: dicts with name, ts, cseq and fields."""
    recs, off, fmt = [], 0, None
    while off < len(data):
        if fmt is None:
            # The first record is STREAM_INFO: v1 type 0x100, v2 0x80.
            fmt = 2 if data[off] == 0x80 else 1
        if fmt == 2:
            typ, flags, size, cseq, ts = struct.unpack_from("<BBHIQ", data, off)
            hsz = 16
        else:
            typ, size, _cpu, flags, ts, _gseq, cseq = struct.unpack_from(
                "<HHHHQQQ", data, off)
            hsz = 32
        if size < hsz or off + size > len(data):
            raise ValueError("bad record size %d at offset %d" % (size, off))
        r = {"ts": ts, "cseq": cseq, "size": size}
        body = data[off + hsz:off + size]
        ctl = (V2_CTL if fmt == 2 else V1_CTL).get(typ)
        if ctl:
            r["name"] = ctl
            if ctl == "STREAM_INFO":
                (r["magic"], r["version"], _h, _c, _n, _f,
                 r["session"]) = struct.unpack_from("<IHHIIQQ", body)
            elif ctl == "METADATA":
                n, rsz = struct.unpack_from("<IH", body)
                r["rings"] = [ring_desc(body, 72 + i * rsz) for i in range(n)]
            elif ctl == "RING":
                r["rings"] = [ring_desc(body, 0)]
            elif ctl == "TRIGGER":
                (r["cause"], r["ring_id"], r["ctx"], r["seqno"], r["error"],
                 r["frozen_ts"], r["later"], r["cpu"]) = struct.unpack_from(
                     "<IIQQqQQI", body)
            elif ctl == "RECORDER":
                (r["cpu"], _res, r["first_ts"], r["last_ts"], r["emitted"],
                 r["kept"], r["overwritten"], r["dropped"],
                 r["buffer_size"]) = struct.unpack_from("<IIQQQQQQQ", body)
        elif typ in JOB:
            r["name"] = JOB[typ]
            if fmt == 2 and flags & 0x10:
                r["ctx"], r["seqno"], r["ring_id"] = struct.unpack_from(
                    "<QQH", data, off + 16)
            elif fmt == 2:
                r["ctx"], r["seqno"], r["ring_id"] = struct.unpack_from(
                    "<IIH", data, off + 16)
            else:
                r["ctx"], r["seqno"], r["ring_id"] = struct.unpack_from(
                    "<QQI", data, off + 32)
        else:
            r["name"] = "type%#x" % typ
        recs.append(r)
        off += size
    return fmt, recs


def ring_desc(body, off):
    rid, = struct.unpack_from("<I", body, off)
    name = body[off + 56:off + 80].split(b"\0")[0].decode()
    return rid, name


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
    print("# TRIGGER cause=%d ring=%d ctx=%d seqno=%d error=%d freeze_ns=%d "
          "later=%d cpu=%d" % (t["cause"], t["ring_id"], t["ctx"], t["seqno"],
                               t["error"], freeze, t["later"], t["cpu"]))
    verdict(int(info["freeze_ns"]) == freeze and freeze > 0,
            "freeze_ns %d, as info says (its bound: recorder_test.sh)" % freeze)
    if a.cause:
        verdict(t["cause"] == CAUSES[a.cause] and info["cause"] == a.cause,
                "cause %s (%d, info %s)" % (a.cause, t["cause"], info["cause"]))
    if a.later is not None:
        verdict(t["later"] == a.later and int(info["later_triggers"]) == a.later,
                "later triggers %d (%d, info %s)" % (a.later, t["later"],
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
        open_jobs = sorted((ev["COMMIT"]["ts"], k) for k, ev in jobs.items()
                           if "COMMIT" in ev and "END" not in ev and
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
