"""End to end against the peers, as a user waits: each measurement a fresh process (issue 27 points 1, 2, 3, 6).

For every size (SQLite files of 10k and 100k rows x 5 columns, ``BENCH_PEERS_SIZES`` to choose; 1M
with ``BENCH_PEERS_1M=1``, behind a flag because it adds about ten minutes on two cores) and every
workload, these processes fetch the reference's and the candidate's result and judge them
(``benchmarks/_peers_child.py`` says what each peer stands for):

* ``floor``: a plain ``sqlite3`` ``fetchall`` of both, judging nothing: the least any grader pays;
* ``hashed``: the floor and one exact comparison (in order, or each result's ``Counter``): a bound;
* ``startup``: nothing at all, and ``libraries``: the imports of SQLAlchemy and sqlglot, nothing else: bounds;
* ``harness``: this project's path (the guard, the read-only executor, ``compare_with_ties``);
* ``defog``: pandas ``read_sql`` of both, then sort-and-compare the frames (defog sql-eval's ``compare_df``);
* ``testsuite``: ``fetchall`` of both, then the Spider test-suite's ``result_eq``.

A grader that imports its engine and parser, then fetches both results and compares them in Python in one
thread, takes at least ``libraries`` + ``hashed`` - ``startup`` (the interpreter starts once). A speed
target that asks the harness to take less is printed as unreachable, with that bound and its parts.

A process is timed from its start to its exit (interpreter start-up and imports included) and its
peak memory is its own high-water mark (``VmHWM``, which it reads before it exits; not ``ru_maxrss``,
which on Linux is at least the size of the process that forked it). They run back to back in each of
``BENCH_PEERS_REPEATS`` (default 5) rounds (``BENCH_PEERS_WORKLOADS``: some workloads only, by name,
``;`` between); a ratio is taken within a round and printed as its median with its range over the
rounds. The targets (issue 27) are checked on the medians and printed as met or not. Verdicts are
checked too: every approach must agree on match / mismatch, or the bench says so.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

APPROACHES = ("floor", "hashed", "startup", "libraries", "harness", "defog", "testsuite")
UNJUDGED = ("floor", "startup", "libraries")
"""Approaches that judge nothing (a fetch alone, or no work at all): their verdicts are not checked."""
SIZES = tuple(int(n) for n in os.environ.get("BENCH_PEERS_SIZES", "10000,100000").split(","))
if os.environ.get("BENCH_PEERS_1M") == "1":
    SIZES += (1_000_000,)
REPEATS = int(os.environ.get("BENCH_PEERS_REPEATS", "5"))
BACKEND = Path(__file__).resolve().parents[1]
SHUFFLE = "ORDER BY (id * 2654435761) % 4294967296"
DUPS = "cat, qty % 3, CAST(price AS INTEGER) % 4, 'x', 1"


@dataclass(frozen=True)
class Workload:
    name: str
    ref: str
    cand: str
    ordered: bool
    right: bool
    """Whether the candidate is the reference's answer."""
    twin: str | None = None
    """For a wrong answer, the right one of the same size and shape it is timed against."""


WORKLOADS = (
    Workload("equal, shuffled", "SELECT * FROM t", f"SELECT * FROM t {SHUFFLE}", False, True),
    Workload(
        "one value differs",
        "SELECT * FROM t",
        f"SELECT id, name, cat, CASE WHEN id = 777 THEN -1 ELSE qty END, price FROM t {SHUFFLE}",
        False,
        False,
        "equal, shuffled",
    ),
    Workload("ordered", "SELECT * FROM t ORDER BY id", "SELECT * FROM t ORDER BY id", True, True),
    Workload("many duplicates", f"SELECT {DUPS} FROM t", f"SELECT {DUPS} FROM t {SHUFFLE}", False, True),
    Workload(
        "duplicate counts differ",
        f"SELECT {DUPS} FROM t",
        f"SELECT {DUPS} FROM t WHERE id <> 5 UNION ALL SELECT {DUPS} FROM t WHERE id = 6",
        False,
        False,
        "many duplicates",
    ),
)
TARGETS: tuple[tuple[str, str, float], ...] = (
    ("harness <= 1.3x floor", "floor", 1.3),
    ("defog >= 3x harness", "defog", 1 / 3),
    ("testsuite >= 5x harness", "testsuite", 1 / 5),
)
"""(label, the approach the harness is held against, the most the harness may take as a share of its time)."""


