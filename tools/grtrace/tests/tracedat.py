# SPDX-License-Identifier: GPL-2.0
"""trace-cmd's trace.dat, version 6 (trace-cmd.dat.v6(5)), for tests.

Written from the manual page, for merge_timeline.py's tests and its
benchmark; nothing here reads a trace.dat for merge_timeline.py (libtracecmd
does, through libgrtrace).

    strip(data)             a trace.dat without what ioctls do not need
                            (kallsyms, ...), its CPU data moved to match
    write(template, f, pages_of, cmdlines)
                            a trace.dat with @template's headers (event
                            formats, options; cmdlines unless given) and
                            new CPU data
    ioctl_pages(ioctls, ids, page_size)
                            ring-buffer pages holding sys_enter_ioctl and
                            sys_exit_ioctl events

Only little-endian files with 8-byte longs, as x86-64 writes them.
"""
import struct

MAGIC = b"\x17\x08Dtracing"


class Layout:
    """Where the sections of a v6 trace.dat are."""

    def __init__(self, d):
        if d[:10] != MAGIC or d[10:12] != b"6\0":
            raise ValueError("not a trace.dat version 6")
        if d[12] != 0 or d[13] != 8:
            raise ValueError("not little-endian with 8-byte longs")
        self.page_size, = struct.unpack_from("<I", d, 14)
        p = 18
        for name in (b"header_page\0", b"header_event\0"):
            if d[p:p + len(name)] != name:
                raise ValueError("no %s at %d" % (name[:-1].decode(), p))
            n, = struct.unpack_from("<Q", d, p + len(name))
            p += len(name) + 8 + n
        self.ftrace = p
        n, = struct.unpack_from("<I", d, p)
        p += 4
        for _ in range(n):
            s, = struct.unpack_from("<Q", d, p)
            p += 8 + s
        self.events = p
        nsys, = struct.unpack_from("<I", d, p)
        p += 4
        for _ in range(nsys):
            p = d.index(b"\0", p) + 1
            ne, = struct.unpack_from("<I", d, p)
            p += 4
            for _ in range(ne):
                s, = struct.unpack_from("<Q", d, p)
                p += 8 + s
        self.kallsyms = p
        k, = struct.unpack_from("<I", d, p)
        p += 4 + k
        self.printk = p
        k, = struct.unpack_from("<I", d, p)
        p += 4 + k
        self.cmdlines = p
        k, = struct.unpack_from("<Q", d, p)
        p += 8 + k
        self.cpus_at = p
        self.cpus, = struct.unpack_from("<I", d, p)
        p += 4
        self.options = p
        if d[p:p + 10] == b"options  \0":
            p += 10
            while True:
                o, = struct.unpack_from("<H", d, p)
                p += 2
                if not o:
                    break
                s, = struct.unpack_from("<I", d, p)
                p += 4 + s
        if d[p:p + 10] != b"flyrecord\0":
            raise ValueError("no flyrecord at %d" % p)
        self.flyrecord = p
        p += 10
        self.cpu_data = [struct.unpack_from("<QQ", d, p + 16 * i)
                         for i in range(self.cpus)]
        self.end = p + 16 * self.cpus


def _assemble(head, page_size, datas):
    """@head (up to "flyrecord\\0", its CPU count set), the CPU table, the
    CPU data page-aligned."""
    table = len(head) + 16 * len(datas)
    off = (table + page_size - 1) // page_size * page_size
    out, parts = [head], []
    for data in datas:
        parts.append(struct.pack("<QQ", off if data else 0, len(data)))
        off += len(data)
    out += parts
    pos = table
    pad = (pos + page_size - 1) // page_size * page_size - pos
    out.append(b"\0" * pad)
    out += datas
    return b"".join(out)


def strip(d):
    """@d without the ftrace plugins' event formats, kallsyms and printk
    formats (the bulk of a recording, none of it needed for ioctls)."""
    lo = Layout(d)
    head = (d[:lo.ftrace] + struct.pack("<I", 0) + d[lo.events:lo.kallsyms] +
            struct.pack("<I", 0) + struct.pack("<I", 0) +
            d[lo.cmdlines:lo.flyrecord + 10])
    datas = [d[o:o + s] for o, s in lo.cpu_data]
    return _assemble(head, lo.page_size, datas)


def write(template, f, pages_of, cmdlines=None):
    """A trace.dat with @template's headers and, for CPU i, the pages
    pages_of[i] (bytes, whole pages); written to the file object @f.
    @cmdlines, {pid: comm}, replaces the template's."""
    lo = Layout(template)
    if cmdlines is not None:
        text = "".join("%d %s\n" % kv for kv in sorted(cmdlines.items()))
        text = text.encode()
        template = (template[:lo.cmdlines] + struct.pack("<Q", len(text)) +
                    text + template[lo.cpus_at:lo.end])
        lo = Layout(template)
    head = bytearray(template[:lo.flyrecord + 10])
    struct.pack_into("<I", head, lo.cpus_at, len(pages_of))
    f.write(_assemble(bytes(head), lo.page_size, list(pages_of)))


def event_ids(template):
    """{name: id} of the event formats in @template's headers."""
    ids, p = {}, 0
    while True:
        p = template.find(b"name: ", p)
        if p < 0:
            return ids
        e = template.index(b"\n", p)
        q = template.find(b"ID: ", e)
        if q == e + 1:
            ids[template[p + 6:e].decode()] = int(template[q + 4:template.index(b"\n", q)])
        p = e


ENTER = struct.Struct("<HBBiiIQQQ")     # common, __syscall_nr, pad, fd cmd arg
EXIT = struct.Struct("<HBBiiIq")        # common, __syscall_nr, pad, ret
NR_IOCTL = 16


def ioctl_pages(events, ids, page_size=4096):
    """Pages of ring buffer holding @events: (ts, pid, cmd or None for an
    exit), in time order, deltas below 2^27 ns."""
    enter_id, exit_id = ids["sys_enter_ioctl"], ids["sys_exit_ioctl"]
    hdr_enter = 10          # type_len: 40 bytes of data
    hdr_exit = 6            # 24 bytes
    room = page_size - 16
    pages, page, used, last = [], bytearray(page_size), 0, None
    page_ts = None
    for ts, pid, cmd in events:
        size = 4 + (40 if cmd is not None else 24)
        if page_ts is None or used + size > room:
            if page_ts is not None:
                struct.pack_into("<QQ", page, 0, page_ts, used)
                pages.append(bytes(page))
                page = bytearray(page_size)
            page_ts, used, last = ts, 0, ts
        delta = ts - last
        last = ts
        if cmd is not None:
            struct.pack_into("<I", page, 16 + used, hdr_enter | delta << 5)
            ENTER.pack_into(page, 20 + used, enter_id, 0, 0, pid, NR_IOCTL,
                            0, 3, cmd, 0x7ffc1000)
        else:
            struct.pack_into("<I", page, 16 + used, hdr_exit | delta << 5)
            EXIT.pack_into(page, 20 + used, exit_id, 0, 0, pid, NR_IOCTL, 0, 0)
        used += size
    if page_ts is not None:
        struct.pack_into("<QQ", page, 0, page_ts, used)
        pages.append(bytes(page))
    return b"".join(pages)
