"""Running a statement or an inspection in a fresh process and reading what it cost: time, and peak memory.

A peak resident set size is a property of a whole process, so each measurement runs in its own: a
Python child that opens the database with the read-only executor, runs what it is given and prints
one JSON line (the outcome, its seconds, its own peak RSS and the DuckDB worker's, read from
``/proc/PID/status``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

BACKEND = Path(__file__).resolve().parents[1]
GB = 1 << 30
MB = 1 << 20

_MEASURE = r"""
import json, sys, time
from services.readonly import duckdb_process
from services.readonly.execute import ReadOnlySQL
from services.readonly.executor import ExecutionError

def peak(pid):  # VmHWM: the peak of this process image (ru_maxrss would include what its parent had at fork)
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))

url, what, timeout_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
out = {"worker_rss": 0}
started = time.monotonic()
with ReadOnlySQL(timeout_s=timeout_s) as service:
    executor = service.executor(url)
    try:
        if what == "schema":
            out["schema"] = service.schema(url).describe()
        else:
            out["rows"] = len(executor.execute(what).rows)
    except ExecutionError as exc:
        out["kind"], out["message"] = exc.kind, exc.message
    out["seconds"] = time.monotonic() - started
    out["after"] = service.run_readonly("SELECT 1", url).rows  # the database still answers
    if duckdb_process.worker_pid() is not None:
        out["worker_rss"] = peak(duckdb_process.worker_pid())
out["self_rss"] = peak("self")
print(json.dumps(out, default=str))
"""


def measure(url: str, what: str, *, timeout_s: float, wall_s: float = 120.0) -> dict[str, Any]:
    """Run ``what`` (SQL, or ``"schema"`` for an inspection with sampling) on ``url`` in a fresh process.

    Returns the child's JSON: ``kind``/``message`` or ``rows`` or ``schema``; ``seconds``; ``after`` (the
    rows of ``SELECT 1`` run afterwards); ``self_rss`` and ``worker_rss``, the peak resident bytes of the
    process and of the DuckDB worker (0 when there is none).
    """
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, url, what, str(timeout_s)],
        cwd=BACKEND,
        capture_output=True,
        text=True,
        timeout=wall_s,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["stderr"] = done.stderr
    return result


def run_python(script: str, *args: str, cwd: Path | None = None, wall_s: float = 120.0) -> str:
    """``script`` run by a fresh Python (in ``cwd``, the backend's folder by default); its stdout (it must exit 0)."""
    env = {**os.environ, "PYTHONPATH": str(BACKEND)}
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd or BACKEND,
        env=env,
        capture_output=True,
        text=True,
        timeout=wall_s,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout
