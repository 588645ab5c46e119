#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of the Python binding (python/grtrace over libgrtrace.so.1).

Records against the golden vectors' dump text (gen_golden.py writes it
from the document, not from the library); jobs and report rows against
"grtrace report --format csv" of the same file; the error of a truncated
stream (its byte), memory input, the formats list against the tool's;
text rows (grtrace_next_rows()) against the records, and a bare format 2
stream told its CPU (grtrace_open_mem_as()) against its trace file.

    python_check.py GRTRACE GOLDEN_DIR CORPUS_DIR TMPDIR
"""
import csv
import ctypes
import importlib
import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from verdicts import Verdicts  # noqa: E402
import grtrace  # noqa: E402

JOB_TYPES = {"SUBMIT", "COMMIT", "START", "END", "COMPLETE", "CTX_SWITCH",
             "IRQ", "SYNC_WAIT_ENTER", "SYNC_WAIT_EXIT", "ERROR"}


def job_line(r):
    """A job event as gen_golden.py writes the dump text."""
    aux0 = r.aux0 - (1 << 64) if r.type_name == "ERROR" and r.aux0 >= 1 << 63 \
        else r.aux0
    text = "ctx=%d seqno=%d ring=%d engine=%s aux0=%d aux1=%d" % (
        r.ctx, r.seqno, r.ring, r.engine_name, aux0, r.aux1)
    if r.pid is not None:
        text += " pid=%d tid=%d" % (r.pid, r.tid)
    if r.flags & 1:
        text += " derived=1"
    return "%d %d %d %s %s" % (r.ts, r.cpu, r.gseq, r.type_name, text)


def main():
    tool, golden, corpus, tmp = sys.argv[1:5]
    v = Verdicts()
    result = v.result

    result("python: the library's interface version is 1.x",
           grtrace.lib_version()[0] == 1, repr(grtrace.lib_version()))

    for src, dump in (("emit-basic.bin", "emit-basic.dump"),
                      ("rings.bin", "rings.dump"),
                      ("emit-basic-v2.grf", "emit-basic-v2.dump")):
        want = [l for l in open(os.path.join(golden, dump)).read().splitlines()
                if l.split(" ")[3] in JOB_TYPES]
        try:
            with grtrace.Trace(os.path.join(golden, src)) as t:
                got = [job_line(r) for r in t.records() if r.is_job]
            why = ""
        except grtrace.Error as e:
            got, why = [], str(e)
        result("python: records of %s are the golden dump's job events" % src,
               got == want and len(want) >= 3,
               "%s\ngot:\n%s\nwant:\n%s" % (why, "\n".join(got), "\n".join(want)))

    # Memory input gives the same records as the file.
    path = os.path.join(golden, "emit-basic-v2.grf")
    data = open(path, "rb").read()
    with grtrace.Trace(path) as t:
        a = [(r.offset, r.type, r.ts, r.gseq) for r in t.records()]
    with grtrace.Trace(data=data) as t:
        b = [(r.offset, r.type, r.ts, r.gseq) for r in t.records()]
        t.rewind()
        c = [(r.offset, r.type, r.ts, r.gseq) for r in t.records()]
    result("python: a trace in memory reads as the file, and again after rewind",
           a == b == c and len(a) > 3, "%r %r" % (a[:3], b[:3]))

    # A truncated stream: the whole records, then an error naming its byte.
    bdata = open(os.path.join(golden, "emit-basic.bin"), "rb").read()
    offs = [int(x) for x in open(os.path.join(golden, "emit-basic.offsets"))]
    seen, err = [], None
    try:
        with grtrace.Trace(data=bdata[:offs[3] + 40]) as t:
            for r in t.records():
                seen.append(r.offset)
    except grtrace.Error as e:
        err = e
    result("python: a truncated stream: its whole records, then an Error at its byte",
           seen == offs[:3] and err is not None and
           err.status == grtrace.ERR_INPUT and err.offset == offs[3] and
           ("byte %d" % offs[3]) in err.msg,
           "%r %r" % (seen, err and (err.status, err.offset, err.msg)))
    try:
        grtrace.Trace(os.path.join(tmp, "nonexistent.dat"))
        e = None
    except grtrace.Error as x:
        e = x
    result("python: a missing file raises Error with errno ENOENT",
           e is not None and e.status == grtrace.ERR_IO and e.sys == 2 and
           "No such file" in e.msg, repr(e and e.msg))

    # Jobs and report rows against the tool's CSV of the same file.
    for name in ("report-basic.bin", "report-derived.bin", "report-gaps.bin"):
        path = os.path.join(corpus, name)
        p = subprocess.run([tool, "report", "-i", path, "--format", "csv"],
                           capture_output=True, text=True)
        want = list(csv.DictReader(io.StringIO(p.stdout)))
        with grtrace.Trace(path) as t:
            rows = t.report_rows()
            jobs = list(t.jobs())
        got = [{k: r[k] for k in ("ctx", "seqno", "ring", "t_total",
                                  "t_queue", "t_exec")} for r in want]
        mine = [{"ctx": str(j.ctx), "seqno": str(j.seqno),
                 "ring": str(j.ring_id),
                 "t_total": "" if j.metrics["t_total"] is None
                 else str(j.metrics["t_total"]),
                 "t_queue": "" if j.metrics["t_queue"] is None
                 else str(j.metrics["t_queue"]),
                 "t_exec": "" if j.metrics["t_exec"] is None
                 else str(j.metrics["t_exec"])} for j in jobs]
        result("python: %s: report_rows() is the tool's CSV, jobs() its jobs and metrics" % name,
               p.returncode == 0 and rows == want and mine == got and
               len(want) > 0,
               "tool exit %d\nrows %r\nwant %r\njobs %r\nwant %r" % (
                   p.returncode, rows[:2], want[:2], mine[:3], got[:3]))
    path = os.path.join(corpus, "report-basic.bin")
    p = subprocess.run([tool, "report", "-i", path, "--format", "csv",
                        "--per-ring"], capture_output=True, text=True)
    with grtrace.Trace(path) as t:
        rows = t.report_rows("--per-ring")
        text = t.report("text", "--per-ring", "--topn=2")
    result("python: report_rows('--per-ring') is the tool's per-ring table",
           rows == list(csv.DictReader(io.StringIO(p.stdout))) and rows and
           "top 2 jobs by t_total" in text, repr(rows[:1]))
    # A report reads the whole input; what comes after it starts again
    # from the first record, however the two are mixed.
    with grtrace.Trace(path) as t:
        first = [r.gseq for r in t.records()]
        t.rewind()
        half = [r.gseq for _, r in zip(range(3), t.records())]
        r1 = t.report("text", "--per-ring")
        after = [r.gseq for r in t.records()]
        r2 = t.report("text", "--per-ring")
        r3 = t.report("text", "--per-ring")
        jobs = sum(1 for _ in t.jobs())
        t.rewind()
        jobs0 = sum(1 for _ in t.jobs())
    result("python: records after a report start from the first; reports repeat",
           first and half == first[:3] and after == first and r1 == r2 == r3 and
           jobs == jobs0 and jobs > 0,
           "%d/%d records, jobs %d/%d" % (len(after), len(first), jobs, jobs0))
    try:
        with grtrace.Trace(path) as t:
            t.report("nosuch")
        e = None
    except grtrace.Error as x:
        e = x
    result("python: an unknown format raises Error naming it",
           e is not None and e.status == grtrace.ERR_INVAL and "nosuch" in e.msg,
           repr(e and e.msg))

    # Rows (grtrace_next_rows()): one per record, as the records say.
    import json
    path = os.path.join(golden, "rings.bin")
    with grtrace.Trace(path) as t:
        recs = [(r.offset, r.ts, r.gseq, r.type_name) for r in t.records()]
        t.rewind()
        js = [json.loads(l) for c in t.rows(grtrace.ROWS_JSON)
              for l in c.splitlines()]
        t.rewind()
        cs = list(csv.DictReader(io.StringIO(
            b"".join(t.rows(grtrace.ROWS_CSV)).decode())))
    result("python: rows() in JSON and CSV: a row per record, in the records' order",
           [(r["offset"], r["ts"], r["gseq"], r["type"]) for r in js] == recs and
           [(int(r["offset"]), int(r["ts"]), int(r["gseq"]), r["type"])
            for r in cs] == recs and len(recs) > 3 and
           js[1]["fields"]["rings"] == int(cs[1]["fields"].split()[1][6:]),
           "%r\n%r\n%r" % (recs[:2], js[:2], cs[:2]))
    seen, err = 0, None
    try:
        with grtrace.Trace(data=bdata[:offs[3] + 8]) as t:
            for c in t.rows(grtrace.ROWS_JSON):
                seen += len(c.splitlines())
    except grtrace.Error as x:
        err = x
    result("python: rows() of a truncated stream: its whole records, then Error naming the byte",
           seen == 3 and err is not None and err.offset == offs[3] and
           err.status == grtrace.ERR_INPUT, "%d rows, %r" % (seen, err and err.msg))
    # A bare format 2 stream, told its CPU (grtrace_open_mem_as()).
    v2 = open(os.path.join(golden, "emit-basic-v2.bin"), "rb").read()
    with grtrace.Trace(os.path.join(golden, "emit-basic-v2.grf")) as t:
        want = [(r.type_name, r.ts, r.cseq, r.ctx) for r in t.records()]
    with grtrace.Trace(data=v2, cpu=3) as t:
        got = [(r.type_name, r.ts, r.cseq, r.ctx) for r in t.records()]
        cpus = set()
        t.rewind()
        for r in t.records():
            cpus.add(r.cpu)
    with grtrace.Trace(data=v2, stream_format=1) as t:
        try:
            list(t.records())
            e = None
        except grtrace.Error as x:
            e = x
    result("python: a bare format 2 stream told its CPU reads as its trace file, on that CPU; told format 1, an error",
           got == want and cpus == {3} and len(got) > 3 and e is not None and
           e.status == grtrace.ERR_INPUT, "%r\n%r\n%r %r" % (got[:3], want[:3], cpus, e))

    p = subprocess.run([tool, "--list-formats"], capture_output=True, text=True)
    want = [tuple(l.split("\t", 1)) for l in p.stdout.splitlines()]
    result("python: formats() is the tool's --list-formats",
           grtrace.formats() == want and len(want) >= 3, repr(grtrace.formats()))
    typed_info(v, golden, corpus, tool)
    safety(v, golden, corpus)
    timeline_safety(v, os.path.join(corpus, "..", "tracedat"), tmp)
    batches(v, golden, corpus)
    return v.failed


def typed_info(v, golden, corpus, tool):
    """Record.info (grtrace_info_*()) against the golden dump text and the
    tool's dump; a smaller struct gets only what it has room for."""
    import ctypes
    result = v.result
    path = os.path.join(golden, "rings.bin")
    want = []
    for line in open(os.path.join(golden, "rings.dump")):
        f = line.split()
        if line.startswith("    ring "):
            want.append("ring " + " ".join(f[1:]))
        elif f[3] == "RING":
            want.append("ring " + " ".join(f[4:]))
        elif f[3] == "STREAM_INFO":
            kv = dict(x.split("=", 1) for x in f[4:])
            want.append("si version=%s cpus=%s session=%s features=%s magic=%s"
                        % (kv["version"], kv["cpus"], kv["session"],
                           kv["features"], kv["magic"]))
    got = []
    with grtrace.Trace(path) as t:
        for r in t.records():
            if r.type_name == "STREAM_INFO":
                i = r.info
                got.append("si version=%d cpus=%d session=%d features=%#x magic=%s"
                           % (i["version"], i["nr_cpus"], i["session_id"],
                              i["features"], "ok" if i["magic"] == 0x52545247
                              else "bad"))
            elif r.type_name in ("METADATA", "RING"):
                for g in r.info["rings"]:
                    got.append("ring id=%d engine=%s instance=%d driver=%s "
                               "device=%s name=%s" % (
                                   g["ring_id"], g["engine_name"],
                                   g["instance"], g["driver"], g["device"],
                                   g["name"]))
            elif r.info is not None:
                got.append("unexpected info %r" % r.info)
    result("python: Record.info of STREAM_INFO, METADATA and RING is the golden dump's",
           got == want and len(want) == 4, "got %r\nwant %r" % (got, want))

    snap = os.path.join(corpus, "recorder-snapshot-v2.grf")
    p = subprocess.run([tool, "dump", "-i", snap], capture_output=True,
                       text=True)
    want = []
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) > 3 and f[3] in ("TRIGGER", "RECORDER"):
            kv = dict(x.split("=", 1) for x in f[4:])
            if f[3] == "TRIGGER":
                want.append("T ring=%s ctx=%s seqno=%s error=%s frozen=%s later=%s cpu=%s"
                            % (kv["ring"], kv["ctx"], kv["seqno"], kv["error"],
                               kv["frozen_ts"], kv["later_triggers"],
                               kv["trigger_cpu"]))
            else:
                want.append("R cpu=%s emitted=%s kept=%s overwritten=%s dropped=%s size=%s"
                            % (kv["of_cpu"], kv["emitted"], kv["kept"],
                               kv["overwritten"], kv["dropped"],
                               kv["buffer_size"]))
    got = []
    with grtrace.Trace(snap) as t:
        for r in t.records():
            i = r.info
            if r.type_name == "TRIGGER":
                got.append("T ring=%s ctx=%d seqno=%d error=%d frozen=%d later=%d cpu=%d"
                           % (i["ring_id"], i["ctx"], i["seqno"], i["error"],
                              i["frozen_ts"], i["later_triggers"], i["cpu"]))
            elif r.type_name == "RECORDER":
                got.append("R cpu=%d emitted=%d kept=%d overwritten=%d dropped=%d size=%d"
                           % (i["cpu"], i["emitted"], i["kept"],
                              i["overwritten"], i["dropped"],
                              i["buffer_size"]))
    result("python: Record.info of TRIGGER and RECORDER (the losses) is grtrace dump's",
           p.returncode == 0 and got == want and len(want) == 3,
           "got %r\nwant %r" % (got, want))

    # The report's options as a struct (grtrace_report_with()).
    cpath = os.path.join(corpus, "report-basic.bin")
    with grtrace.Trace(cpath) as t:
        a = t.report("text", "--per-ring", "--topn=2", "--hist=lat")
        b = t.report("text", per_ring=True, topn=2, hist="lat")
        c = t.report("text")
        rows = t.report_rows(per_ctx=True)
        rows2 = t.report_rows("--per-ctx")
        opts = grtrace._ReportOpts()
        opts.size, opts.flags, opts.topn = 8, 1, 2    # below GRTRACE_1's
        err = grtrace._Error()
        buf, size = ctypes.c_void_p(), ctypes.c_size_t()
        f = grtrace._libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
        n = grtrace._lib.grtrace_report_with(t._h, b"text", ctypes.byref(opts), f,
                                    ctypes.byref(err))
        grtrace._libc.fclose(f)
        small = ctypes.string_at(buf, size.value).decode()
        grtrace._libc.free(buf)
    want_msg = ("struct grtrace_report_opts: size 8 is below its GRTRACE_1 "
                "minimum 24 (set .size = sizeof(struct grtrace_report_opts))")
    result("libgrtrace: grtrace_report_with()'s options struct is the strings' report; a struct below GRTRACE_1's size is refused",
           a == b and a != c and "top 2 jobs" in a and rows == rows2 and
           rows and n == -1 and err.status == grtrace.ERR_INVAL and
           err.msg.decode() == want_msg and small == "",
           "%d %r %r" % (n, err.msg, small[:200]))

    # The size field: a struct below GRTRACE_1's size is refused, untouched;
    # a bigger one (a newer header's) gets what the library knows.
    lib = grtrace._lib
    with grtrace.Trace(path) as t:
        h = lib.grtrace_dup(t._h, None)
        rec, err = grtrace._Record(), grtrace._Error()
        lib.grtrace_next_record(h, ctypes.byref(rec), ctypes.byref(err))
        small = grtrace._InfoStream()
        small.size = 12            # size, magic, version
        n1 = lib.grtrace_info_stream(h, ctypes.byref(small), ctypes.byref(err))
        msg1 = err.msg.decode()
        big = (ctypes.c_uint8 * (ctypes.sizeof(grtrace._InfoStream) + 16))()
        ctypes.memset(big, 0xa5, len(big))
        full = grtrace._InfoStream.from_buffer(big)
        full.size = len(big)
        n2 = lib.grtrace_info_stream(h, ctypes.byref(full), ctypes.byref(err))
        tail = bytes(big[ctypes.sizeof(grtrace._InfoStream):])
        ring = grtrace._InfoRing()
        ring.size = ctypes.sizeof(ring)
        n3 = lib.grtrace_info_ring(h, 0, ctypes.byref(ring), ctypes.byref(err))
        lib.grtrace_close(h)
    result("libgrtrace: grtrace_info_*() refuse a size below GRTRACE_1's, fill a bigger one up to theirs, set size, and say 0 for another type",
           n1 == -1 and small.size == 12 and small.version == 0 and
           msg1.startswith("struct grtrace_info_stream: size 12 is below") and
           n2 == 1 and full.size == ctypes.sizeof(grtrace._InfoStream) and
           full.session_id == 3 and tail == b"\xa5" * 16 and n3 == 0,
           "%d %d %r %d %d %r %d" % (n1, small.size, msg1, n2, full.size,
                                     tail, n3))


