"""Wall time to build every fixture (2 fixtures x 3 rotations) and to run the full self-check.

Both happen before any candidate is called on every ``--suite sql`` run, so they are the fixed
cost of a run. Each figure is the best of a few repeats, to keep a busy machine's noise out.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchmarks import best_of
from eval.sql.corpus.questions import load_corpus
from eval.sql.fixtures.seeded import FIXTURE_NAMES, build_rotations
from eval.sql.model.defaults import DEFAULT_ROTATIONS
from eval.sql.oracle.selfcheck import run_self_check
from services.readonly.execute import ReadOnlySQL

REPEATS = 3


def run() -> None:
    corpus = load_corpus()
    answerable = sum(q.expect == "answer" for q in corpus.questions)
    with tempfile.TemporaryDirectory(prefix="bench-fixtures-") as tmp, ReadOnlySQL() as database:

        def build() -> dict[str | None, list[str]]:
            return {f: build_rotations(f, Path(tmp), rotations=DEFAULT_ROTATIONS) for f in FIXTURE_NAMES}

        build_s, targets = best_of(build, REPEATS)
        check_s, result = best_of(lambda: run_self_check(database, corpus, targets), REPEATS)
    databases = len(FIXTURE_NAMES) * DEFAULT_ROTATIONS
    print(
        f"   build fixtures: {build_s:6.2f} s for {databases} databases "
        f"({len(FIXTURE_NAMES)} fixtures x {DEFAULT_ROTATIONS} rotations, {build_s / databases * 1000:.0f} ms each)"
    )
    print(
        f"   self-check:     {check_s:6.2f} s for {answerable} reference queries x {DEFAULT_ROTATIONS} rotations "
        f"({'ok' if result.ok else f'{len(result.defects)} defect(s)'})"
    )
    print(f"   together:       {build_s + check_s:6.2f} s (best of {REPEATS})")
