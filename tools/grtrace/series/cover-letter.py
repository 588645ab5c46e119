#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cover-letter.py SERIESDIR COVER KSRC - fill git format-patch's cover
letter COVER (its SUBJECT and BLURB placeholders) from SERIESDIR/cover.txt
and the figures in SERIESDIR/figures."""

import os
import re
import sys
import textwrap


def figures(path):
    f = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            k, _, v = line.partition("=")
            f[k] = v
    return f


def kernel_version(ksrc):
    mk = open(os.path.join(ksrc, "Makefile")).read()
    v = [re.search(r"^%s = *(\S*)" % k, mk, re.M).group(1)
         for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL")]
    return ".".join(v)


def reflow(text, width=72):
    """Rewrap the prose once the figures are in: plain paragraphs and
    " - " bullets; headings and indented blocks stay as they are."""
    out = []
    for para in text.split("\n\n"):
        lines = para.split("\n")
        if len(lines) > 1 and set(lines[1]) <= set("-="):
            out.append(para)
        elif para.startswith(" - ") or "\n - " in para:
            items, cur = [], []
            for line in lines:
                if line.startswith(" - ") and cur:
                    items.append(cur)
                    cur = []
                cur.append(line.strip().lstrip("- ") if not cur else line.strip())
            items.append(cur)
            out.append("\n".join(textwrap.fill(" ".join(i), width,
                                                 initial_indent=" - ",
                                                 subsequent_indent="   ",
                                                 break_on_hyphens=False)
                                   for i in items))
        elif para.startswith("  "):
            out.append(para)
        else:
            out.append(textwrap.fill(" ".join(l.strip() for l in lines), width,
                                     break_on_hyphens=False))
    return "\n\n".join(out)


def main():
    here, cover, ksrc = sys.argv[1:4]
    fig = figures(os.path.join(here, "figures"))
    fig["kversion"] = kernel_version(ksrc)
    fig["cost_ratio"] = "%.2f" % (float(fig["cost_grtrace_ns"]) /
                                  float(fig["cost_ftrace_ns"]))
    fig["cost_floor_ratio"] = "%.2f" % (float(fig["cost_grtrace_ns"]) /
                                        float(fig["cost_floor_ns"]))
    fig["bytes_ratio"] = "%.2f" % (float(fig["bytes_grtrace"]) /
                                   float(fig["bytes_tracecmd"]))
    text = open(os.path.join(here, "cover.txt")).read()
    try:
        text = text.format(**fig)
    except KeyError as e:
        sys.exit("cover-letter.py: cover.txt names no figure %s" % e)
    subject, _, blurb = text.partition("\n\n")
    blurb = reflow(blurb.strip("\n"))
    letter = open(cover).read()
    for ph in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
        if ph not in letter:
            sys.exit("cover-letter.py: %s: no '%s'" % (cover, ph))
    letter = letter.replace("*** SUBJECT HERE ***", subject.strip())
    letter = letter.replace("*** BLURB HERE ***", blurb.rstrip())
    open(cover, "w").write(letter)


main()
