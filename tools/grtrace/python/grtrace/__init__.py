# SPDX-License-Identifier: GPL-2.0
"""grtrace - read grtrace traces from Python, through libgrtrace.

One package: grtrace (this module: traces, records, jobs, reports) and
grtrace.timeline (the two sides of merge_timeline.py).

A ctypes binding over libgrtrace.so.1 (no compiled extension): the library
is the one reader of the stream and the trace file, and the report's
analysis engine; this module only carries its values over.

    import grtrace
    with grtrace.Trace("grtrace.dat") as t:
        for r in t.records():          # every record, CPUs merged by gseq
            print(r.ts, r.type_name, r.ctx, r.seqno)
        t.rewind()
        for j in t.jobs():             # every job, as "grtrace report" closes it
            print(j.ctx, j.seqno, j.metrics["t_total"])
        rows = t.report_rows("--per-ring")   # the report's CSV table as dicts
        table = t.jobs_array()         # the jobs as a NumPy structured array

Every iterator (records(), raw_records(), rows(), jobs()) has its own
place in the input, from its start: two of them, or an iterator and a
report, do not disturb each other.  A Trace is closed by close() or at
the end of its "with": every method then raises ValueError, as a closed
file's do, and so does an iterator resumed after it.

Errors raise grtrace.Error, an OSError: .errno (the system's errno, or
EBADMSG for a corrupt input, EINVAL for a bad argument, ENOMEM), .status
(ERR_*), .offset (the byte of the input at fault) and .msg, which is also
str(); the records or jobs before a bad record come first.

The library is found as $GRTRACE_LIB, else where "make install" put it,
next to this file or in ../../lib (python/grtrace/ of the source tree),
else by its SONAME.
"""
import csv
import ctypes
import errno as _errno
import io
import itertools
import json
import os
import weakref

__all__ = ["Error", "Trace", "Record", "Job", "formats", "lib_version",
           "diff"]

SONAME = "libgrtrace.so.1"
# "make install" sets where it put the library.
_LIBDIR = None
ERR_IO, ERR_NOMEM, ERR_INPUT, ERR_INVAL, ERR_OUTPUT = 1, 2, 3, 4, 5
STAMPS = ("submit", "commit", "start", "end", "complete")


class _Sized(ctypes.Structure):
    """A struct of grtrace.h that begins with its size: set on creation
    (the library fills no byte past it)."""

    def __init__(self):
        super().__init__()
        self.size = ctypes.sizeof(self)


class _Error(_Sized):
    _fields_ = [("size", ctypes.c_uint32), ("status", ctypes.c_int32),
                ("sys", ctypes.c_int32), ("reserved", ctypes.c_uint32),
                ("offset", ctypes.c_uint64), ("msg", ctypes.c_char * 448)]


