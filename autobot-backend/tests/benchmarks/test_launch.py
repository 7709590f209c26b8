"""The benchmarks' launcher (``benchmarks/_launch.py``): a command's peak memory is its own, not that of the
large process that started it (``ru_maxrss`` on Linux carries the forking process's mark across ``exec``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BACKEND = Path(__file__).resolve().parents[2]
SMALL = [sys.executable, "-c", "import sys; sys.exit(3)"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the inherited mark is Linux's")
def test_a_small_command_started_from_a_large_process_is_measured_small(tmp_path):
    ballast = b"x" * (300 << 20)  # this process holds 300 MiB, touched
    out = tmp_path / "measured.json"
    done = subprocess.run([sys.executable, str(BACKEND / "benchmarks" / "_launch.py"), str(out), *SMALL])
    measured = json.loads(out.read_text())
    assert (done.returncode, measured["code"]) == (3, 3)
    assert measured["peak_kib"] < 100 << 10
    assert 0 < measured["wall_s"] < 30
    # The control: started straight from this process, the same command seems as large as this one.
    proc = subprocess.Popen(SMALL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # waited for here: Popen must not wait again
    assert usage.ru_maxrss > 250 << 10
    del ballast
