"""Check every reference answer of the third blind set on seeds 0, 1 and 2 of its schema.

Run from ``autobot-backend/``::

    ../.venv/bin/python -m tests.data.embedded_blind3.check            # exit 0 when the set is sound
    ../.venv/bin/python -m tests.data.embedded_blind3.check --db-dir D # also keep the SQLite files in D

Per question, the first set's checks (``tests/data/embedded_blind/check.py``): the reference runs
on every seed and returns rows; a scalar is one non-NULL, non-zero value; nothing rounds to zero
at two decimals; the answer is not the same on all seeds; ordered answers, ``LIMIT`` cut-offs
and order-sensitive windows have no ties. Across the set: every file a holdout, no two questions
near-duplicates, this brief's sizes, must-refuse cases and controls in every file, and no
question a near-duplicate of one in the first or second blind set (compared by program; only
this set's ids are printed, so the earlier sets' questions stay unread).
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
from tests.data.embedded_blind2 import blindset2 as second_set
from tests.data.embedded_blind3 import schema_hotel, schema_logistics
from tests.data.embedded_blind3.blindset3 import HERE, SCHEMAS, SPLIT, Question, load_set

BUILDERS: dict[str, Callable[[sa.Engine, int], None]] = {
    "retail": lambda engine, seed: fixtures.build(engine, "retail", seed),
    "retail_24m": lambda engine, seed: fixtures.build(engine, "retail_24m", seed),
    "hotel": schema_hotel.build,
    "logistics": schema_logistics.build,
}

MINIMUMS: dict[tuple[str, ...], int] = {("retail", "retail_24m"): 45, ("hotel",): 18, ("logistics",): 18}
MIN_REFUSALS_PER_FILE = 5
MIN_CONTROLS_PER_FILE = 2


def build_engines(schemas: Iterable[str], db_dir: Path | None = None) -> Engines:
    """One engine per (schema, seed) of this set's schemas: in memory, or SQLite files in ``db_dir``."""
    return first_check.build_engines(schemas, db_dir, BUILDERS)


def size_problems(questions: list[Question]) -> list[str]:
    """Holdout files only; this brief's minimum answerable counts; refusals and controls in every file."""
    problems = [f"{name}: split is not {SPLIT!r}; this set is a pure holdout"
                for name in sorted({q.path.name for q in questions if q.split != SPLIT})]
    answerable = Counter(q.schema for q in questions if q.answerable)
    for schemas, minimum in MINIMUMS.items():
        have = sum(answerable[s] for s in schemas)
        if have < minimum:
            problems.append(f"{'+'.join(schemas)}: {have} answerable questions, the brief asks for {minimum}")
    refusals = Counter(q.path.name for q in questions if not q.answerable)
    controls = Counter(q.path.name for q in questions if q.answerable and q.stratum.startswith("control-"))
    for name in sorted({q.path.name for q in questions}):
        if refusals[name] < MIN_REFUSALS_PER_FILE:
            problems.append(f"{name}: {refusals[name]} must-refuse cases, at least {MIN_REFUSALS_PER_FILE} wanted")
        if controls[name] < MIN_CONTROLS_PER_FILE:
            problems.append(f"{name}: {controls[name]} control- questions, at least {MIN_CONTROLS_PER_FILE} wanted")
    return problems


def earlier_sets() -> list[Question]:
    """Every question of the first and second blind sets, loaded by program (never printed)."""
    return first_set.load_set() + second_set.load_set()


def check_set(questions: list[Question], engines: Engines, others: list[Question] = ()) -> list[str]:
    """Every problem in the set, each line naming the file and question it concerns."""
    problems = size_problems(questions) + near_duplicates(questions) + overlap_with(questions, list(others))
    for q in questions:
        if q.answerable:
            problems += [f"{q.path.name}: {q.id}: {p}" for p in check_question(q, engines)]
    return problems


def main(argv: list[str] | None = None) -> int:
    return first_check.run_check(argv, __doc__, HERE, load_set, check_set, build_engines, SCHEMAS,
                                 others=earlier_sets)


if __name__ == "__main__":
    sys.exit(main())