class _Record(_Sized):
    _fields_ = [("size", ctypes.c_uint32), ("part", ctypes.c_uint32),
                ("offset", ctypes.c_uint64),
                ("type", ctypes.c_uint16), ("rec_size", ctypes.c_uint16),
                ("cpu", ctypes.c_uint16), ("flags", ctypes.c_uint16),
                ("is_job", ctypes.c_uint32),
                ("ts", ctypes.c_uint64), ("gseq", ctypes.c_uint64),
                ("cseq", ctypes.c_uint64), ("ctx", ctypes.c_uint64),
                ("seqno", ctypes.c_uint64), ("ring", ctypes.c_uint32),
                ("engine", ctypes.c_uint16), ("has_task", ctypes.c_uint16),
                ("aux0", ctypes.c_uint64), ("aux1", ctypes.c_uint64),
                ("pid", ctypes.c_uint32), ("tid", ctypes.c_uint32),
                ("has_client", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("client", ctypes.c_uint64)]


class _Job(_Sized):
    _fields_ = [("size", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("ctx", ctypes.c_uint64), ("seqno", ctypes.c_uint64),
                ("ring_id", ctypes.c_uint32), ("engine", ctypes.c_uint16),
                ("have_ts", ctypes.c_uint8), ("start_derived", ctypes.c_uint8),
                ("ts", ctypes.c_uint64 * 5), ("have_metric", ctypes.c_uint32),
                ("labels", ctypes.c_uint32), ("metric", ctypes.c_uint64 * 6),
                ("preempts", ctypes.c_uint32), ("errors", ctypes.c_uint32),
                ("error", ctypes.c_int64), ("qsize", ctypes.c_uint32),
                ("has_task", ctypes.c_uint32), ("pid", ctypes.c_uint32),
                ("tid", ctypes.c_uint32), ("has_client", ctypes.c_uint32),
                ("client", ctypes.c_uint64)]


_u32, _u64 = ctypes.c_uint32, ctypes.c_uint64


class _InfoStream(ctypes.Structure):
    _fields_ = [("size", _u32), ("magic", _u32), ("version", _u32),
                ("hdr_size", _u32), ("clock_id", _u32), ("nr_cpus", _u32),
                ("features", _u64), ("session_id", _u64)]


class _InfoRing(ctypes.Structure):
    _fields_ = [("size", _u32), ("ring_id", _u32), ("engine", ctypes.c_uint16),
                ("instance", ctypes.c_uint16), ("nr_rings", _u32),
                ("driver", ctypes.c_char * 17), ("device", ctypes.c_char * 33),
                ("name", ctypes.c_char * 25), ("reserved", ctypes.c_char * 5)]


class _InfoTrigger(ctypes.Structure):
    _fields_ = [("size", _u32), ("cause", _u32), ("ring_id", _u32),
                ("cpu", _u32), ("ctx", _u64), ("seqno", _u64),
                ("error", ctypes.c_int64), ("frozen_ts", _u64),
                ("later_triggers", _u64)]


class _InfoLoss(ctypes.Structure):
    _fields_ = [("size", _u32), ("cpu", _u32), ("first_ts", _u64),
                ("last_ts", _u64), ("emitted", _u64), ("kept", _u64),
                ("overwritten", _u64), ("dropped", _u64),
                ("buffer_size", _u64)]


class _ReportOpts(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("topn", _u32),
                ("hist", _u32), ("limit", _u64)]


_HISTS = {None: 0, "lat": 1, "size": 2, "result": 3}


def _places(here):
    """Where the library may be, in order."""
    yield os.environ.get("GRTRACE_LIB")
    yield _LIBDIR and os.path.join(_LIBDIR, SONAME)
    yield os.path.join(here, SONAME)
    yield os.path.join(here, "..", "..", "lib", SONAME)
    yield SONAME
    # Last, and only when all those failed: it runs the compiler and ld,
    # tens of ms that every "import grtrace" paid.
    from ctypes.util import find_library
    yield find_library("grtrace")


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    why = []
    for name in _places(here):
        if not name or (os.sep in name and not os.path.exists(name)):
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            why.append(str(e))
    raise ImportError("grtrace: cannot load %s (%s); set GRTRACE_LIB"
                      % (SONAME, "; ".join(why) or "not found"))


_lib = _load()
_P = ctypes.c_void_p
_E = ctypes.POINTER(_Error)
for _name, _res, _args in (
        ("grtrace_lib_version", ctypes.c_uint, []),
        ("grtrace_open", _P, [ctypes.c_char_p, _E]),
        ("grtrace_open_as", _P, [ctypes.c_char_p, ctypes.c_uint, ctypes.c_uint,
                                 _E]),
        ("grtrace_open_mem", _P, [ctypes.c_char_p, ctypes.c_size_t, _E]),
        ("grtrace_open_mem_as", _P, [ctypes.c_char_p, ctypes.c_size_t,
                                     ctypes.c_uint, ctypes.c_uint, _E]),
        ("grtrace_close", None, [_P]),
        ("grtrace_dup", _P, [_P, _E]),
        ("grtrace_rewind", ctypes.c_int, [_P, _E]),
        ("grtrace_stream_format", ctypes.c_uint, [_P]),
        ("grtrace_file_version", ctypes.c_uint, [_P]),
        ("grtrace_next_record", ctypes.c_int,
         [_P, ctypes.POINTER(_Record), _E]),
        ("grtrace_next_job", ctypes.c_int, [_P, ctypes.POINTER(_Job), _E]),
        ("grtrace_next_rows", _P, [_P, ctypes.c_uint,
                                   ctypes.POINTER(ctypes.c_size_t), _E]),
        ("grtrace_type_name", ctypes.c_char_p,
         [ctypes.c_uint, ctypes.c_char_p, ctypes.c_size_t]),
        ("grtrace_engine_name", ctypes.c_char_p,
         [ctypes.c_uint, ctypes.c_char_p, ctypes.c_size_t]),
        ("grtrace_metric_name", ctypes.c_char_p, [ctypes.c_uint]),
        ("grtrace_label_name", ctypes.c_char_p, [ctypes.c_uint]),
        ("grtrace_format_name", ctypes.c_char_p, [ctypes.c_uint]),
        ("grtrace_format_summary", ctypes.c_char_p, [ctypes.c_uint]),
        ("grtrace_info_stream", ctypes.c_int,
         [_P, ctypes.POINTER(_InfoStream), _E]),
        ("grtrace_info_ring", ctypes.c_int,
         [_P, ctypes.c_uint, ctypes.POINTER(_InfoRing), _E]),
        ("grtrace_info_trigger", ctypes.c_int,
         [_P, ctypes.POINTER(_InfoTrigger), _E]),
        ("grtrace_info_loss", ctypes.c_int,
         [_P, ctypes.POINTER(_InfoLoss), _E]),
        ("grtrace_report_with", ctypes.c_int,
         [_P, ctypes.c_char_p, ctypes.POINTER(_ReportOpts), _P, _E]),
        ("grtrace_report", ctypes.c_int,
         [_P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), _P, _E])):
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args
# Since 1.2: absent from an older library, whose diff() then says so.
if hasattr(_lib, "grtrace_diff"):
    _lib.grtrace_diff.restype = ctypes.c_int
    _lib.grtrace_diff.argtypes = [_P, _P, ctypes.c_char_p,
                                  ctypes.POINTER(ctypes.c_char_p), _P, _E]
# Since 1.3: records by the thousand, one call each (raw_records()).
if hasattr(_lib, "grtrace_next_records"):
    _lib.grtrace_next_records.restype = ctypes.c_int
    _lib.grtrace_next_records.argtypes = [_P, ctypes.POINTER(_Record),
                                          ctypes.c_uint, _E]
# Records per grtrace_next_records() call: a call costs as much as a
# few hundred records handed out of its batch.
_BATCH = 1024
# grtrace_next_job() into a NumPy array's memory (an address, not a _Job).
_next_job_at = _lib["grtrace_next_job"]
_next_job_at.restype = ctypes.c_int
_next_job_at.argtypes = [_P, _P, _E]

_libc = ctypes.CDLL(None)
_libc.open_memstream.restype = _P
_libc.open_memstream.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                 ctypes.POINTER(ctypes.c_size_t)]
_libc.fclose.argtypes = [_P]
_libc.free.argtypes = [_P]


