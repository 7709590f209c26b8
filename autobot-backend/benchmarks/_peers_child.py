"""One measurement of ``bench_peers``, in a process of its own: two queries fetched and judged one way.

``python -m benchmarks._peers_child APPROACH DB REF_SQL CAND_SQL ORDERED`` prints one JSON line: the
verdict and the seconds of the work after start-up and the approach's imports (the parent also times the
whole process, start-up and imports included, as a user waits). Each approach imports only what it uses
(:data:`LIBRARIES`, before its clock starts), so the floor's process loads ``sqlite3`` and nothing else.

The peers are this project's own code of their published algorithms, not the tools themselves:

* ``defog``: defog sql-eval's ``compare_df``: both results read with pandas ``read_sql``, then, unless
  the question is ordered, each frame's columns renamed by position and its rows sorted on every
  column, NULLs filled with a sentinel, floats rounded, and ``DataFrame.equals``. Its fallback on a
  mismatch (``subset_df``, which looks for the reference's columns among the candidate's) is not
  reproduced: the figures are its fast path, the lower bound of its cost.
* ``testsuite``: the Spider test-suite grader's ``result_eq``: ``fetchall`` of both, the quick rejection
  on each row's values sorted by their text (as sets, or in order), then the column permutations the
  per-column value sets allow (20 sampled rows prune them past 3 columns), each tried as a set and then
  as a multiset.

``hashed``, ``startup`` and ``libraries`` are not peers but bounds: the least a grader that compares rows in
Python pays, a process that does nothing, and one that imports SQLAlchemy and sqlglot and does nothing else.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from typing import Any


def floor(db: str, ref: str, cand: str, ordered: bool) -> str:
    import sqlite3

    conn = sqlite3.connect(db)
    a, b = conn.execute(ref).fetchall(), conn.execute(cand).fetchall()
    return f"{len(a)}+{len(b)} rows"


def hashed(db: str, ref: str, cand: str, ordered: bool) -> str:
    """A plain ``fetchall`` of both and one exact comparison, no tolerance: the rows in order, or each result's
    ``Counter`` (every row hashed once), compared as dicts (``Counter.__eq__`` loops in Python, 3-4x slower on
    100k equal rows). The least a grader that compares the rows in Python was found to pay."""
    import sqlite3
    from collections import Counter

    conn = sqlite3.connect(db)
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
    return "match" if verdict.match else f"{verdict.reason}"


def defog(db: str, ref: str, cand: str, ordered: bool) -> str:
    import sqlite3

    import pandas as pd

    conn = sqlite3.connect(db)
    gold, gen = pd.read_sql(ref, conn), pd.read_sql(cand, conn)
    if gold.shape != gen.shape:
        return "mismatch"
    frames = []
    for df in (gold, gen):
        df = df.copy()
        df.columns = list(range(df.shape[1]))
        df = df.fillna(-99999)
        if not ordered:
            df = df.sort_values(by=list(df.columns)).reset_index(drop=True)
        frames.append(df.round(2))
    return "match" if frames[0].equals(frames[1]) else "mismatch"


def testsuite(db: str, ref: str, cand: str, ordered: bool) -> str:
    import sqlite3

    conn = sqlite3.connect(db)
    a, b = conn.execute(ref).fetchall(), conn.execute(cand).fetchall()
    return "match" if result_eq(a, b, ordered) else "mismatch"


def result_eq(result1: list[tuple[Any, ...]], result2: list[tuple[Any, ...]], order_matters: bool) -> bool:
    import random
    from collections import defaultdict
    from itertools import product

    if not result1 and not result2:
        return True
    if len(result1) != len(result2):
        return False
    num_cols = len(result1[0])
    if len(result2[0]) != num_cols:
        return False

    def unorder_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(sorted(row, key=lambda x: str(x) + str(type(x))))

    s1, s2 = [unorder_row(r) for r in result1], [unorder_row(r) for r in result2]
    if (s1 != s2) if order_matters else (set(s1) != set(s2)):
        return False
    tab1_sets = [{row[i] for row in result1} for i in range(num_cols)]
    constraints = [set(range(num_cols)) for _ in range(num_cols)]
    if num_cols > 3:
        rng = random.Random(0)
        for _ in range(20):
            row2 = rng.choice(result2)
            for col1 in range(num_cols):
                for col2 in set(constraints[col1]):
                    if row2[col2] not in tab1_sets[col1]:
                        constraints[col1].remove(col2)

    def multiset_eq(l1: list[tuple[Any, ...]], l2: list[tuple[Any, ...]]) -> bool:
        counts: dict[tuple[Any, ...], int] = defaultdict(int)
        for e in l1:
            counts[e] += 1
        for e in l2:
            counts[e] -= 1
            if counts[e] < 0:
                return False
        return True

    for perm in product(*constraints):
        if len(perm) != len(set(perm)):
            continue
        permuted = result2 if num_cols == 1 else [tuple(row[perm[i]] for i in range(num_cols)) for row in result2]
        if order_matters:
            if result1 == permuted:
                return True
        elif set(result1) == set(permuted) and multiset_eq(result1, permuted):
            return True
    return False


APPROACHES = {
    "floor": floor,
    "hashed": hashed,
    "startup": startup,
    "libraries": libraries,
    "harness": harness,
    "defog": defog,
    "testsuite": testsuite,
}
LIBRARIES = {
    "floor": ("sqlite3",),
    "hashed": ("sqlite3", "collections"),
    "startup": (),
    "libraries": ("sqlalchemy", "sqlglot"),
    "harness": ("sqlite3", "eval.sql.rows", "services.readonly.execute", "sqlalchemy.dialects.sqlite"),
    "defog": ("sqlite3", "pandas"),
    "testsuite": ("sqlite3",),
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
