"""Running a statement or an inspection in a fresh process and reading what it cost: work, and peak memory.

A peak resident set size is a property of a whole process, so each measurement runs in its own: a
Python child that opens the database with the read-only executor, runs what it is given and prints
one JSON line (the outcome, its wall seconds, the CPU seconds it and the DuckDB worker spent, its own peak
RSS and the worker's, read from ``/proc/PID/status`` and ``/proc/PID/stat``).

Time under load (issue 37 point 6). A test never bounds wall time: on a machine kept busy by other processes a
statement of 1 s of work takes 5 s of wall time, and a deadline of 5 s fires where it never does on a quiet
one. What a bound of the code shows is its effect: the work done before it stopped (CPU seconds, which
another process's load does not inflate: a statement that ran on past its deadline would show its whole
work), the outcome it gave (``timeout``, ``row_cap``), a worker killed. Where a test waits for something to
happen, it waits up to :data:`PATIENCE_S`, which only a hang exceeds. How fast a thing is, is a benchmark's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

BACKEND = Path(__file__).resolve().parents[1]
GB = 1 << 30
MB = 1 << 20
PATIENCE_S = 120.0
"""How long a test waits for what must happen (a process to stop, a reply to come): a guard against a hang,
never a measure of speed."""


def cpu_seconds(pid: int | str = "self") -> float:
    """The CPU seconds (user and system) process ``pid`` has spent, from ``/proc/PID/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


_MEASURE = r"""
import json, os, sys, time
from services.readonly import duckdb_process
from services.readonly.execute import ReadOnlySQL
from services.readonly.executor import ExecutionError

def peak(pid):  # VmHWM: the peak of this process image (ru_maxrss would include what its parent had at fork)
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))

def cpu(pid):  # user and system CPU seconds of a process: the work, which other processes' load does not inflate
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

url, what, timeout_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
out = {"worker_rss": 0}
started = time.monotonic()
# The sampling budget of an inspection is as long as the statement limit: at a load of 24 the default 30 s for
# all the sampling ran out before the heap limit ended the second column's sample (under-load, issue 37).
with ReadOnlySQL(timeout_s=timeout_s, sampling_s=timeout_s) as service:
    executor = service.executor(url)
    try:
        if what == "schema":
            out["schema"] = service.schema(url).describe()
        else:
            out["rows"] = len(executor.execute(what).rows)
    except ExecutionError as exc:
        out["kind"], out["message"] = exc.kind, exc.message
    out["seconds"] = time.monotonic() - started
    worker = duckdb_process.worker_pid()
    out["cpu_seconds"] = cpu("self") + (cpu(worker) if worker is not None else 0.0)
    out["after"] = service.run_readonly("SELECT 1", url).rows  # the database still answers
    if duckdb_process.worker_pid() is not None:
        out["worker_rss"] = peak(duckdb_process.worker_pid())
out["self_rss"] = peak("self")
print(json.dumps(out, default=str))
"""


def measure(url: str, what: str, *, timeout_s: float, wall_s: float = PATIENCE_S) -> dict[str, Any]:
    """Run ``what`` (SQL, or ``"schema"`` for an inspection with sampling) on ``url`` in a fresh process.

    ``timeout_s`` bounds each statement and, for ``"schema"``, all the value sampling together.
    Returns the child's JSON: ``kind``/``message`` or ``rows`` or ``schema``; ``seconds`` (wall) and
    ``cpu_seconds`` (the child's and the DuckDB worker's work, including starting the interpreter); ``after``
    (the rows of ``SELECT 1`` run afterwards); ``self_rss`` and ``worker_rss``, the peak resident bytes of the
    process and of the DuckDB worker (0 when there is none).
    """
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, url, what, str(timeout_s)],
        cwd=BACKEND,
        capture_output=True,
        text=True,
        timeout=wall_s,
        check=False,
        preexec_fn=as_typed_at_a_terminal,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["stderr"] = done.stderr
    return result


def as_typed_at_a_terminal() -> None:
    """Run in a child before it starts: Ctrl-C as a command typed at a terminal gets it. A suite started in the
    background (``cmd &`` in a script, ``nohup``) hands its children SIGINT ignored, and Python then installs no
    handler of its own: a test sending SIGINT to the child found it ignored (``.ci/under-load`` in the background)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_python(script: str, *args: str, cwd: Path | None = None, wall_s: float = PATIENCE_S) -> str:
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
        preexec_fn=as_typed_at_a_terminal,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout
