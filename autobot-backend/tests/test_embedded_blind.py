"""The embedded generator on the first blind set: questions written by someone who never saw it.

``tests/data/embedded_blind/`` holds five schemas' questions in two splits, ``tune`` and ``holdout``.
Both have been read and tuned on, so both are development data here, pinned by ratchet floors, and
neither says anything about questions the generator has not seen (the third blind set and the
corpus do that).

Grading is by execution, as the suite grades: the generator sees the schema context of seed 0;
its SQL and the reference SQL run on seeds 0, 1 and 2 of the schema, and a question passes only
when the rows match on every seed (``eval.sql.compare.compare_results`` at two decimals, rows by
position, column count checked). Every database is built once per module, in memory.

Three figures per schema and split, each pinned by a floor (a ratchet, raised as the generator
gains): answerable questions passed, must-refuse questions declined, controls (answerable questions
dressed like a refusal trigger) declined.

Run ``python -m tests.test_embedded_blind`` for both splits' per-question failures
(``--split tune`` or ``--split holdout`` for one).
"""

from __future__ import annotations

import sys

import pytest

from eval.sql.compare import compare_results
from tests.blind_grading import BlindSet, FixedSQL, Outcome, assert_floors, report, run_sql
from tests.data.embedded_blind.blindset import HERE as BLIND_DIR
from tests.data.embedded_blind.blindset import SCHEMAS, Question, load_file
from tests.data.embedded_blind.check import BUILDERS

BLIND = BlindSet(BLIND_DIR, load_file, BUILDERS, SCHEMAS)

# Ratchets: (split, schema) -> (answerable passed >=, must-refuse declined >=, controls declined <=).
FLOORS = {
    ("tune", "retail"): (44, 6, 0),
    ("tune", "retail_24m"): (34, 5, 0),
    ("tune", "library"): (23, 6, 0),
    ("tune", "clinic"): (24, 6, 0),
    ("tune", "saas"): (29, 6, 0),
    ("holdout", "retail"): (24, 6, 0),
    ("holdout", "retail_24m"): (20, 6, 0),
    ("holdout", "library"): (13, 4, 0),
    ("holdout", "clinic"): (17, 5, 0),
    ("holdout", "saas"): (12, 4, 0),
}
SPLITS = ("tune", "holdout")


@pytest.fixture(scope="module")
def outcomes() -> dict[str, list[Outcome]]:
    return {split: BLIND.grade_split(split) for split in SPLITS}


@pytest.mark.parametrize("split,schema", sorted(FLOORS), ids=lambda v: str(v))
def test_each_split_holds_its_floors(outcomes, split, schema):
    assert_floors(outcomes[split], schema, FLOORS[(split, schema)], show_failures=True)


def test_every_reference_passes_its_own_grading():
    """The grader can pass: each reference, graded as if generated, matches itself on every seed."""
    bad = []
    for q in BLIND.load_split("tune") + BLIND.load_split("holdout"):
        if q.answerable:
            _ctx, engines = BLIND.database(q.schema)
            for engine in engines:
                rows, ncols = run_sql(engine, q.sql)
                if not compare_results(
                    rows, rows, shape=q.shape, ordered=q.ordered, decimals=2, expected_ncols=ncols, actual_ncols=ncols
                ).match:
                    bad.append(q.id)
    assert bad == []


def test_the_grader_fails_a_wrong_answer():
    q = next(q for q in BLIND.load_split("tune", ["retail"]) if q.answerable and q.shape == "scalar")
    wrong = Question(**{**q.__dict__, "sql": "SELECT -12345.67"})

    assert BLIND.grade(wrong, FixedSQL(q.sql)).verdict == "wrong"
    assert BLIND.grade(q, FixedSQL(q.sql)).verdict == "pass"


@pytest.mark.parametrize("split", SPLITS)
def test_no_blind_phrase_is_in_the_generator(split):
    """No six-word run of any blind question is in the generator's code."""
    assert BLIND.leaks(split) == []


if __name__ == "__main__":
    args = sys.argv[1:]
    chosen_splits = [args[args.index("--split") + 1]] if "--split" in args else list(SPLITS)
    chosen = [a for a in args if a in SCHEMAS] or SCHEMAS
    for split in chosen_splits:
        print(f"== {split}")
        print(report(BLIND.grade_split(split, chosen), chosen, per_question=True))
