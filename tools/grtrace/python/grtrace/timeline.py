# SPDX-License-Identifier: GPL-2.0
"""grtrace.timeline - the two sides of merge_timeline.py, from libgrtrace.

    import grtrace.timeline as tl
    cpu = tl.tracedat_ioctls("trace.dat", offset_ns=0)   # needs libtracecmd
    gpu = tl.gpu_events("grtrace.dat")

Each returns an object whose fields are lists (columns, one entry per
ioctl or event), made from the library's arrays in one call each: a call
per event through ctypes would cost more than the reading.

tracedat_ioctls() needs a libgrtrace built with libtracecmd (its build
finds it with pkg-config; Debian: libtracecmd-dev).  TRACEDAT says whether
the library loaded has it, and TRACEDAT_MISSING why not.  Errors raise
grtrace.Error.
"""
import array
import ctypes

import grtrace

_lib = grtrace._lib
_E = ctypes.POINTER(grtrace._Error)
_u64p, _u32p = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32)
_u16p, _u8p = ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(ctypes.c_uint8)
COMM_LEN, RING_STR = 32, 64
SUMMARY = {0: None, 1: "slow", 2: "open"}


class _Ioctls(ctypes.Structure):
    _fields_ = [("n", ctypes.c_size_t), ("enter", _u64p), ("exit", _u64p),
                ("tid", _u32p), ("cmd", _u32p), ("task", _u32p),
                ("stray", ctypes.c_uint64), ("events", ctypes.c_uint64),
                ("ntask", ctypes.c_size_t), ("comm", ctypes.c_void_p),
                ("ties", ctypes.c_int), ("kind", _u32p),
                ("nkind", ctypes.c_size_t), ("kind_tid", _u32p),
                ("kind_cmd", _u32p), ("kind_task", _u32p),
                ("by_tid", _u32p)]


class _Gpu(ctypes.Structure):
    _fields_ = [("n", ctypes.c_size_t), ("ts", _u64p), ("ctx", _u64p),
                ("seqno", _u64p), ("ring", _u32p), ("pid", _u32p),
                ("tid", _u32p), ("type", _u16p), ("summary", _u16p),
                ("has_task", _u8p), ("nring", ctypes.c_size_t),
                ("ring_id", _u32p), ("ring_name", ctypes.c_void_p),
                ("ring_driver", ctypes.c_void_p)]


_lib.grtrace_is_tracedat.restype = ctypes.c_int
_lib.grtrace_is_tracedat.argtypes = [ctypes.c_char_p, _E]
_lib.grtrace_gpu_events.restype = ctypes.c_int
_lib.grtrace_gpu_events.argtypes = [ctypes.c_char_p,
                                    ctypes.POINTER(ctypes.POINTER(_Gpu)), _E]
_lib.grtrace_gpu_events_free.argtypes = [ctypes.POINTER(_Gpu)]
TRACEDAT = hasattr(_lib, "grtrace_tracedat_ioctls")
TRACEDAT_MISSING = None if TRACEDAT else \
    "the libgrtrace loaded (%s) was built without libtracecmd: install " \
    "libtracecmd-dev and rebuild it (make -C tools/grtrace libs)" % _lib._name
if TRACEDAT:
    _lib.grtrace_tracedat_ioctls.restype = ctypes.c_int
    _lib.grtrace_tracedat_ioctls.argtypes = [
        ctypes.c_char_p, ctypes.c_int64,
        ctypes.POINTER(ctypes.POINTER(_Ioctls)), _E]
    _lib.grtrace_ioctls_free.argtypes = [ctypes.POINTER(_Ioctls)]
_lib.grtrace_ioctls_find.restype = ctypes.c_long
_lib.grtrace_ioctls_find.argtypes = [ctypes.POINTER(_Ioctls), ctypes.c_uint32,
                                     ctypes.c_uint64, _E]
_lib.grtrace_ioctls_format.restype = ctypes.c_int
_lib.grtrace_ioctls_format.argtypes = [
    ctypes.POINTER(_Ioctls), ctypes.c_size_t, ctypes.c_size_t,
    ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
    ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(_u64p), _E]
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


_CODES = {8: "Q", 4: "I", 2: "H", 1: "B"}


def _col(ptr, n):
    """The @n values at @ptr as a list."""
    if not n:
        return []
    size = ctypes.sizeof(ptr._type_)
    a = array.array(_CODES[size])
    assert a.itemsize == size
    a.frombytes(ctypes.string_at(ptr, n * size))
    return a.tolist()


def _strings(ptr, n, width):
    raw = ctypes.string_at(ptr, n * width) if n else b""
    return [raw[i * width:(i + 1) * width].split(b"\0", 1)[0]
            .decode("utf-8", "backslashreplace") for i in range(n)]


def is_tracedat(path):
    """Whether @path begins as a trace-cmd trace.dat."""
    err = grtrace._Error()
    r = _lib.grtrace_is_tracedat(path.encode() if isinstance(path, str)
                                 else path, ctypes.byref(err))
    if r < 0:
        raise grtrace.Error(err)
    return bool(r)


class Columns:
    pass