Measured = tuple[float, int, str, float]
"""One process: seconds start to exit, peak MiB, verdict, seconds of work past start-up and imports."""


def build(path: Path, rows: int) -> None:
    rng = random.Random(rows)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER, name TEXT, cat TEXT, qty INTEGER, price REAL)")
        conn.executemany(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
            (
                (
                    i,
                    f"customer-{rng.randrange(50_000):05d}",
                    f"cat{rng.randrange(20)}",
                    rng.randrange(1, 20),
                    rng.randrange(1, 500_000) / 100,
                )
                for i in range(rows)
            ),
        )
    conn.close()


def measure(approach: str, db: Path, w: Workload) -> Measured:
    """Seconds from start to exit, peak RSS in MiB (the child's own ``VmHWM``), the verdict, and the
    seconds of the work past start-up and the approach's imports (the child's own clock)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(BACKEND), os.environ.get("PYTHONPATH")]))}
    args = [
        sys.executable,
        "-m",
        "benchmarks._peers_child",
        approach,
        str(db),
        w.ref,
        w.cand,
        "1" if w.ordered else "0",
    ]
    with tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(args, cwd=BACKEND, env=env, stdout=subprocess.PIPE, stderr=err, text=True)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        if proc.returncode:
            err.seek(0)
            raise RuntimeError(f"{approach} on {db.name} ({w.name}) failed: {err.read().strip()[-500:]}")
    reply = json.loads(out)
    peak_kib = reply["peak_kib"] or usage.ru_maxrss  # ru_maxrss: at least the forking process's, on Linux
    return elapsed, peak_kib // 1024, reply["verdict"], reply["work_s"]


def run() -> None:
    if not _has_pandas():
        print("   pandas is missing: install the bench extra (make bench does: pip install -e '.[bench]')")
        return
    print(f"   machine: {os.cpu_count()} cores, {_cpu()}; {REPEATS} rounds; sizes {', '.join(f'{s:,}' for s in SIZES)}")
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        for size in SIZES:
            db = Path(tmp) / f"t{size}.db"
            build(db, size)
            harness_times: dict[str, list[float]] = {}
            wanted = os.environ.get("BENCH_PEERS_WORKLOADS")  # names, separated by ";"
            for w in WORKLOADS if not wanted else [w for w in WORKLOADS if w.name in wanted.split(";")]:
                report(size, w, [round_of(db, w) for _ in range(REPEATS)], harness_times)


def round_of(db: Path, w: Workload) -> dict[str, Measured]:
    return {a: measure(a, db, w) for a in APPROACHES}


def report(size: int, w: Workload, rounds: list[dict[str, Measured]], harness_times: dict[str, list[float]]) -> None:
    def ratio(a: str, b: str) -> str:
        values = [r[a][0] / r[b][0] for r in rounds]
        return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"

    median = {a: statistics.median(r[a][0] for r in rounds) for a in APPROACHES}
    peak = {a: max(r[a][1] for r in rounds) for a in APPROACHES}
    verdicts = {a: {r[a][2] for r in rounds} for a in APPROACHES}
    judged = {a: "match" if v == {"match"} else "mismatch" for a, v in verdicts.items() if a not in UNJUDGED}
    expected = "match" if w.right else "mismatch"
    print(f"   {size:>9,} rows, {w.name}: " + ", ".join(f"{a} {median[a]:.2f} s / {peak[a]} MiB" for a in APPROACHES))
    line = [
        f"harness/floor {ratio('harness', 'floor')}",
        f"defog/harness {ratio('defog', 'harness')}",
        f"testsuite/harness {ratio('testsuite', 'harness')}",
    ]
    print("      " + "; ".join(line))
    work = [
        f"{a}/{b} {statistics.median(r[a][3] / r[b][3] for r in rounds):.2f}"
        for a, b in (("harness", "floor"), ("defog", "harness"), ("testsuite", "harness"))
    ]
    print("      (past start-up and imports, each process's own clock: " + "; ".join(work) + ")")
    print("      " + bounds_line(median, rounds))
    checks = [f"{label}: {verdict}" for label, verdict in target_verdicts(median).items()]
    checks.append(f"peak memory under both peers: {memory_verdict(peak)}")
    harness_times[w.name] = [r["harness"][0] for r in rounds]
    if w.twin in harness_times:
        twin = harness_times[w.twin]
        values = [mine / theirs for mine, theirs in zip(harness_times[w.name], twin)]
        slower = statistics.median(values)
        checks.append(
            f"wrong/right ({w.twin}) {slower:.2f} [{min(values):.2f}-{max(values):.2f}]: "
            f"{'met' if slower <= 1 else 'NOT met'}"
        )
    print("      " + "; ".join(checks))
    wrong_verdicts = [a for a, v in judged.items() if v != expected]
    if wrong_verdicts:
        print(
            f"      VERDICTS DISAGREE: expected {expected}; {', '.join(f'{a}: {verdicts[a]}' for a in wrong_verdicts)}"
        )


def target_verdicts(median: dict[str, float]) -> dict[str, str]:
    """Each speed target: met, NOT met, or NOT met and out of reach of any grader of this design on this workload.

    A grader imports its engine and its parser, reads both results and compares them in Python: in one thread
    it takes at least the imports (``libraries`` past ``startup``) plus a fetch and one hash of both results
    (``hashed``), each timed here as a whole process. A target that allows the harness less is unreachable.
    """
    imports, least = least_of(median)
    verdicts = {}
    for label, against, share in TARGETS:
        allowed = median[against] * share
        if median["harness"] <= allowed:
            verdicts[label] = "met"
        elif least > allowed:
            verdicts[label] = (
                f"NOT met, unreachable: it allows {allowed:.2f} s, and importing SQLAlchemy and sqlglot "
                f"({imports:.2f} s past start-up) then fetching and hashing both results once "
                f"({median['hashed']:.2f} s) take {least:.2f} s, {least / median['floor']:.2f}x the floor"
            )
        else:
            verdicts[label] = "NOT met"
    return verdicts


def least_of(values: Mapping[str, float]) -> tuple[float, float]:
    """The bound on one measure (seconds or MiB), as (its imports part, the whole): the libraries' past a bare
    interpreter's start-up, plus a process that fetches both results and hashes them once."""
    imports = max(0, values["libraries"] - values["startup"])
    return imports, imports + values["hashed"]


