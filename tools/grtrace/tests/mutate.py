#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seeded mutations of valid grtrace traces, fed to "grtrace report" and
"grtrace dump".

Random bytes stop at the first header.  These mutants start from the valid
traces the tests already have (the golden vectors, report_golden.py's
scenarios, gen-trace output, tests/corpus) and change them the way the
format can go wrong: the records are walked by their size (layout in
include/uapi/linux/grtrace.h), then a header field gets bits flipped, a
size becomes 0, too small, too large or unaligned, records are duplicated,
dropped, swapped or spliced in from another trace, a type becomes unknown,
gseq, cseq and timestamps move, body fields take odd values, the file is
cut inside a record.  Most mutants so parse far before they break, if at
all.  Each mutant is a function of its source and its seed only
(random.Random), so a failure replays with one command.

Every mutant is run through

    grtrace report -i M --per-ring --per-ctx --hist lat --topn 2
    grtrace report -i M --format json --per-ring --per-ctx --hist lat --topn 2
    grtrace report -i M --format csv --max-open 4
    grtrace dump -i M

and each must exit 0 or 1 (no crash, no sanitizer report), within a time
limit, with at most one line on standard error; the JSON must parse and
every CSV line must have the header's fields.

Usage (paths as "make check" gives them, from tools/grtrace):

    mutate.py [OPTIONS] run                 every source, seeds FUZZ_SEED ..
                                            FUZZ_SEED + FUZZ_SEEDS - 1 (1, 10)
                                            from the environment; prints
                                            "ok"/"not ok" per source and "#"
                                            comments, exits 1 on a failure
    mutate.py [OPTIONS] replay SOURCE SEED [OUT]
                                            one mutant: written to OUT
                                            (mutant.bin), its mutations and
                                            every run's result printed
    mutate.py [OPTIONS] list                the sources

Options: --grtrace PATH (./grtrace), --golden DIR, --gen-trace PATH,
--corpus DIR (the golden vectors, the trace generator, tests/corpus; a
source kind whose option is missing is left out).
"""

import csv
import hashlib
import io
import json
import os
import random
import shlex
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True      # no __pycache__ in the source tree
import report_golden  # noqa: E402  (the scenarios, built by hand)
# The layouts: the golden vectors' generator, written from the document.
from gen_golden import (HDR_FMT, HDR_FIELDS as FIELDS, JOB_FIELDS,  # noqa: E402
                        STREAM_INFO_FIELDS, METADATA_FIELDS, RING_FIELDS,
                        TYPE_BY_NAME, records1)

HDR = struct.Struct(HDR_FMT)        # type size cpu flags ts gseq cseq
JOB_TYPES = range(1, 11)
STREAM_INFO, METADATA, RING = (TYPE_BY_NAME[n] for n in
                               ("STREAM_INFO", "METADATA", "RING"))


def at(table, *names):
    """(offset, bytes, name) of fields of a record's own struct."""
    return [table[n] + (n,) for n in names]
U64 = (1 << 64) - 1
TIMEOUT = 10                        # seconds a run may take, sanitizers on
MAX_FAILS = 3                       # failing seeds shown for a source
GEN_ARGS = ["-c", "3", "-r", "5", "-s", "7", "1"]
GEN_PER_CPU = 120                   # records kept of each CPU's first chunk

RUNS = [
    ("report", ["--per-ring", "--per-ctx", "--hist", "lat", "--topn", "2"]),
    ("report json", ["--format", "json", "--per-ring", "--per-ctx", "--hist",
                     "lat", "--topn", "2"]),
    ("report csv", ["--format", "csv", "--max-open", "4"]),
    ("dump", None),
]


# ---- the records of a trace ---------------------------------------------

def split(data):
    """The records of a trace, by their size fields, up to the first that
    is not whole (a corpus file may be cut)."""
    return [bytearray(r) for _, r in records1(data)]


def get(rec, field):
    off, n = FIELDS[field]
    return int.from_bytes(rec[off:off + n], "little")