def one_by_one(t):
    """Every record through grtrace_next_record(), one call each, as
    tuples of their fields; then the error, if any."""
    err = grtrace._Error()
    rec = grtrace._Record()
    h = grtrace._lib.grtrace_dup(t._h, ctypes.byref(err))
    out = []
    try:
        while True:
            n = grtrace._lib.grtrace_next_record(h, ctypes.byref(rec),
                                                 ctypes.byref(err))
            if n <= 0:
                return out, (err.msg.decode("utf-8", "replace") if n < 0
                             else None)
            out.append(tuple(getattr(rec, f) for f, _ in rec._fields_))
    finally:
        grtrace._lib.grtrace_close(h)


def batches(v, golden, corpus):
    """raw_records() reads through grtrace_next_records(), a batch per
    call: the same records, fields and error as one call per record, on
    every golden vector and corpus file; a batch ends at a control record
    (records() gives its .info), and a bad count is refused."""
    result = v.result
    lib = grtrace._lib
    paths = sorted(os.path.join(d, f) for d in (golden, corpus)
                   for f in os.listdir(d)
                   if f.endswith((".bin", ".grf", ".dat")))
    bad, nrec, nerr = [], 0, 0
    for path in paths:
        try:
            t = grtrace.Trace(path)
        except grtrace.Error:
            continue
        with t:
            want, want_err = one_by_one(t)
            got, got_err = [], None
            try:
                for r in t.raw_records():
                    got.append(tuple(getattr(r, f) for f, _ in r._fields_))
            except grtrace.Error as e:
                got_err = e.msg
        nrec += len(got)
        nerr += want_err is not None
        if got != want or got_err != want_err:
            bad.append((os.path.basename(path), len(got), len(want),
                        got_err, want_err))
    result("python: raw_records() in batches (grtrace_next_records()) gives every record and error of grtrace_next_record()",
           hasattr(lib, "grtrace_next_records") and not bad and nrec > 1000
           and nerr > 0, "%r (%d records, %d errors)" % (bad[:3], nrec, nerr))

    # The batch stops at each control record: its .info is its own.
    path = os.path.join(golden, "rings.bin")
    with grtrace.Trace(path) as t:
        err = grtrace._Error()
        recs = (grtrace._Record * 64)()
        recs[0].size = ctypes.sizeof(grtrace._Record)
        c = t._cursor()
        sizes, types = [], []
        while True:
            n = lib.grtrace_next_records(c.h, recs, 64, ctypes.byref(err))
            if n <= 0:
                break
            sizes.append(n)
            types.append([recs[i].type for i in range(n)])
        c.close()
        infos = [(r.type, r.info) for r in t.records() if not r.is_job]
    ends = all(all(ty < 0x100 for ty in b[:-1]) for b in types)
    result("python: a batch of grtrace_next_records() ends after each control record, whose info records() gives",
           len(types) > 1 and ends and any(ty >= 0x100 for b in types
                                           for ty in b) and
           all(i is not None for ty, i in infos if ty in (0x100, 0x101, 0x102)),
           "%r %r" % (sizes, infos[:2]))

    with grtrace.Trace(path) as t:
        err = grtrace._Error()
        recs = (grtrace._Record * 1)()
        recs[0].size = ctypes.sizeof(grtrace._Record)
        c = t._cursor()
        n = lib.grtrace_next_records(c.h, recs, 0, ctypes.byref(err))
        c.close()
    result("python: grtrace_next_records() with room for 0 records: -1, EINVAL",
           n == -1 and err.status == grtrace.ERR_INVAL and "room" in
           err.msg.decode(), "%d %r" % (n, err.msg))


