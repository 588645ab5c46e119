#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""public-only.py TOP DEBT - the tool's sources use only libgrtrace's
public header.

Every #include "..." of the tool's C files under TOP (the CLI, its
headers, the fuzz target, the test programs, the annotator; not lib/
itself), resolved as the compiler does (beside the including file), that
lands in lib/ but outside lib/include/grtrace/ is a private include.  DEBT
lists, one a line ("FILE<TAB>HEADERS"), the files that still have one
(the work left); the check fails on a private include of a file not
listed there, and on a listed file that has none any more (strike it).
Prints each offender; exits 1 on a failure.
"""
import os
import re
import sys


def private_includes(top):
    out = {}
    lib = os.path.normpath(os.path.join(top, "lib"))
    public = os.path.join(lib, "include", "grtrace")
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs
                   if os.path.normpath(os.path.join(d, x)) != lib]
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            p = os.path.normpath(os.path.join(d, f))
            with open(p, errors="replace") as fh:
                src = fh.read()
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', src, re.M):
                q = os.path.normpath(os.path.join(d, inc))
                if q.startswith(lib + os.sep) and \
                        not q.startswith(public + os.sep):
                    out.setdefault(os.path.relpath(p, top), []).append(
                        os.path.relpath(q, top))
    return out


def main():
    top, debt_path = sys.argv[1], sys.argv[2]
    found = private_includes(top)
    debt = {}
    with open(debt_path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                debt[line.split("\t")[0]] = line
    bad = 0
    for f in sorted(found):
        if f not in debt:
            print("%s includes a private header: %s" % (f, " ".join(found[f])))
            bad = 1
    for f in sorted(debt):
        if f not in found:
            print("%s includes no private header any more: strike it from %s"
                  % (f, debt_path))
            bad = 1
    print("%d files still include a private header: %s"
          % (len(found), " ".join(sorted(found))))
    return bad


if __name__ == "__main__":
    sys.exit(main())