def lib_version():
    """(major, minor) of the libgrtrace loaded."""
    v = _lib.grtrace_lib_version()
    return v >> 16, v & 0xffff


def _names(fn, n):
    out = []
    for i in range(n):
        s = fn(i)
        if s is None:
            break
        out.append(s.decode())
    return out


METRICS = _names(_lib.grtrace_metric_name, 32)
LABELS = _names(_lib.grtrace_label_name, 32)


def formats():
    """The report's output formats: [(name, summary)], from the library."""
    out, i = [], 0
    while True:
        n = _lib.grtrace_format_name(i)
        if n is None:
            return out
        out.append((n.decode(), _lib.grtrace_format_summary(i).decode()))
        i += 1


# The errno of a failure that has no system errno, by its status.
_STATUS_ERRNO = {ERR_IO: _errno.EIO, ERR_NOMEM: _errno.ENOMEM,
                 ERR_INPUT: _errno.EBADMSG, ERR_INVAL: _errno.EINVAL,
                 ERR_OUTPUT: _errno.EIO}


class Error(OSError):
    """A failure of libgrtrace, an OSError: .errno (the system's, else
    one for its .status), .status (ERR_*), .sys (the system's errno or 0),
    .offset (the input byte at fault), .msg (one line, also str())."""

    def __init__(self, e=None, status=ERR_INVAL, sys=0, offset=0, msg=""):
        if e is not None:
            status, sys, offset = e.status, e.sys, e.offset
            msg = e.msg.decode("utf-8", "replace")
        super().__init__(sys or _STATUS_ERRNO.get(status, _errno.EIO), msg)
        self.status, self.sys, self.offset, self.msg = status, sys, offset, msg

    def __str__(self):
        return self.msg


