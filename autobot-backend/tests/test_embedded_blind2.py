"""The embedded generator on the second blind set: questions written by someone who never saw it.

``tests/data/embedded_blind2/`` holds four schemas' questions (the two retail fixtures, plus an
airline and a university schema of its own) in two splits, ``tune`` and ``holdout``. Both have been
read and tuned on, so both are development data here, pinned by ratchet floors, and neither says
anything about questions the generator has not seen (the third blind set and the corpus do that).

Grading is the first blind set's (:mod:`tests.test_embedded_blind`): the generator sees seed 0's
schema context, its SQL and the reference run on seeds 0, 1 and 2, rows compared by position at two
decimals with the column count checked. Three figures per schema and split: answerable questions
passed, must-refuse questions declined, controls declined.

Run ``python -m tests.test_embedded_blind2`` for both splits' per-question failures
(``--split tune`` or ``--split holdout`` for one).
"""

from __future__ import annotations

import sys

import pytest

from tests.blind_grading import BlindSet, FixedSQL, Outcome, assert_floors, report
from tests.data.embedded_blind2.blindset2 import HERE as BLIND2_DIR
from tests.data.embedded_blind2.blindset2 import SCHEMAS, load_file
from tests.data.embedded_blind2.check import BUILDERS

BLIND2 = BlindSet(BLIND2_DIR, load_file, BUILDERS, SCHEMAS)

# Ratchets: (split, schema) -> (answerable passed >=, must-refuse declined >=, controls declined <=), set from
# measurement.
FLOORS = {
    ("tune", "retail"): (36, 6, 0),
    ("tune", "retail_24m"): (31, 6, 0),
    ("tune", "airline"): (22, 5, 0),
    ("tune", "university"): (19, 5, 0),
    ("holdout", "retail"): (21, 4, 0),
    ("holdout", "retail_24m"): (17, 4, 0),
    ("holdout", "airline"): (10, 4, 0),
    ("holdout", "university"): (10, 5, 1),
}
SPLITS = ("tune", "holdout")


@pytest.fixture(scope="module")
def outcomes() -> dict[str, list[Outcome]]:
    return {split: BLIND2.grade_split(split) for split in SPLITS}


@pytest.mark.parametrize("split,schema", sorted(FLOORS), ids=lambda v: str(v))
def test_each_split_holds_its_floors(outcomes, split, schema):
    assert_floors(outcomes[split], schema, FLOORS[(split, schema)], show_failures=True)


@pytest.mark.parametrize("split", SPLITS)
def test_no_blind2_phrase_is_in_the_generator(split):
    """No six-word run of any question of either split is in the generator's code."""
    assert BLIND2.leaks(split) == []


def test_the_grader_fails_a_wrong_answer_and_passes_the_reference():
    q = next(q for q in BLIND2.load_split("tune", ["retail"]) if q.answerable and q.shape == "scalar")

    assert BLIND2.grade(q, FixedSQL("SELECT -12345.67")).verdict == "wrong"
    assert BLIND2.grade(q, FixedSQL(q.sql)).verdict == "pass"


if __name__ == "__main__":
    args = sys.argv[1:]
    chosen_splits = [args[args.index("--split") + 1]] if "--split" in args else list(SPLITS)
    chosen = [a for a in args if a in SCHEMAS] or SCHEMAS
    for split in chosen_splits:
        print(f"== {split}")
        print(report(BLIND2.grade_split(split, chosen), chosen, per_question=True))