class Ioctls:
    """The ioctls of a trace.dat, held by the library, sorted by enter.

    .n, .stray, .events, .ties (some share an enter); .enter, .exit,
    .tid, .cmd, .kind: arrays indexed by ioctl (copies of the library's,
    so that they outlive close() and this object); .comm(i); .kinds:
    [(tid, cmd, comm)] of the (thread, command) pairs that .kind indexes;
    .find(tid, ts); .format(texts, verbose); .columns() copies all to
    lists.  After close(), find() and format() raise ValueError, as a
    closed file does.
    """

    def __init__(self, p):
        self._p = p
        s = p.contents
        self.n, self.stray, self.events = s.n, s.stray, s.events
        self.ties = bool(s.ties)
        self._names = _strings(s.comm, s.ntask, COMM_LEN)
        self.kinds = list(zip(_col(s.kind_tid, s.nkind),
                              _col(s.kind_cmd, s.nkind),
                              [self._names[t] for t in
                               _col(s.kind_task, s.nkind)]))

        def arr(ptr):
            a = array.array("Q" if ptr._type_ is ctypes.c_uint64 else "I")
            if s.n:
                a.frombytes(ctypes.string_at(
                    ptr, s.n * ctypes.sizeof(ptr._type_)))
            return a
        self.enter, self.exit = arr(s.enter), arr(s.exit)
        self.tid, self.cmd, self.kind = arr(s.tid), arr(s.cmd), arr(s.kind)
        self._task = arr(s.task)

    def comm(self, i):
        return self._names[self._task[i]]

    def columns(self):
        """(enter, exit, tid, cmd, comm) as lists."""
        return (self.enter.tolist(), self.exit.tolist(), self.tid.tolist(),
                self.cmd.tolist(), [self._names[k] for k in self._task])

    def _open(self):
        if not self._p:
            raise ValueError("I/O operation on closed Ioctls")

    def find(self, tid, ts):
        """The index of @tid's ioctl whose interval holds @ts, or None."""
        self._open()
        err = grtrace._Error()
        i = _lib.grtrace_ioctls_find(self._p, tid, ts, ctypes.byref(err))
        if i < 0:
            if err.status:
                raise grtrace.Error(err)
            return None
        return i

    def format(self, texts, verbose=False, first=0, count=None):
        """The lines of ioctls @first .. @first + @count - 1 (default: to
        the last) as the library prints them, "ENTER cpu ioctl TEXT
        dur=NS", TEXT = texts[kind]: (data, offsets) where line i is
        data[offsets[i - first]:offsets[i - first + 1]]; data is a
        memoryview of the library's buffer, valid until the next format()
        or close()."""
        self._open()
        if len(texts) < len(self.kinds):
            raise ValueError("format(): %d texts for %d kinds of ioctl"
                             % (len(texts), len(self.kinds)))
        if count is None:
            count = self.n - first
        if getattr(self, "_texts", (None,))[0] is not texts:
            tv = (ctypes.c_char_p * max(len(texts), 1))(
                *[t.encode("utf-8", "backslashreplace") for t in texts])
            self._texts = (texts, tv)
        err = grtrace._Error()
        buf, size, off = ctypes.c_void_p(), ctypes.c_size_t(), _u64p()
        self._free_buf()
        if _lib.grtrace_ioctls_format(self._p, first, count, self._texts[1],
                                      int(verbose), ctypes.byref(buf),
                                      ctypes.byref(size), ctypes.byref(off),
                                      ctypes.byref(err)):
            raise grtrace.Error(err)
        try:
            offs = array.array("Q")
            offs.frombytes(ctypes.string_at(off, 8 * (count + 1)))
        finally:
            _libc.free(off)
        self._buf = buf
        return memoryview((ctypes.c_char * size.value).from_address(
            buf.value) if size.value else b"").cast("B"), offs

    def _free_buf(self):
        if getattr(self, "_buf", None):
            _libc.free(self._buf)
            self._buf = None

    def close(self):
        self._free_buf()
        if self._p:
            _lib.grtrace_ioctls_free(self._p)
            self._p = None

    def __del__(self):
        self.close()


def tracedat_ioctls(path, offset_ns=0):
    """The ioctls of a trace.dat, paired per thread (an Ioctls)."""
    if not TRACEDAT:
        raise RuntimeError(TRACEDAT_MISSING)
    err, p = grtrace._Error(), ctypes.POINTER(_Ioctls)()
    if _lib.grtrace_tracedat_ioctls(os_path(path), offset_ns,
                                    ctypes.byref(p), ctypes.byref(err)) < 0:
        raise grtrace.Error(err)
    return Ioctls(p)


def os_path(path):
    return path.encode() if isinstance(path, str) else path


def gpu_events(path):
    """The job events of a grtrace file in the merge's order: .ts .ctx
    .seqno .ring .type (names) .pid .tid (None without a task) .summary
    (None, "slow", "open"), and .rings {id: (name, driver)}."""
    err, p = grtrace._Error(), ctypes.POINTER(_Gpu)()
    if _lib.grtrace_gpu_events(os_path(path), ctypes.byref(p),
                               ctypes.byref(err)) < 0:
        raise grtrace.Error(err)
    try:
        s, c = p.contents, Columns()
        n = s.n
        c.ts, c.ctx, c.seqno = _col(s.ts, n), _col(s.ctx, n), _col(s.seqno, n)
        c.ring = _col(s.ring, n)
        c.type = [grtrace._type_name(t) for t in _col(s.type, n)]
        has = _col(s.has_task, n)
        c.pid = [v if h else None for v, h in zip(_col(s.pid, n), has)]
        c.tid = [v if h else None for v, h in zip(_col(s.tid, n), has)]
        c.summary = [SUMMARY.get(v, str(v)) for v in _col(s.summary, n)]
        c.rings = dict(zip(_col(s.ring_id, s.nring),
                           zip(_strings(s.ring_name, s.nring, RING_STR),
                               _strings(s.ring_driver, s.nring, RING_STR))))
    finally:
        _lib.grtrace_gpu_events_free(p)
    return c
