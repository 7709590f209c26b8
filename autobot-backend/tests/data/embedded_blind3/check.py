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

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

import sqlalchemy as sa
from rapidfuzz import fuzz, utils

from eval.sql import fixtures
from tests.data.embedded_blind import blindset as first_set
from tests.data.embedded_blind import check as first_check
from tests.data.embedded_blind.check import NEAR_DUPLICATE, Engines, check_question, near_duplicates
from tests.data.embedded_blind2 import blindset2 as second_set
from tests.data.embedded_blind3 import schema_hotel, schema_logistics
from tests.data.embedded_blind3.blindset3 import HERE, SCHEMAS, SPLIT, BlindSetError, Question, load_set

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


def overlap_with(questions: list[Question], others: list[Question], threshold: int = NEAR_DUPLICATE) -> list[str]:
    """This set's questions that near-duplicate any of ``others``; names only this set's ids."""
    theirs = [utils.default_process(q.question) for q in others]
    problems = []
    for q in questions:
        mine = utils.default_process(q.question)
        best = max((fuzz.token_sort_ratio(mine, t) for t in theirs), default=0)
        if best >= threshold:
            problems.append(f"{q.path.name}: {q.id}: a near-duplicate of a question in an earlier blind set "
                            f"(token_sort_ratio {best:.0f}); reword it or ask something else")
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=HERE, help="folder holding the YAML files")
    parser.add_argument("--db-dir", type=Path, help="also keep the SQLite databases here")
    args = parser.parse_args(argv)
    try:
        questions = load_set(args.dir)
        others = earlier_sets()
    except BlindSetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    engines = build_engines(sorted({q.schema for q in questions}, key=SCHEMAS.index), args.db_dir)
    try:
        problems = check_set(questions, engines, others)
    finally:
        for engine in engines.values():
            engine.dispose()
    tally = Counter((q.path.name, q.expect) for q in questions)
    for name in sorted({q.path.name for q in questions}):
        print(f"{name:28} {tally[name, 'answer']:4} answerable {tally[name, 'refuse']:3} refuse")
    for line in problems:
        print(f"PROBLEM {line}")
    print(f"{len(questions)} questions, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