def put(rec, off, n, value):
    rec[off:off + n] = (value & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def put_field(rec, field, value):
    off, n = FIELDS[field]
    put(rec, off, n, value)


# ---- the sources ------------------------------------------------------------

def gen_trace_source(gen):
    """A small 3-CPU trace from gen-trace: the first records of each CPU's
    first chunk (the records left out show as lost)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "gen.dat")
        subprocess.run([gen] + GEN_ARGS + [path], check=True,
                       stdout=subprocess.DEVNULL)
        with open(path, "rb") as f:
            recs = split(f.read())
    kept, seen = [], {}
    for r in recs:
        cpu = get(r, "cpu")
        if seen.get(cpu, 0) < GEN_PER_CPU:
            seen[cpu] = seen.get(cpu, 0) + 1
            kept.append(r)
    return b"".join(kept)


def sources(opts):
    """(name, bytes) of every valid trace, without duplicates."""
    out = []
    if opts["golden"]:
        for f in sorted(os.listdir(opts["golden"])):
            if f.endswith(".bin"):
                out.append(("golden:" + f, opts["golden"]))
    for name in report_golden.SCENARIOS:
        if name != "sketch":    # 1.4 MB: the others cover its paths
            out.append(("report_golden:" + name, None))
    if opts["gen_trace"]:
        out.append(("gen-trace", None))
    if opts["corpus"]:
        for f in sorted(os.listdir(opts["corpus"])):
            if f.endswith(".bin"):
                out.append(("corpus:" + f, opts["corpus"]))
    seen, result = set(), []
    for name, _ in out:
        data = b"".join(split(load(opts, name)))
        digest = hashlib.sha256(data).digest()
        if data and digest not in seen:
            seen.add(digest)
            result.append((name, data))
    return result


def load(opts, name):
    kind, _, arg = name.partition(":")
    if kind == "golden":
        with open(os.path.join(opts["golden"], arg), "rb") as f:
            return f.read()
    if kind == "corpus":
        with open(os.path.join(opts["corpus"], arg), "rb") as f:
            return f.read()
    if kind == "report_golden":
        t = report_golden.SCENARIOS[arg]()
        return t if isinstance(t, bytes) else t.chunks()
    if kind == "gen-trace":
        return gen_trace_source(opts["gen_trace"])
    raise ValueError("unknown source %r" % name)


# ---- mutations ----------------------------------------------------------------
#
# Each takes the random generator, the records (a list of bytearrays it may
# change) and the other sources' records, and says what it did.

def pick(rng, recs):
    i = rng.randrange(len(recs))
    return i, recs[i]


def m_flip(rng, recs, others):
    i, r = pick(rng, recs)
    field = rng.choice(list(FIELDS))
    off, n = FIELDS[field]
    bits = rng.sample(range(8 * n), rng.randint(1, 3))
    put(r, off, n, get(r, field) ^ sum(1 << b for b in bits))
    return "flip bits %s of record %d's %s" % (bits, i, field)


def m_size(rng, recs, others):
    i, r = pick(rng, recs)
    size = len(r)
    new = rng.choice([0, 8, 24, 31, 32, 33, size - 8, size - 1, size + 4,
                      size + 8, size * 2, 8192, 8200, 65528, 65535,
                      rng.randrange(65536)]) & 0xffff
    put_field(r, "size", new)
    return "size of record %d %d -> %d" % (i, size, new)


def m_dup(rng, recs, others):
    i, r = pick(rng, recs)
    at = i + 1 if rng.random() < 0.5 else rng.randrange(len(recs) + 1)
    recs.insert(at, bytearray(r))
    return "copy of record %d at %d" % (i, at)


def m_drop(rng, recs, others):
    if len(recs) < 2:
        return m_dup(rng, recs, others)
    i, _ = pick(rng, recs)
    del recs[i]
    return "drop record %d" % i


def m_swap(rng, recs, others):
    if len(recs) < 2:
        return m_dup(rng, recs, others)
    i = rng.randrange(len(recs) - 1)
    j = i + 1 if rng.random() < 0.6 else rng.randrange(len(recs))
    recs[i], recs[j] = recs[j], recs[i]
    return "swap records %d and %d" % (i, j)


def m_splice(rng, recs, others):
    name, src = rng.choice(others + [("itself", list(recs))])
    k = rng.randrange(len(src))
    n = rng.randint(1, min(5, len(src) - k))
    at = rng.randrange(len(recs) + 1)
    recs[at:at] = [bytearray(r) for r in src[k:k + n]]
    return "splice %d records of %s (from %d) at %d" % (n, name, k, at)


def m_type(rng, recs, others):
    i, r = pick(rng, recs)
    new = rng.choice([0, 11, 31, 32, 0x103, 0x1ff, 0x7777, 0xffff,
                      rng.randrange(65536), rng.choice(JOB_TYPES),
                      STREAM_INFO, METADATA, RING])
    old = get(r, "type")
    put_field(r, "type", new)
    return "type of record %d 0x%x -> 0x%x" % (i, old, new)


def m_seq(rng, recs, others):
    i, r = pick(rng, recs)
    field = rng.choice(["ts", "gseq", "cseq"])
    old = get(r, field)
    near = get(recs[rng.randrange(len(recs))], field)
    new = rng.choice([0, 1, U64, 1 << 63, near, old - 1, old + 1,
                      old - rng.randint(2, 1000), old + rng.randint(2, 10 ** 9),
                      rng.getrandbits(64)]) & U64
    put_field(r, field, new)
    return "%s of record %d %d -> %d" % (field, i, old, new)


def m_body(rng, recs, others):
    """A field of the record's own struct."""
    i, r = pick(rng, recs)
    t = get(r, "type")
    if t in JOB_TYPES and len(r) >= 72:
        off, n, what = rng.choice(at(JOB_FIELDS, "ctx", "seqno", "ring_id",
                                     "engine", "aux0", "aux1"))
    elif t == STREAM_INFO and len(r) >= 64:
        off, n, what = rng.choice(at(STREAM_INFO_FIELDS, "magic", "version",
                                     "hdr_size", "clock_id", "features",
                                     "session"))
    elif t == METADATA and len(r) >= 104:
        off, n, what = rng.choice(at(METADATA_FIELDS, "nr_rings",
                                     "ring_size", "kernel"))
    elif t == RING and len(r) >= 112:
        off, n, what = rng.choice(at(RING_FIELDS, "ring_id", "engine",
                                     "driver", "name"))
    else:
        return m_flip(rng, recs, others)
    if n > 8:
        r[off:off + n] = bytes(rng.choice([0, 0x41, 0xff, 0x5c])
                               for _ in range(n))
        return "%s of record %d filled" % (what, i)
    old = int.from_bytes(r[off:off + n], "little")
    other = recs[rng.randrange(len(recs))]
    near = int.from_bytes(other[off:off + n], "little") if len(other) >= off + n else 0
    new = rng.choice([0, 1, 2, 7, 80, 88, 1 << (8 * n - 1), (1 << (8 * n)) - 1,
                      near, old + 1, old - 1, rng.getrandbits(8 * n)])
    put(r, off, n, new)
    return "%s of record %d %d -> %d" % (what, i, old, new & ((1 << (8 * n)) - 1))


def m_grow(rng, recs, others):
    """Trailing fields, as a newer producer writes them: still valid."""
    i, r = pick(rng, recs)
    extra = 8 * rng.randint(1, 4)
    r += bytes(rng.getrandbits(8) for _ in range(extra))
    put_field(r, "size", len(r))
    return "record %d grows by %d bytes" % (i, extra)


def m_concat(rng, recs, others):
    """Another recording after this one: the gseq restarts."""
    name, src = rng.choice(others + [("itself", list(recs))])
    recs += [bytearray(r) for r in src]
    return "append %s" % name


MUTATIONS = [(m_flip, 3), (m_size, 3), (m_dup, 2), (m_drop, 2), (m_swap, 3),
             (m_splice, 2), (m_type, 2), (m_seq, 4), (m_body, 4), (m_grow, 1),
             (m_concat, 1)]


def mutant(name, data, seed, others):
    """The bytes of mutant @seed of source @name, and what was done."""
    rng = random.Random("%s:%d" % (name, seed))
    recs = split(data)
    done = []
    fns = [f for f, w in MUTATIONS for _ in range(w)]
    for _ in range(rng.choice([1, 1, 2, 2, 3, 4])):
        done.append(rng.choice(fns)(rng, recs, others))
    out = b"".join(bytes(r) for r in recs)
    if out and rng.random() < 0.15:
        # Cut inside a record: the header, or past it.
        ends, off = [], 0
        for r in recs:
            ends.append((off, len(r)))
            off += len(r)
        start, size = rng.choice(ends)
        cut = start + rng.randrange(1, max(2, size))
        out = out[:cut]
        done.append("cut at byte %d" % cut)
    return out, done


# ---- running the tool ------------------------------------------------------------

def check_run(tool, path, what, args):
    """Run one command on the mutant: None, or why it failed; and for the
    JSON report, (records it read, whether it stopped at an error)."""
    cmd = [tool, "dump", "-i", path] if args is None else \
          [tool, "report", "-i", path] + args
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "%s: no end after %d s" % (what, TIMEOUT), None
    err = p.stderr.decode("utf-8", "replace")
    # A sanitizer's report on one line: the diagnostics stay TAP comments.
    short = " | ".join(err.strip().splitlines()[:8])[:800]
    if p.returncode not in (0, 1):
        how = "signal %d" % -p.returncode if p.returncode < 0 else \
              "status %d" % p.returncode
        return "%s: %s: %s" % (what, how, short), None
    if len(err.splitlines()) > 1:
        return "%s: %d lines on stderr: %s" % (what, len(err.splitlines()),
                                               short), None
    out = p.stdout.decode("latin-1")
    depth = None
    if what == "report json":
        try:
            s = json.loads(out)["summary"]
            depth = (s["records"], s["error"] is not None)
        except (ValueError, KeyError, TypeError) as e:
            return "%s: not JSON (%s)" % (what, e), None
    elif what == "report csv":
        rows = list(csv.reader(io.StringIO(out)))
        bad = [k for k, row in enumerate(rows) if len(row) != len(rows[0])]
        if bad:
            return "%s: line %d has %d fields, the header %d" % (
                what, bad[0] + 1, len(rows[bad[0]]), len(rows[0])), None
    return None, depth


def run_mutant(tool, path, data):
    """Failures (a list), and how far the JSON report read (check_run())."""
    with open(path, "wb") as f:
        f.write(data)
    fails, depth = [], None
    for what, args in RUNS:
        why, d = check_run(tool, path, what, args)
        if why:
            fails.append(why)
        if d is not None:
            depth = d
    return fails, depth


def replay_cmd(opts, name, seed):
    args = ["python3", os.path.abspath(__file__)]
    for k in ("grtrace", "golden", "gen_trace", "corpus"):
        if opts[k]:
            args += ["--" + k.replace("_", "-"), os.path.abspath(opts[k])]
    return " ".join(shlex.quote(a) for a in args + ["replay", name, str(seed)])


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else 0


def env_int(name, default):
    v = os.environ.get(name, "")
    if not v:
        return default
    if not v.isdigit():
        raise SystemExit("mutate.py: %s=%r is not a number" % (name, v))
    return int(v)


def cmd_run(opts):
    base = env_int("FUZZ_SEED", 1)
    n = env_int("FUZZ_SEEDS", 10)
    srcs = sources(opts)
    split_srcs = [(name, split(data)) for name, data in srcs]
    t0 = time.time()
    failed = 0
    depths, lengths, whole = [], [], 0
    print("# mutate: seeds %d..%d (FUZZ_SEED=%d FUZZ_SEEDS=%d) of each of "
          "%d valid traces" % (base, base + n - 1, base, n, len(srcs)))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "mutant.bin")
        for k, (name, data) in enumerate(srcs):
            others = split_srcs[:k] + split_srcs[k + 1:]
            diag = []
            for seed in range(base, base + n):
                if len(diag) >= 3 * MAX_FAILS:
                    diag.append("(seeds %d.. not run)" % seed)
                    break
                m, done = mutant(name, data, seed, others)
                fails, depth = run_mutant(opts["grtrace"], path, m)
                if depth and depth[1]:
                    depths.append(depth[0])
                    lengths.append(len(split_srcs[k][1]))
                elif depth:
                    whole += 1
                if fails:
                    diag.append("seed %d of %s: %s" % (seed, name,
                                                        "; ".join(fails)))
                    diag.append("  mutations: %s" % "; ".join(done))
                    diag.append("  replay: %s" % replay_cmd(opts, name, seed))
            status = "not ok" if diag else "ok"
            failed |= bool(diag)
            print("%s mutate: %d mutants of %s run clean through report and "
                  "dump" % (status, n, name))
            for line in diag:
                print("# " + line)
    print("# mutate: %d mutants, %d runs in %.1f s" %
          (len(srcs) * n, len(srcs) * n * len(RUNS), time.time() - t0))
    print("# mutate: %d stopped at a bad record, after a median of %d "
          "records read (their sources: a median of %d records); %d were "
          "read to the end" % (len(depths), median(depths), median(lengths),
                               whole))
    return 1 if failed else 0


