"""The statements the counterexample search judges its neighbours by, timed alone (issue 36 point 6's floor).

``python -m benchmarks._cx_floor OUT [ARGS...]`` runs ``python -m eval.run --suite sql ARGS`` in this one process
(``EVAL_PROCESSES=1``, so every search runs here) and writes to OUT, as JSON, how many neighbours were judged, how
many statements judging them ran, and the seconds those statements took by the read-only executor's own clock
(:attr:`services.readonly.executor.QueryResult.elapsed_ms`: the guarded connection's execute and fetch, with every
limit the issue asks a neighbour's statements to keep). Judging a neighbour cannot cost less than running the
reference, its ties and the answer on it, so those seconds spread over every core are the least wall time any
search that judges the same neighbours adds to the run, however cheaply it makes and writes them.

The two methods are wrapped here, in a benchmark's child, to read a clock the code already keeps; nothing the
run does or prints changes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    out, *args = argv
    os.environ["EVAL_PROCESSES"] = "1"
    from eval.cli.run import main as run
    from eval.sql.counterexample.search import Searcher
    from services.readonly.executor import ReadOnlyExecutor

    judging, totals = [False], {"neighbours": 0, "statements": 0, "seconds": 0.0}
    judge, execute = Searcher._judge, ReadOnlyExecutor.execute

    def timed_judge(self, *a, **k):  # type: ignore[no-untyped-def]
        judging[0] = True
        try:
            return judge(self, *a, **k)
        finally:
            judging[0] = False
            totals["neighbours"] += 1

    def timed_execute(self, sql, *a, **k):  # type: ignore[no-untyped-def]
        result = execute(self, sql, *a, **k)
        if judging[0]:
            totals["statements"] += 1
            totals["seconds"] += result.elapsed_ms / 1000.0
        return result

    Searcher._judge = timed_judge  # type: ignore[method-assign]
    ReadOnlyExecutor.execute = timed_execute  # type: ignore[method-assign]
    code = run(["--suite", "sql", *args])
    Path(out).write_text(json.dumps({**totals, "code": code}))
    return 0 if code in (0, 1) else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