def t_report_strings(path, *args):
    with grtrace.Trace(path) as t:
        return t.report("text", *args)


def closed_raises(fn):
    """ValueError from @fn() (or from the first step of what it returns)."""
    try:
        it = fn()
        if hasattr(it, "__next__"):
            next(it)
    except ValueError:
        return True
    except Exception as e:     # noqa: BLE001 - any other outcome is a failure
        return repr(e)
    return False


def tracedat_cmd_at(src, dst, offset):
    """@src (a trace.dat) with sys_enter_ioctl's cmd field said to be at
    @offset (text), the file's length kept: its print format shortened by
    what the offset's text grew."""
    d = open(src, "rb").read()
    i = d.index(b"name: sys_enter_ioctl")
    old = b"field:unsigned int cmd;\toffset:24;"
    new = b"field:unsigned int cmd;\toffset:" + offset.encode() + b";"
    fmt = b'"fd: 0x%08lx, cmd: 0x%08lx, arg: 0x%08lx"'
    assert d.index(old, i) < d.index(fmt, i)
    grow = len(new) - len(old)
    short = fmt.replace(b"cmd: 0x%08lx, arg: 0x%08lx",
                        b"cmd: %lx, arg: %lx") if grow == 8 else fmt
    assert len(short) == len(fmt) - grow
    open(dst, "wb").write(d[:i] + d[i:].replace(old, new, 1).replace(fmt, short, 1))