def cmd_replay(opts, name, seed, out):
    srcs = sources(opts)
    data = dict(srcs).get(name)
    if data is None:
        data = b"".join(split(load(opts, name)))
    others = [(n, split(d)) for n, d in srcs if n != name]
    m, done = mutant(name, data, seed, others)
    print("mutant %d of %s: %d bytes -> %s" % (seed, name, len(m), out))
    for x in done:
        print("  " + x)
    with open(out, "wb") as f:
        f.write(m)
    bad = 0
    for what, args in RUNS:
        cmd = [opts["grtrace"], "dump", "-i", out] if args is None else \
              [opts["grtrace"], "report", "-i", out] + args
        why, _ = check_run(opts["grtrace"], out, what, args)
        print("%s: %s" % ("FAIL" if why else "ok", " ".join(
            shlex.quote(a) for a in cmd)))
        if why:
            print("  " + why)
            bad = 1
    return bad


def main(argv):
    opts = dict(grtrace="./grtrace", golden=None, gen_trace=None, corpus=None)
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        key = a[2:].replace("-", "_")
        if a.startswith("--") and key in opts and i + 1 < len(argv):
            opts[key] = argv[i + 1]
            i += 2
            continue
        args.append(a)
        i += 1
    if args == ["run"]:
        return cmd_run(opts)
    if args == ["list"]:
        for name, data in sources(opts):
            print("%s (%d records)" % (name, len(split(data))))
        return 0
    if len(args) in (3, 4) and args[0] == "replay" and args[2].isdigit():
        return cmd_replay(opts, args[1], int(args[2]),
                          args[3] if len(args) == 4 else "mutant.bin")
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
