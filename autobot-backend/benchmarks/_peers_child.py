"""One measurement of ``bench_peers``, in a process of its own: two queries fetched and judged one way.

``python -m benchmarks._peers_child APPROACH DB REF_SQL CAND_SQL ORDERED`` prints one JSON line: the
verdict and the seconds of the work after start-up and the approach's imports. Each approach imports only what
it uses (:data:`LIBRARIES`, before its clock starts), so the floor's process loads ``sqlite3`` and nothing else.

These are bounds and a breakdown, not peers (the peers are their own code: ``_real_peers.py``): ``floor`` (a
plain ``fetchall`` of both, judging nothing), ``hashed`` (the floor and one exact comparison: the least a grader
that compares the rows in Python pays), ``bounded`` (``hashed`` sorting in memory, as the executor must),
``startup`` (nothing at all), ``libraries`` (the imports of SQLAlchemy and
sqlglot, nothing else), and ``harness`` (this project's fetch and comparison alone, without the command around it).
"""

from __future__ import annotations

import importlib
import json
import sys
import time


def floor(db: str, ref: str, cand: str, ordered: bool) -> str:
    import sqlite3

    conn = sqlite3.connect(db)
    a, b = conn.execute(ref).fetchall(), conn.execute(cand).fetchall()
    return f"{len(a)}+{len(b)} rows"


def hashed(db: str, ref: str, cand: str, ordered: bool) -> str:
    """A plain ``fetchall`` of both and one exact comparison, no tolerance: the rows in order, or each result's
    ``Counter`` (every row hashed once), compared as dicts (``Counter.__eq__`` loops in Python, 3-4x slower on
    100k equal rows). The least a grader that compares the rows in Python was found to pay."""
    return _hashed(db, ref, cand, ordered, ())


def bounded(db: str, ref: str, cand: str, ordered: bool) -> str:
    """:func:`hashed` with the one setting of the executor's that changes what a statement costs: its sorts and
    temporary tables in memory (``PRAGMA temp_store = MEMORY``, ``services/readonly/sqlite_file.py``), where the
    heap limit bounds them, not in temporary files on disk, which nothing bounds. The least a grader pays that a
    hostile answer's sort cannot fill the disk of: a breakdown of the bound, not a target."""
    return _hashed(db, ref, cand, ordered, ("PRAGMA temp_store = MEMORY",))


def _hashed(db: str, ref: str, cand: str, ordered: bool, pragmas: tuple[str, ...]) -> str:
    import sqlite3
    from collections import Counter

    conn = sqlite3.connect(db)
    for pragma in pragmas:
        conn.execute(pragma)
    a, b = conn.execute(ref).fetchall(), conn.execute(cand).fetchall()
    same = a == b if ordered else dict.__eq__(Counter(a), Counter(b))
    return "match" if same else "mismatch"


def startup(db: str, ref: str, cand: str, ordered: bool) -> str:
    """Nothing at all: the interpreter's own start-up and exit, which every other process pays too."""
    return "started"


def libraries(db: str, ref: str, cand: str, ordered: bool) -> str:
    """Nothing past the imports of SQLAlchemy and sqlglot (the engine and the guard's parser): what a grader
    built on them pays before it reads a row, whatever it does next."""
    return "imported"


def harness(db: str, ref: str, cand: str, ordered: bool) -> str:
    """The grader's path: the guard and the read-only executor for both (the reference as a reference, the
    answer under a row cap that admits it), then the comparison ``eval.run`` makes (``compare_with_ties``)."""
    from eval.sql.rows import compare_with_ties
    from services.readonly.execute import ReadOnlySQL

    # --statement-timeout raised as a user grading 1M rows on a busy machine would (10 s by default).
    with ReadOnlySQL(row_cap=2_000_000, max_result_bytes=1 << 30, timeout_s=600) as database:
        url = f"sqlite:///{db}"
        expected = database.run_readonly(ref, url, reference=True)
        got = database.run_readonly(cand, url)
    if not (expected.ok and got.ok):
        return f"error: {expected.reason or got.reason}"
    verdict = compare_with_ties(
        expected.rows,
        got.rows,
        None,
        ordered=ordered,
        expected_ncols=len(expected.columns),
        actual_ncols=len(got.columns),
    )
    return "match" if verdict.match else "mismatch"


APPROACHES = {
    "floor": floor,
    "hashed": hashed,
    "bounded": bounded,
    "startup": startup,
    "libraries": libraries,
    "harness": harness,
}
LIBRARIES = {
    "floor": ("sqlite3",),
    "hashed": ("sqlite3", "collections"),
    "bounded": ("sqlite3", "collections"),
    "startup": (),
    "libraries": ("sqlalchemy", "sqlglot"),
    "harness": ("sqlite3", "eval.sql.rows", "services.readonly.execute", "sqlalchemy.dialects.sqlite"),
}
"""What each approach imports before its work, imported first so that ``work_s`` leaves it out."""


def main(argv: list[str]) -> int:
    approach, db, ref, cand, ordered = argv
    for name in LIBRARIES[approach]:
        importlib.import_module(name)
    started = time.perf_counter()
    verdict = APPROACHES[approach](db, ref, cand, ordered == "1")
    work_s = time.perf_counter() - started
    print(json.dumps({"verdict": verdict, "work_s": work_s, "peak_kib": peak_kib()}))
    return 0


def peak_kib() -> int | None:
    """This process's peak resident memory since it began running Python (``VmHWM``, Linux), or None.

    Not ``ru_maxrss``: Linux carries the high-water mark of the process it was forked from across
    ``exec``, so every child of a large bench process would seem to be at least that large."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def cpu_name() -> str:
    """The processor's model name (``/proc/cpuinfo``), for naming the machine a figure was measured on."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
