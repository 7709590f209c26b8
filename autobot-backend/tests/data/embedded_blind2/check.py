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
from tests.data.embedded_blind2 import schema_airline, schema_university
from tests.data.embedded_blind2.blindset2 import HERE, SCHEMAS, BlindSetError, Question, load_set

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


def overlap_with(questions: list[Question], others: list[Question], threshold: int = NEAR_DUPLICATE) -> list[str]:
    """This set's questions that near-duplicate any of ``others``; names only this set's ids."""
    theirs = [utils.default_process(q.question) for q in others]
    problems = []
    for q in questions:
        mine = utils.default_process(q.question)
        best = max((fuzz.token_sort_ratio(mine, t) for t in theirs), default=0)
        if best >= threshold:
            problems.append(f"{q.path.name}: {q.id}: a near-duplicate of a question in the first blind set "
                            f"(token_sort_ratio {best:.0f}); reword it or ask something else")
    return problems


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
        others = first_set.load_set()
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
