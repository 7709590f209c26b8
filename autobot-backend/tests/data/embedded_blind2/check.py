"""Check every reference answer of the second blind set on seeds 0, 1 and 2 of its schema.

Run from ``autobot-backend/``::

    ../.venv/bin/python -m tests.data.embedded_blind2.check            # exit 0 when the set is sound
    ../.venv/bin/python -m tests.data.embedded_blind2.check --db-dir D # also keep the SQLite files in D

Per question, the first set's checks (``tests/data/embedded_blind/check.py``): the reference runs
on every seed and returns rows; a scalar is one non-NULL, non-zero value; nothing rounds to zero
at two decimals; the answer is not the same on all seeds; ordered answers, ``LIMIT`` cut-offs
and order-sensitive windows have no ties. Across the set: no two questions near-duplicates,
the sizes of this set's brief, must-refuse cases and controls in every file, and no question a
near-duplicate of one in the first blind set (compared by program; only this set's ids are
printed, so the first set's questions stay unread).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

import sqlalchemy as sa

from eval.sql import fixtures
from tests.data.embedded_blind import blindset as first_set
from tests.data.embedded_blind import check as first_check
from tests.data.embedded_blind.check import Engines, check_question, near_duplicates, overlap_with
from tests.data.embedded_blind2 import schema_airline, schema_university
from tests.data.embedded_blind2.blindset2 import HERE, SCHEMAS, Question, load_set

BUILDERS: dict[str, Callable[[sa.Engine, int], None]] = {
    "retail": lambda engine, seed: fixtures.build(engine, "retail", seed),
    "retail_24m": lambda engine, seed: fixtures.build(engine, "retail_24m", seed),
    "airline": schema_airline.build,
    "university": schema_university.build,
}

MINIMUMS: dict[tuple[tuple[str, ...], str], int] = {
    (("retail", "retail_24m"), "tune"): 60, (("retail", "retail_24m"), "holdout"): 40,
    **{((s,), "tune"): 25 for s in ("airline", "university")},
    **{((s,), "holdout"): 15 for s in ("airline", "university")},
}
MIN_REFUSALS_PER_FILE = 3
MIN_CONTROLS_PER_FILE = 1


def build_engines(schemas: Iterable[str], db_dir: Path | None = None) -> Engines:
    """One engine per (schema, seed) of this set's schemas: in memory, or SQLite files in ``db_dir``."""
    return first_check.build_engines(schemas, db_dir, BUILDERS)


def size_problems(questions: list[Question]) -> list[str]:
    """This brief's minimum counts of answerable questions; refusals and controls in every file."""
    answerable = Counter((q.schema, q.split) for q in questions if q.answerable)
    problems = []
    for (schemas, split), minimum in MINIMUMS.items():
        have = sum(answerable[s, split] for s in schemas)
        if have < minimum:
            problems.append(f"{'+'.join(schemas)} {split}: {have} answerable questions, the brief asks for {minimum}")
    refusals = Counter((q.schema, q.split) for q in questions if not q.answerable)
    controls = Counter((q.schema, q.split) for q in questions if q.answerable and q.stratum.startswith("control-"))
    for schema, split in sorted({(q.schema, q.split) for q in questions}):
        if refusals[schema, split] < MIN_REFUSALS_PER_FILE:
            problems.append(f"{schema}_{split}.yaml: {refusals[schema, split]} must-refuse cases, "
                            f"at least {MIN_REFUSALS_PER_FILE} wanted")
        if controls[schema, split] < MIN_CONTROLS_PER_FILE:
            problems.append(f"{schema}_{split}.yaml: {controls[schema, split]} control- questions, "
                            f"at least {MIN_CONTROLS_PER_FILE} wanted")
    return problems


def check_set(questions: list[Question], engines: Engines, others: list[Question] = ()) -> list[str]:
    """Every problem in the set, each line naming the file and question it concerns."""
    problems = size_problems(questions) + near_duplicates(questions) + overlap_with(questions, list(others))
    for q in questions:
        if q.answerable:
            problems += [f"{q.path.name}: {q.id}: {p}" for p in check_question(q, engines)]
    return problems


def main(argv: list[str] | None = None) -> int:
    return first_check.run_check(argv, __doc__, HERE, load_set, check_set, build_engines, SCHEMAS,
                                 others=first_set.load_set)


if __name__ == "__main__":
    sys.exit(main())