def timeline_safety(v, tracedat, tmp):
    """grtrace.timeline's Ioctls: arrays that outlive it, a closed one
    refusing, format() with too few texts; a trace.dat whose cmd field
    lies outside any record refused (it was read 2 GiB before one)."""
    import gc
    result = v.result
    tl = importlib.import_module("grtrace.timeline")
    if not tl.TRACEDAT:
        result("python: timeline.Ioctls after close, and a trace.dat with its cmd field out of bounds",
               False, tl.TRACEDAT_MISSING)
        return
    path = os.path.join(tracedat, "ioctl-v6.dat")
    io = tl.tracedat_ioctls(path)
    want = io.columns()
    enter, cmd = io.enter, io.cmd
    io.close()
    del io
    gc.collect()
    # Freed memory written over, as a long-running script would.
    junk = [bytes(64) * 64 for _ in range(2000)]
    got = (list(enter), list(cmd))
    del junk
    io = tl.tracedat_ioctls(path)
    n, kinds = io.n, len(io.kinds)
    few = closed_raises(lambda: io.format(["x"] * (kinds - 1)))
    io.close()
    bad = {k: closed_raises(f) for k, f in
           {"find": lambda: io.find(1, 1),
            "format": lambda: io.format(["x"] * kinds)}.items()}
    bad = {k: r for k, r in bad.items() if r is not True}
    result("python: timeline.Ioctls: its arrays outlive close() and the object; find() and format() of a closed one, and format() with too few texts, raise ValueError",
           n > 0 and kinds > 1 and got == (want[0], want[3]) and
           few is True and not bad,
           "%d %d %r %r %r" % (n, kinds, got[0][:3], want[0][:3], (few, bad)))

    # The offset is the file's text; libtraceevent reads it into an int:
    # 0x80000000 became -2^31, and the record was read 2 GiB before it.
    bad_path = os.path.join(tmp, "cmd-at-2g.dat")
    tracedat_cmd_at(path, bad_path, "0x80000000")
    try:
        tl.tracedat_ioctls(bad_path).close()
        got = None
    except grtrace.Error as e:
        got = (e.status, str(e))
    result("python: a trace.dat placing sys_enter_ioctl's cmd 2 GiB before its records is refused (GRTRACE_ERR_INPUT, one line), not read",
           got == (grtrace.ERR_INPUT, "a trace.dat, but its sys_enter_ioctl format puts cmd at offset -2147483648, size 8: no number of a record"),
           repr(got))

