#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""parse_events.py - decode a grtrace stream or trace file to CSV or JSON.

Usage: parse_events.py [--json] [--cpu N] [--stream-format 1|2] FILE

FILE is a trace file written by "grtrace record", a bare stream (records
only: what older versions of record wrote, or a copy of one events<N>
file), or "-" for standard input.  Every record becomes one row, the CPUs
merged as "grtrace report" merges them (by gseq, then ts), parts of the
input (recordings joined with cat, or a bare stream across a module
reload) one after the other.  Format 2 records are widened as the tool
widens them: cseq to 64 bits, gseq 0 when the session did not stamp it.

Columns: offset (of the record in FILE; of its frame where the frame is
compressed or in format 2, and 0 in a bare format 2 stream), part, cpu,
ts, gseq, cseq, type, derived, then for job events ctx, seqno, ring,
engine, aux0, aux1 (ERROR's aux0 signed: a negative errno), pid and tid
(a SUBMIT that carries its task); for control records a "fields" column
of key=value pairs; last, client (the DRM client id of a SUBMIT flagged
CLIENT: its aux0).  A trace file's task table (version 2) follows the
records: a row of type TASK per thread, with pid, tid and the fields comm
and process; then its client table (version 3): a row of type CLIENT per
DRM client, with client, pid (the process holding it) and the field
process.  These rows have no offset, and the part of the last records.

A bare format 2 stream does not name its CPU: --cpu says which (default
0).  A bare stream's format is its first record's (a STREAM_INFO's, or
told by a job event's size); --stream-format says it where that cannot.

A client of libgrtrace (python/grtrace/): the library reads the input
and formats the rows (grtrace_next_rows()); this script only passes its
options and writes them.  Malformed or truncated input: the rows before
it, then one line "parse_events.py: FILE: byte N: ..." on standard
error (the library's message), and exit status 1.
"""
import argparse
import os
import sys

PROG = "parse_events.py"
# The points of a job's life, as a JOB_SUMMARY row's fields name them.
STAMPS = ("submit", "commit", "start", "end", "complete")


class Bad(Exception):
    """Malformed input: "byte N: " and the library's message."""


def binding():
    """The grtrace module: in the source tree next to scripts/, else where
    "make install" put it (Python's path).  Imported when first needed, so
    that --help works without it; Bad if it or its library is missing."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "python")
    if os.path.exists(os.path.join(here, "grtrace", "__init__.py")) and here not in sys.path:
        sys.dont_write_bytecode = True      # no __pycache__ in the tree
        sys.path.insert(0, here)
    try:
        import grtrace
    except (ImportError, AttributeError) as e:
        # AttributeError: a libgrtrace older than the module.
        raise Bad(str(e))
    return grtrace


def bad(e):
    """grtrace.Error @e as Bad: its message after the byte it names."""
    if "byte " not in e.msg or e.msg.startswith("byte ") or \
            e.status != binding().ERR_INPUT:
        return Bad(e.msg)
    return Bad("byte %d: %s" % (e.offset, e.msg))


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true", help="JSON lines, not CSV")
    ap.add_argument("--cpu", type=int, default=0,
                    help="the CPU of a bare format 2 stream (default 0)")
    ap.add_argument("--stream-format", type=int, choices=(1, 2),
                    help="the format of a stream without a STREAM_INFO first")
    a = ap.parse_args()
    # A file is read by the library in windows (bounded memory); only
    # standard input is read whole.
    data = None
    try:
        if a.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(a.file, "rb"):
                pass
    except OSError as e:
        print("%s: %s: %s" % (PROG, a.file, e.strerror), file=sys.stderr)
        return 1
    out = sys.stdout.buffer
    try:
        grtrace = binding()
    except Bad as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    try:
        if data is None:
            t = grtrace.Trace(a.file, stream_format=a.stream_format or 0,
                              cpu=a.cpu)
        else:
            t = grtrace.Trace(data=data, stream_format=a.stream_format or 0,
                              cpu=a.cpu)
        for chunk in t.rows(grtrace.ROWS_JSON if a.json else grtrace.ROWS_CSV):
            out.write(chunk)
    except grtrace.Error as e:
        out.flush()
        print("%s: %s: %s" % (PROG, a.file, bad(e)), file=sys.stderr)
        return 1
    except BrokenPipeError:
        # Nothing more can be written: not even at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
