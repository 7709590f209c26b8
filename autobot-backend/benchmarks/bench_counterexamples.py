"""The built-in run with the counterexample search on, against the same run without it (issue 36 point 6).

Both are fresh ``python -m eval.run --suite sql`` processes with the built-in generator, as a user runs them, on
a warm fixture cache and warm bytecode (one of each first, not timed); the search at its default budget
(``--counterexamples`` without a value: :data:`eval.sql.model.defaults.DEFAULT_COUNTEREXAMPLES` neighbours per
pass). Target: at most 2x the wall time without it. Beside it, the peak memory of each (the largest process's
resident set), which the search must keep bounded like any other statement. Each line gives the median over
``BENCH_REPEATS`` repeats (default 3) and the range.

Last, the floor at this budget (``_cx_floor.py``, one run in one process): the seconds the statements that judge
the search's neighbours take alone (the reference, its ties and the answer on each, through the read-only
executor). Spread over every core they are the least any search judging the same neighbours adds, however
cheaply it makes and writes them; the line says whether 2x is within reach at this budget at all.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchmarks.bench_offline import BACKEND, REPEATS, _run
from eval.sql.model.defaults import DEFAULT_COUNTEREXAMPLES

TARGET_RATIO = 2.0


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-cx-") as tmp:
        work = Path(tmp)
        _run([], work)  # warm: the fixture cache and the page cache, as a user's second run finds them
        _run(["--counterexamples"], work)
        plain, searched, ratios = [], [], []
        for _ in range(REPEATS):
            off = _run([], work)
            on = _run(["--counterexamples"], work)
            plain.append(off)
            searched.append(on)
            ratios.append(on[0] / off[0])
        off_s = statistics.median(s for s, _ in plain)
        on_s = statistics.median(s for s, _ in searched)
        ratio = statistics.median(ratios)
        print(
            f"   built-in run without the search: {off_s:.2f} s ({min(s for s, _ in plain):.2f}-"
            f"{max(s for s, _ in plain):.2f}), peak {max(k for _, k in plain) // 1024} MiB"
        )
        print(
            f"   with --counterexamples ({DEFAULT_COUNTEREXAMPLES} neighbours per pass): {on_s:.2f} s "
            f"({min(s for s, _ in searched):.2f}-{max(s for s, _ in searched):.2f}), "
            f"peak {max(k for _, k in searched) // 1024} MiB"
        )
        verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
        print(
            f"   with / without: {ratio:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}); at most {TARGET_RATIO:g}x: "
            f"{verdict}"
        )
        floor = measure_floor(work)
        print("   " + floor_line(off_s, floor["seconds"], int(floor["neighbours"]), int(floor["statements"])))


def floor_line(off_s: float, statements_s: float, neighbours: int, statements: int, cores: int | None = None) -> str:
    """The least ratio any search judging these neighbours reaches: the run without it, plus its judging
    statements spread perfectly over every core (nothing else: no neighbour made, checked or written)."""
    cores = cores or os.cpu_count() or 1
    least = (off_s + statements_s / cores) / off_s
    verdict = "within reach" if least <= TARGET_RATIO else "unreachable at this budget"
    return (
        f"floor: judging {neighbours:,} neighbours (a counterexample's shrinking included) ran {statements:,} "
        f"statements through the read-only executor, {statements_s:.2f} s in one process; over {cores} cores at "
        f"least {statements_s / cores:.2f} s added to {off_s:.2f} s, {least:.2f}x; {TARGET_RATIO:g}x is {verdict}"
    )


def measure_floor(work: Path, args: Sequence[str] = ("--counterexamples",)) -> dict[str, float]:
    """One run of ``_cx_floor.py`` (``args``: the run's flags, the default budget unless given): neighbours judged,
    statements, their seconds."""
    out = work / "floor.json"
    subprocess.run(
        [sys.executable, "-m", "benchmarks._cx_floor", str(out), *args],
        cwd=BACKEND,
        env={**os.environ, "EVAL_OUTPUT_DIR": str(work)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    found: dict[str, float] = json.loads(out.read_text())
    return found
