#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""public-only.py TOP - the tool's sources use only libgrtrace's public
header.

Every #include "..." of the tool's C files under TOP (the CLI, its
headers, the fuzz target, the test programs, the annotator; not lib/
itself, whose own tests live in lib/tests/), resolved as the compiler
does (beside the including file), that lands in lib/ but outside
lib/include/grtrace/ is a private include, and fails the check: the tool
links the public libgrtrace, which has nothing else to offer.  Prints
each offender; exits 1 if there is one.
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
    found = private_includes(sys.argv[1])
    for f in sorted(found):
        print("%s includes a private header: %s" % (f, " ".join(found[f])))
    print("%d files include a private header%s"
          % (len(found), ": " + " ".join(sorted(found)) if found else ""))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