def memory_verdict(peak: dict[str, int]) -> str:
    """Peak memory under both peers: met, NOT met, or NOT met and out of reach, as :func:`target_verdicts` judges
    time: the libraries' memory past a bare interpreter's, plus a process holding both results and their hashes."""
    ceiling = min(peak["defog"], peak["testsuite"])
    if peak["harness"] < ceiling:
        return "met"
    imports, least = least_of(peak)
    if least >= ceiling:
        return (
            f"NOT met, unreachable: the peers' least is {ceiling} MiB, and importing SQLAlchemy and sqlglot "
            f"({imports} MiB past start-up) then holding and hashing both results ({peak['hashed']} MiB) "
            f"take {least} MiB"
        )
    return "NOT met"


def bounds_line(median: dict[str, float], rounds: list[dict[str, Measured]]) -> str:
    """The bounds and the peers against the floor, whole process and past start-up and imports."""
    work = {a: statistics.median(r[a][3] for r in rounds) for a in APPROACHES}
    return (
        "(against the floor, whole process / past start-up and imports: "
        + "; ".join(
            f"{a} {median[a] / median['floor']:.2f} / {work[a] / work['floor']:.2f}"
            for a in ("hashed", "harness", "defog", "testsuite")
        )
        + f"; start-up {median['startup']:.2f} s; SQLAlchemy and sqlglot imported alone {median['libraries']:.2f} s)"
    )


def _has_pandas() -> bool:
    import importlib.util

    return importlib.util.find_spec("pandas") is not None


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"