_type_cache = {}
_engine_cache = {}


def _type_name(t):
    n = _type_cache.get(t)
    if n is None:
        buf = ctypes.create_string_buffer(32)
        n = _type_cache[t] = _lib.grtrace_type_name(t, buf, 32).decode()
    return n


def _engine_name(e):
    n = _engine_cache.get(e)
    if n is None:
        buf = ctypes.create_string_buffer(32)
        n = _engine_cache[e] = _lib.grtrace_engine_name(e, buf, 32).decode()
    return n


STREAM_INFO, METADATA, RING, TRIGGER, RECORDER = 0x100, 0x101, 0x102, \
    0x104, 0x105
_NO_RING = 0xffffffff


def _fields(s, skip=("size", "reserved")):
    out = {}
    for name, _ in s._fields_:
        if name not in skip:
            v = getattr(s, name)
            out[name] = v.decode("utf-8", "replace") if isinstance(v, bytes) \
                else v
    return out


def _info(h, rtype):
    """What the control record just read on handle @h says, as a dict
    (grtrace_info_*()), or None for a type that says nothing typed."""
    err = _Error()
    ep = ctypes.byref(err)
    if rtype == STREAM_INFO:
        s, fn = _InfoStream(), _lib.grtrace_info_stream
    elif rtype == TRIGGER:
        s, fn = _InfoTrigger(), _lib.grtrace_info_trigger
    elif rtype == RECORDER:
        s, fn = _InfoLoss(), _lib.grtrace_info_loss
    elif rtype in (METADATA, RING):
        rings, i = [], 0
        while True:
            r = _InfoRing()
            r.size = ctypes.sizeof(r)
            n = _lib.grtrace_info_ring(h, i, ctypes.byref(r), ep)
            if n < 0:
                raise Error(err)
            if not n:
                return {"rings": rings}
            d = _fields(r)
            del d["nr_rings"]
            d["engine_name"] = _engine_name(r.engine)
            rings.append(d)
            i += 1
    else:
        return None
    s.size = ctypes.sizeof(s)
    n = fn(h, ctypes.byref(s), ep)
    if n < 0:
        raise Error(err)
    if not n:
        return None
    d = _fields(s)
    if rtype == TRIGGER and d["ring_id"] == _NO_RING:
        d["ring_id"] = None
    return d


class Record:
    """One record: its header, for a job event its job's fields, and for
    a STREAM_INFO, METADATA, RING, TRIGGER or RECORDER (the flight
    recorder's losses) what it says, typed, in .info (a dict; None for
    other records)."""
    __slots__ = ("offset", "part", "type", "size", "cpu", "flags", "ts",
                 "gseq", "cseq", "is_job", "ctx", "seqno", "ring", "engine",
                 "aux0", "aux1", "pid", "tid", "client", "info")

    @property
    def type_name(self):
        return _type_name(self.type)

    @property
    def engine_name(self):
        return _engine_name(self.engine) if self.is_job else None

    def __repr__(self):
        return "Record(%s)" % ", ".join("%s=%r" % (k, getattr(self, k))
                                        for k in self.__slots__)


class Job:
    """A job as the report closes it; times in ns, None where unknown."""
    __slots__ = ("ctx", "seqno", "ring_id", "engine", "ts", "start_derived",
                 "metrics", "labels", "preempts", "errors", "error", "qsize",
                 "pid", "tid", "client")

    @property
    def engine_name(self):
        return _engine_name(self.engine)

    def __repr__(self):
        return "Job(%s)" % ", ".join("%s=%r" % (k, getattr(self, k))
                                     for k in self.__slots__)


ROWS_CSV, ROWS_JSON = 0, 1
_CLOSED = "I/O operation on a closed trace"


class _Cursor:
    """One library handle of an iterator: its own place in the input.
    Closed when its iterator is done or dropped, or with its Trace."""
    __slots__ = ("h", "batch", "__weakref__")

    def __init__(self, h):
        self.h = h
        self.batch = None

    def close(self):
        h, self.h = self.h, None
        if self.batch:
            # The records of a batch not yet handed out are not handed out.
            self.batch.clear()
        if h:
            _lib.grtrace_close(h)

    def __del__(self):
        try:
            self.close()
        except Exception:      # the interpreter's end: _lib may be gone
            pass


class Trace:
    """A trace file of "grtrace record", or a bare stream: Trace(path) or
    Trace(data=bytes).  A bare stream's format can be told (stream_format
    1 or 2; else its first record says) and the CPU of a format 2 stream's
    one channel (cpu, default 0).  A file is read in windows, never
    whole.

    A closed Trace (close(), or the end of its "with") raises ValueError
    from every method, and so does an iterator of it resumed after that."""

    def __init__(self, path=None, data=None, stream_format=None, cpu=None):
        err = _Error()
        self._h = None
        self._cursors = weakref.WeakSet()
        self._data = None
        if data is not None and (stream_format is not None or cpu is not None):
            self._data = bytes(data)
            h = _lib.grtrace_open_mem_as(self._data, len(self._data),
                                         stream_format or 0, cpu or 0,
                                         ctypes.byref(err))
        elif data is not None:
            self._data = bytes(data)
            h = _lib.grtrace_open_mem(self._data, len(self._data),
                                      ctypes.byref(err))
        elif path is None:
            raise TypeError("Trace() needs a path or data=")
        elif stream_format is not None or cpu is not None:
            h = _lib.grtrace_open_as(os.fsencode(path), stream_format or 0,
                                     cpu or 0, ctypes.byref(err))
        else:
            h = _lib.grtrace_open(os.fsencode(path), ctypes.byref(err))
        if not h:
            raise Error(err)
        self._h = h
        self._err = err

    @property
    def closed(self):
        return not self._h

    def _handle(self):
        h = self._h
        if not h:
            raise ValueError(_CLOSED)
        return h

    def close(self):
        """Close the trace and every iterator of it (again: nothing)."""
        h = getattr(self, "_h", None)
        if not h:
            return
        self._h = None
        for c in list(self._cursors):
            c.close()
        _lib.grtrace_close(h)

    def __enter__(self):
        self._handle()
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:      # the interpreter's end: _lib may be gone
            pass

    @property
    def stream_format(self):
        return _lib.grtrace_stream_format(self._handle())

    @property
    def file_version(self):
        return _lib.grtrace_file_version(self._handle())

    def rewind(self):
        """Kept for old code: every iterator starts at the beginning of the
        input by itself, so there is nothing left to rewind."""
        self._handle()

    def _cursor(self):
        """A new handle on the input, at its start (grtrace_dup())."""
        err = _Error()
        h = _lib.grtrace_dup(self._handle(), ctypes.byref(err))
        if not h:
            raise Error(err)
        c = _Cursor(h)
        self._cursors.add(c)
        return c

    def raw_records(self):
        """The records as the library's ctypes structure, the fastest way:
        each one lives in a buffer the next batch of records overwrites
        (copy what you keep).  Its size is the structure's (struct
        grtrace_record's), the record's own is rec_size."""
        cur = self._cursor()
        if hasattr(_lib, "grtrace_next_records"):
            # Record by record in C: no Python frame runs per record.
            return itertools.chain.from_iterable(self._raw_batches(cur))
        return self._raw_records(cur)

    def _raw_batches(self, cur):
        """raw_records() through grtrace_next_records(): lists of up to
        _BATCH records, a library call each instead of one per record."""
        recs, err = (_Record * _BATCH)(), _Error()
        # The library reads the records' spacing from the first one, before
        # every call: it leaves there the size it filled, which a library
        # older than this binding (a smaller struct) makes less.
        size = ctypes.sizeof(_Record)
        # One object per slot of the batch, made once: a record is the
        # object of its slot, filled afresh by each batch.
        views = recs[:]
        nxt, ep = _lib.grtrace_next_records, ctypes.byref(err)
        try:
            while True:
                h = cur.h
                if not h:
                    raise ValueError(_CLOSED)
                recs[0].size = size
                n = nxt(h, recs, _BATCH, ep)
                if n <= 0:
                    if n < 0:
                        raise Error(err)
                    return
                # close() empties the batch: a resumed iterator raises.
                cur.batch = views[:n]
                yield cur.batch
        finally:
            cur.close()

    def _raw_records(self, cur):
        rec, err = _Record(), _Error()
        nxt, rp, ep = _lib.grtrace_next_record, ctypes.byref(rec), \
            ctypes.byref(err)
        try:
            while True:
                h = cur.h
                if not h:
                    raise ValueError(_CLOSED)
                n = nxt(h, rp, ep)
                if n <= 0:
                    if n < 0:
                        raise Error(err)
                    return
                yield rec
        finally:
            cur.close()

    def rows(self, form=ROWS_CSV):
        """Every record as rows of text (ROWS_CSV or ROWS_JSON), formatted by
        the library as scripts/parse_events.py prints them: bytes of whole
        lines, a batch at a time."""
        return self._rows(self._cursor(), form)

    def _rows(self, cur, form):
        n, err = ctypes.c_size_t(), _Error()
        nxt, np_, ep = _lib.grtrace_next_rows, ctypes.byref(n), \
            ctypes.byref(err)
        try:
            while True:
                h = cur.h
                if not h:
                    raise ValueError(_CLOSED)
                p = nxt(h, form, np_, ep)
                if not p:
                    if err.status:
                        raise Error(err)
                    return
                yield ctypes.string_at(p, n.value)
        finally:
            cur.close()

    def records(self):
        """Every record, the CPUs merged in gseq order, as Record objects."""
        return self._records(self._cursor())

    def _records(self, cur):
        if hasattr(_lib, "grtrace_next_records"):
            raw = itertools.chain.from_iterable(self._raw_batches(cur))
        else:
            raw = self._raw_records(cur)
        for r in raw:
            o = Record()
            o.offset, o.part, o.type, o.size = r.offset, r.part, r.type, \
                r.rec_size
            o.cpu, o.flags, o.ts, o.gseq, o.cseq = r.cpu, r.flags, r.ts, \
                r.gseq, r.cseq
            o.is_job = bool(r.is_job)
            if o.is_job:
                o.ctx, o.seqno, o.ring, o.engine = r.ctx, r.seqno, r.ring, \
                    r.engine
                o.aux0, o.aux1 = r.aux0, r.aux1
                o.pid, o.tid = (r.pid, r.tid) if r.has_task else (None, None)
                o.client = r.client if r.has_client else None
                o.info = None
            else:
                o.ctx = o.seqno = o.ring = o.engine = o.aux0 = o.aux1 = None
                o.pid = o.tid = o.client = None
                o.info = _info(cur.h, r.type) if r.type >= STREAM_INFO \
                    else None
            yield o

    def jobs(self):
        """Every job with its metrics, as "grtrace report" closes them."""
        return self._jobs(self._cursor())

    def _jobs(self, cur):
        j, err = _Job(), _Error()
        jp, ep = ctypes.byref(j), ctypes.byref(err)
        try:
            while True:
                h = cur.h
                if not h:
                    raise ValueError(_CLOSED)
                n = _lib.grtrace_next_job(h, jp, ep)
                if n <= 0:
                    if n < 0:
                        raise Error(err)
                    return
                o = Job()
                o.ctx, o.seqno, o.ring_id, o.engine = j.ctx, j.seqno, \
                    j.ring_id, j.engine
                o.ts = {s: j.ts[i] for i, s in enumerate(STAMPS)
                        if j.have_ts & (1 << i)}
                o.start_derived = bool(j.start_derived)
                o.metrics = {m: (j.metric[i] if j.have_metric & (1 << i)
                                 else None)
                             for i, m in enumerate(METRICS)}
                o.labels = [lb for i, lb in enumerate(LABELS)
                            if j.labels & (1 << i)]
                o.preempts, o.errors, o.qsize = j.preempts, j.errors, j.qsize
                o.error = j.error if j.errors else None
                o.pid, o.tid = (j.pid, j.tid) if j.has_task else (None, None)
                o.client = j.client if j.has_client else None
                yield o
        finally:
            cur.close()

    def jobs_array(self):
        """Every job of jobs() as one NumPy structured array (needs numpy):
        a row per job, fields ctx, seqno, ring_id, engine, start_derived,
        ts_submit ... ts_complete, the metrics (t_submit_host ... t_total,
        ns), labels (bit n: LABELS[n]), preempts, errors, error, qsize,
        pid, tid, client, and the masks of what is known: have_ts (bit i:
        STAMPS[i]), have_metric (bit i: METRICS[i]), has_task, has_client.
        A value not known is 0 (its mask says so)."""
        return _jobs_array(self, self._cursor())

    def report(self, fmt="text", *args, per_ring=False, per_ctx=False,
               per_process=False, per_engine=False, topn=0, hist=None,
               limit=None):
        """The report of the whole input in format @fmt, as a string.  The
        options as keywords (grtrace_report_with(): per_ring=True,
        topn=5, hist="lat", limit=100, ...), or, as before, as
        grtrace_report() takes them in @args ("--per-ring", "--topn=5")."""
        h = self._handle()
        if hist not in _HISTS:
            raise ValueError("hist: one of lat, size, result")
        o = _ReportOpts()
        o.size = ctypes.sizeof(o)
        o.flags = (per_ring and 1) | (per_ctx and 2) | (per_process and 4) \
            | (per_engine and 8) | (16 if limit is not None else 0)
        o.topn, o.hist, o.limit = topn, _HISTS[hist], limit or 0
        err = _Error()
        buf, size = ctypes.c_void_p(), ctypes.c_size_t()
        argv = (ctypes.c_char_p * (len(args) + 1))(
            *[a.encode() for a in args], None)
        f = _libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
        if not f:
            raise OSError(ctypes.get_errno(), "open_memstream")
        if args:
            ret = _lib.grtrace_report(h, fmt.encode(), argv, f,
                                      ctypes.byref(err))
        else:
            ret = _lib.grtrace_report_with(h, fmt.encode(), ctypes.byref(o),
                                           f, ctypes.byref(err))
        _libc.fclose(f)
        out = ctypes.string_at(buf, size.value).decode("utf-8", "replace")
        _libc.free(buf)
        if ret < 0:
            raise Error(err)
        return out

    def report_rows(self, *args, **opts):
        """The report's one CSV table (the jobs, or the one summary asked
        for) as a list of dicts, values as strings."""
        return list(csv.DictReader(io.StringIO(self.report("csv", *args,
                                                           **opts))))


def _jobs_array(trace, cur):
    """Trace.jobs_array(): the library writes each job straight into a
    NumPy array laid out as its struct grtrace_job, then the columns are
    given their names."""
    import numpy as np

    try:
        raw_t = np.dtype(_Job)
        size = raw_t.itemsize
        raw = np.zeros(1024, dtype=raw_t)
        raw["size"] = size
        err = _Error()
        ep = ctypes.byref(err)
        n = 0
        while True:
            h = cur.h
            if not h:
                raise ValueError(_CLOSED)
            if n == len(raw):
                raw = np.resize(raw, 2 * n)
                raw["size"][n:] = size
            got = _next_job_at(h, raw.ctypes.data + n * size, ep)
            if got < 0:
                raise Error(err)
            if not got:
                break
            n += 1
    finally:
        cur.close()
    raw = raw[:n]
    fields = ([("ctx", "u8"), ("seqno", "u8"), ("ring_id", "u4"),
               ("engine", "u2"), ("start_derived", "?")] +
              [("ts_" + s, "u8") for s in STAMPS] +
              [(m, "u8") for m in METRICS] +
              [("labels", "u4"), ("preempts", "u4"), ("errors", "u4"),
               ("error", "i8"), ("qsize", "u4"), ("pid", "u4"), ("tid", "u4"),
               ("client", "u8"), ("have_ts", "u1"), ("have_metric", "u4"),
               ("has_task", "?"), ("has_client", "?")])
    out = np.zeros(n, dtype=fields)
    for name in ("ctx", "seqno", "ring_id", "engine", "start_derived",
                 "labels", "preempts", "errors", "error", "qsize", "pid",
                 "tid", "client", "have_ts", "have_metric", "has_task",
                 "has_client"):
        out[name] = raw[name]
    for i, s in enumerate(STAMPS):
        out["ts_" + s] = np.where(raw["have_ts"] & (1 << i), raw["ts"][:, i], 0)
    for i, m in enumerate(METRICS):
        out[m] = np.where(raw["have_metric"] & (1 << i),
                          raw["metric"][:, i], 0)
    return out


