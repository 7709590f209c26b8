"""``python benchmarks/_launch.py OUT CMD...``: run CMD, then write its wall seconds, CPU seconds (its own and its
waited-for children's, user and system), peak memory and exit code to OUT (JSON); exit with its code.

A process's ``ru_maxrss`` on Linux is at least the size of the process that forked it (the mark crosses
``exec``), so a command started straight from a bench process that has grown would seem to be that big.
Started from this small process instead, its mark is its own (or this process's few MiB, whichever is
larger), and its largest waited-for child's. The clock is this process's, from just before CMD starts to
its exit, so this process's own start-up is not counted. Run by path, it imports nothing of the project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    out, *command = argv
    started = time.perf_counter()
    proc = subprocess.Popen(command)
    _, status, usage = os.wait4(proc.pid, 0)
    wall_s = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    with open(out, "w") as f:
        cpu_s = usage.ru_utime + usage.ru_stime
        json.dump({"wall_s": wall_s, "cpu_s": cpu_s, "peak_kib": usage.ru_maxrss, "code": code}, f)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
