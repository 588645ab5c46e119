# SPDX-License-Identifier: GPL-2.0
"""One "ok NAME" / "not ok NAME" line per check, for run-tests.sh."""


class Verdicts:
    def __init__(self):
        self.failed = 0

    def result(self, name, ok, why=""):
        """@ok's verdict on @name; on a failure @why's first lines follow."""
        print(("ok %s" if ok else "not ok %s") % name)
        if not ok:
            self.failed = 1
            for line in str(why).splitlines()[:30] or ["(no message)"]:
                print("# " + line)
