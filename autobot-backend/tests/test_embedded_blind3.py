"""The embedded generator on the third blind set: a pure holdout, graded as totals only.

``tests/data/embedded_blind3/`` was written by someone who never saw the generator, with no tune
split: no developer of the generator reads it or runs this file while working on it. The floors
below are measured figures, and a failure names no question.

Grading is the shared blind-set grading (:mod:`tests.blind_grading`): seed 0's schema context,
SQL and reference run on seeds 0, 1 and 2, rows compared by position at two decimals, the column
count checked. Run ``python -m tests.test_embedded_blind3`` for the totals.
"""

from __future__ import annotations

import pytest

from tests.blind_grading import BlindSet, FixedSQL, Outcome, assert_floors, report
from tests.data.embedded_blind3.blindset3 import HERE as BLIND3_DIR
from tests.data.embedded_blind3.blindset3 import SCHEMAS, load_file
from tests.data.embedded_blind3.check import BUILDERS

BLIND3 = BlindSet(BLIND3_DIR, load_file, BUILDERS, SCHEMAS)

# schema -> (answerable passed >=, must-refuse declined >=, controls declined <=), from measurements.
FLOORS: dict[str, tuple[int, int, int]] = {
    "retail": (21, 6, 0),
    "retail_24m": (17, 6, 0),
    "hotel": (10, 6, 0),
    "logistics": (18, 6, 0),
}


@pytest.fixture(scope="module")
def holdout() -> list[Outcome]:
    return BLIND3.grade_split("holdout")


@pytest.mark.parametrize("schema", SCHEMAS)
def test_holdout_holds_its_floors(holdout, schema):
    """Totals only: a failure here names no question."""
    assert_floors(holdout, schema, FLOORS[schema], show_failures=False)


def test_no_holdout_phrase_is_in_the_generator():
    """Counted, not shown."""
    found = len(BLIND3.leaks("holdout"))
    assert found == 0, f"{found} six-word phrase(s) of blind set 3 appear in the generator"


def test_the_grader_fails_a_wrong_answer_and_passes_the_reference():
    q = next(q for q in BLIND3.load_split("holdout", ["retail"]) if q.answerable and q.shape == "scalar")

    assert BLIND3.grade(q, FixedSQL("SELECT -12345.67")).verdict == "wrong"
    assert BLIND3.grade(q, FixedSQL(q.sql)).verdict == "pass"


if __name__ == "__main__":
    print(report(BLIND3.grade_split("holdout"), SCHEMAS, per_question=False))
