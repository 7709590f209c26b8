"""The built-in run with the counterexample search on, against the same run without it (issue 36 point 6).

Both are fresh ``python -m eval.run --suite sql`` processes with the built-in generator, as a user runs them, on
a warm fixture cache and warm bytecode (one of each first, not timed); the search at its default budget
(``--counterexamples`` without a value: :data:`eval.sql.model.defaults.DEFAULT_COUNTEREXAMPLES` neighbours per
pass). Target: at most 2x the wall time without it. Beside it, the peak memory of each (the largest process's
resident set), which the search must keep bounded like any other statement. Each line gives the median over
``BENCH_REPEATS`` repeats (default 3) and the range.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from benchmarks.bench_offline import REPEATS, _run
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