def safety(v, golden, corpus):
    """A closed Trace, a resumed iterator, two iterators, the errors, the
    package and the NumPy export."""
    import errno
    import ctypes
    result = v.result
    path = os.path.join(golden, "emit-basic-v2.grf")
    t = grtrace.Trace(path)
    t.close()
    t.close()     # again: nothing, as a file
    calls = {"stream_format": lambda: t.stream_format,
             "file_version": lambda: t.file_version,
             "rewind": t.rewind, "records": t.records,
             "raw_records": t.raw_records, "rows": t.rows, "jobs": t.jobs,
             "jobs_array": t.jobs_array, "report": t.report,
             "report_rows": t.report_rows, "__enter__": t.__enter__}
    bad = {k: closed_raises(f) for k, f in calls.items()}
    bad = {k: r for k, r in bad.items() if r is not True}
    result("python: every method of a closed Trace raises ValueError",
           not bad and t.closed, repr(bad))

    # Iterators resumed after close(): ValueError, not the freed handle.
    bad = {}
    for name in ("records", "raw_records", "rows", "jobs"):
        t = grtrace.Trace(path)
        it = getattr(t, name)()
        first = next(it, None)
        t.close()
        r = closed_raises(lambda: it)
        if first is None or r is not True:
            bad[name] = (first, r)
    # ... and a with block left with the iterator still held.
    with grtrace.Trace(path) as t:
        it = t.records()
        next(it)
    r = closed_raises(lambda: it)
    if r is not True:
        bad["with"] = r
    result("python: an iterator resumed after its Trace is closed raises ValueError",
           not bad, repr(bad))

    # Two iterators of one Trace: each reads all of it, interleaved.
    with grtrace.Trace(path) as t:
        want = [(r.offset, r.gseq) for r in t.records()]
        a, b, jobs = t.records(), t.records(), t.jobs()
        ga, gb, nj = [], [], 0
        for ra in a:
            ga.append((ra.offset, ra.gseq))
            rb = next(b, None)
            if rb is not None:
                gb.append((rb.offset, rb.gseq))
            if next(jobs, None) is not None:
                nj += 1
        gb += [(r.offset, r.gseq) for r in b]
        nj += sum(1 for _ in jobs)
        text = t.report("text")
        alljobs = len(list(t.jobs()))
    result("python: two iterators and a jobs() of one Trace are independent",
           ga == gb == want and len(want) > 3 and nj == alljobs > 0 and
           "jobs" in text, "%r\n%r\n%r %d %d" % (ga[:3], gb[:3], want[:3], nj,
                                                alljobs))

    # Errors: grtrace.Error, an OSError with an errno.
    try:
        grtrace.Trace(os.path.join(corpus, "no-such-file"))
        e = None
    except OSError as x:
        e = x
    bdata = open(os.path.join(golden, "emit-basic.bin"), "rb").read()
    try:
        with grtrace.Trace(data=bdata[:-5]) as t:
            list(t.records())
        e2 = None
    except OSError as x:
        e2 = x
    result("python: errors are grtrace.Error, an OSError with errno (ENOENT; EBADMSG for a corrupt input), str() its message",
           isinstance(e, grtrace.Error) and e.errno == errno.ENOENT and
           str(e) == e.msg and "No such file" in str(e) and
           isinstance(e2, grtrace.Error) and e2.errno == errno.EBADMSG and
           e2.status == grtrace.ERR_INPUT and str(e2) == e2.msg,
           "%r %r" % (e, e2))

    # The library refuses a NULL handle instead of following it.
    lib = grtrace._lib
    err = grtrace._Error()
    rec = grtrace._Record()
    n = lib.grtrace_next_record(None, ctypes.byref(rec), ctypes.byref(err))
    # The checker of what "record" writes passes what a reader of the
    # frame refuses no more: a record of another CPU, a STREAM_INFO that
    # is not grtrace's (a file written from them was unreadable there).
    lib.grtrace_checker_new.restype = ctypes.c_void_p
    lib.grtrace_checker_new.argtypes = [ctypes.c_uint, ctypes.c_uint,
                                        ctypes.c_void_p]
    lib.grtrace_check_record.restype = ctypes.c_long
    lib.grtrace_check_record.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                         ctypes.c_size_t, ctypes.c_void_p,
                                         ctypes.c_void_p]
    lib.grtrace_checker_free.argtypes = [ctypes.c_void_p]
    v1 = open(os.path.join(golden, "emit-basic.bin"), "rb").read()
    bad_si = v1[:32] + (0x52545258).to_bytes(4, "little") + v1[36:64]
    checks = []
    for cpu, data in ((0, v1[:64]), (3, v1[:64]), (0, bad_si)):
        cerr, rec = grtrace._Error(), grtrace._Record()
        c = lib.grtrace_checker_new(1, cpu, ctypes.byref(cerr))
        checks.append((lib.grtrace_check_record(c, data, len(data),
                                                ctypes.byref(rec),
                                                ctypes.byref(cerr)),
                       cerr.status, cerr.msg.decode()))
        lib.grtrace_checker_free(c)
    result("python: grtrace_check_record() refuses what the frame's reader refuses: a record of another CPU, a STREAM_INFO of another magic",
           checks == [(64, 0, ""),
                      (-1, grtrace.ERR_INPUT, "a record of CPU 0 in the channel of CPU 3"),
                      (-1, grtrace.ERR_INPUT, "not a grtrace stream: STREAM_INFO has magic 0x52545258")],
           repr(checks))

    # One format 2 channel without its STREAM_INFO, opened as format 2: the
    # handle says format 2, and the report judges its losses by cseq (it
    # was told format 1: "8 records arrived after a higher gseq").
    import struct
    v2 = open(os.path.join(golden, "emit-basic-v2.bin"), "rb").read()
    v2 = v2[struct.unpack_from("<H", v2, 2)[0]:]
    with grtrace.Trace(data=v2, stream_format=2, cpu=0) as t:
        fmt, text = t.stream_format, t.report("text").splitlines()
    lines = [x for x in text if x.startswith(("lost:", "order:"))]
    result("python: a format 2 channel opened as format 2 is format 2 to its handle and its report (losses by cseq, no false order)",
           fmt == 2 and lines == ["lost:     none (no CPU's cseq has a gap)"],
           "%d %r" % (fmt, lines))

    # grtrace_diff() followed both (and a NULL stream) into a crash.
    derr = [grtrace._Error() for _ in range(3)]
    with grtrace.Trace(path) as t:
        d = (lib.grtrace_diff(None, t._h, b"text", None, None,
                              ctypes.byref(derr[0])),
             lib.grtrace_diff(t._h, None, b"text", None, None,
                              ctypes.byref(derr[1])),
             lib.grtrace_diff(t._h, t._h, b"text", None, None,
                              ctypes.byref(derr[2])))
    result("python: libgrtrace refuses a NULL handle (GRTRACE_ERR_INVAL), grtrace_diff() a NULL handle or stream too",
           n == -1 and err.status == grtrace.ERR_INVAL and
           lib.grtrace_rewind(None, ctypes.byref(err)) == -1 and
           lib.grtrace_stream_format(None) == 0 and d == (-1, -1, -1) and
           all(e.status == grtrace.ERR_INVAL for e in derr),
           "%d %r %r %r" % (n, err.msg, d, [e.msg for e in derr]))

    # One package: grtrace and grtrace.timeline, no other top-level module.
    timeline = importlib.import_module("grtrace.timeline")
    pydir = os.path.join(HERE, "..", "python")
    result("python: one package grtrace (grtrace.timeline inside), nothing else at the top",
           grtrace.__file__.endswith(os.path.join("grtrace", "__init__.py")) and
           hasattr(timeline, "gpu_events") and
           sorted(os.listdir(pydir)) == ["grtrace"], repr(os.listdir(pydir)))

    # The NumPy export of the job table, against jobs().
    try:
        import numpy
    except ImportError as x:
        result("python: jobs_array() (python3-numpy installed)", False, str(x))
        return
    cpath = os.path.join(corpus, "report-basic.bin")
    with grtrace.Trace(cpath) as t:
        jobs = list(t.jobs())
        arr = t.jobs_array()
    want = [(j.ctx, j.seqno, j.ring_id, j.engine, j.metrics["t_total"] or 0,
             j.ts.get("submit", 0), j.qsize, j.pid or 0) for j in jobs]
    got = [(int(r["ctx"]), int(r["seqno"]), int(r["ring_id"]),
            int(r["engine"]), int(r["t_total"]), int(r["ts_submit"]),
            int(r["qsize"]), int(r["pid"])) for r in arr]
    masks = [(bool(r["have_metric"] & (1 << grtrace.METRICS.index("t_total"))),
              bool(r["has_task"])) for r in arr]
    wmasks = [(j.metrics["t_total"] is not None, j.pid is not None)
              for j in jobs]
    result("python: jobs_array() is jobs() as a NumPy structured array",
           isinstance(arr, numpy.ndarray) and got == want and
           masks == wmasks and len(want) > 3 and
           set(grtrace.METRICS) <= set(arr.dtype.names),
           "%r\n%r" % (got[:3], want[:3]))


if __name__ == "__main__":
    sys.exit(main())