def diff(a, b, *args, fmt="json"):
    """"grtrace diff" of @a against @b (paths or Trace objects): with
    fmt="json" the parsed document (a dict), else the text or CSV as a
    string; @args as grtrace_diff() takes them ("--alpha=0.05",
    "--min-change=10", ...).  A damaged input raises Error."""
    if not hasattr(_lib, "grtrace_diff"):
        raise NotImplementedError("libgrtrace %d.%d has no grtrace_diff()"
                                  % lib_version())
    ta = a if isinstance(a, Trace) else Trace(a)
    tb = b if isinstance(b, Trace) else Trace(b)
    names = []
    if not isinstance(a, Trace):
        names.append("--name-a=" + os.fsdecode(a))
    if not isinstance(b, Trace):
        names.append("--name-b=" + os.fsdecode(b))
    args = names + list(args)
    err = _Error()
    buf, size = ctypes.c_void_p(), ctypes.c_size_t()
    try:
        f = _libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
        if not f:
            raise OSError(ctypes.get_errno(), "open_memstream")
        argv = (ctypes.c_char_p * (len(args) + 1))(
            *[x.encode() for x in args], None)
        ret = _lib.grtrace_diff(ta._handle(), tb._handle(), fmt.encode(),
                                argv, f, ctypes.byref(err))
        _libc.fclose(f)
        out = ctypes.string_at(buf, size.value).decode("utf-8", "replace")
        _libc.free(buf)
    finally:
        if ta is not a:
            ta.close()
        if tb is not b:
            tb.close()
    if ret < 0:
        raise Error(err)
    return json.loads(out) if fmt == "json" else out
