"""The embedded generator on the second blind set: questions written by someone who never saw it.

``tests/data/embedded_blind2/`` holds four schemas' questions (the two retail fixtures, plus an
airline and a university schema of its own) in two splits. The ``tune`` split may be read and
tuned on. The ``holdout`` split is never read by the generator's developer: it is graded here as
totals only (no question, id or per-question verdict is ever printed for it), at most three times
per round, and its floors were set once, from the first measurement.

Grading is the first blind set's (:mod:`tests.test_embedded_blind`): the generator sees seed 0's
schema context, its SQL and the reference run on seeds 0, 1 and 2, rows compared by position at two
decimals with the column count checked. Three figures per schema and split: answerable questions
passed, must-refuse questions declined, controls declined.

Run ``python -m tests.test_embedded_blind2`` for the tune split's per-question failures, and
``python -m tests.test_embedded_blind2 --holdout`` for the holdout totals (totals only).
"""

from __future__ import annotations

import sys

import pytest

from services.embedded import EmbeddedGenerator
from tests.blind_grading import BlindSet, Outcome, failures, figures, report
from tests.data.embedded_blind2.blindset2 import HERE as BLIND2_DIR
from tests.data.embedded_blind2.blindset2 import SCHEMAS, load_file
from tests.data.embedded_blind2.check import BUILDERS

BLIND2 = BlindSet(BLIND2_DIR, load_file, BUILDERS, SCHEMAS)

# Ratchet: schema -> (answerable passed >=, must-refuse declined >=, controls declined <=). The tune split
# at the start of round three (embedded-v2 as recorded): 45/126 right, 18/22 declined, 1/7 controls declined.
TUNE_FLOORS = {
    "retail": (36, 6, 0),
    "retail_24m": (31, 6, 0),
    "airline": (16, 5, 0),
    "university": (13, 5, 0),
}
# Set once, from the first holdout measurement (totals only, at commit 65d715e: 39/81 right, 14/17 declined,
# 2/7 controls declined); never tuned against. Round three measured it three times in all: that one, the same
# totals again at 075fd13 after refusal fixes found with probes of its own, and this test passing there.
HOLDOUT_FLOORS: dict[str, tuple[int, int, int]] = {
    "retail": (14, 3, 0),
    "retail_24m": (14, 3, 0),
    "airline": (5, 3, 1),
    "university": (6, 5, 1),
}


@pytest.fixture(scope="module")
def tune() -> list[Outcome]:
    return BLIND2.grade_split("tune")


@pytest.fixture(scope="module")
def holdout() -> list[Outcome]:
    return BLIND2.grade_split("holdout")


@pytest.mark.parametrize("schema", SCHEMAS)
def test_tune_split_holds_its_floors(tune, schema):
    f = figures(tune, schema)
    passed, declined, controls_declined = TUNE_FLOORS[schema]
    assert f.answerable > 0 and f.must_refuse > 0 and f.controls > 0
    assert f.passed >= passed, f"{f.line(schema)}; floor {passed}\n{failures(tune, schema)}"
    assert f.declined >= declined, f"{f.line(schema)}; floor {declined}\n{failures(tune, schema)}"
    assert f.controls_declined <= controls_declined, f"{f.line(schema)}; ceiling {controls_declined}"


@pytest.mark.parametrize("schema", SCHEMAS)
def test_holdout_split_holds_its_floors(holdout, schema):
    """Totals only: a failure here names no question."""
    f = figures(holdout, schema)
    assert f.answerable > 0 and f.must_refuse > 0
    assert schema in HOLDOUT_FLOORS, f"no floor yet: {f.line(schema)}"
    passed, declined, controls_declined = HOLDOUT_FLOORS[schema]
    assert f.passed >= passed, f"{f.line(schema)}; floor {passed}"
    assert f.declined >= declined, f"{f.line(schema)}; floor {declined}"
    assert f.controls_declined <= controls_declined, f"{f.line(schema)}; ceiling {controls_declined}"


def test_no_tune_phrase_is_in_the_generator():
    assert BLIND2.leaks("tune") == []


def test_no_holdout_phrase_is_in_the_generator():
    """Counted, not shown."""
    found = len(BLIND2.leaks("holdout"))
    assert found == 0, f"{found} six-word phrase(s) of holdout questions appear in the generator"


def test_the_grader_fails_a_wrong_answer_and_passes_the_reference():
    q = next(q for q in BLIND2.load_split("tune", ["retail"]) if q.answerable and q.shape == "scalar")

    class Fixed(EmbeddedGenerator):
        def __init__(self, sql: str):
            self.sql = sql

        def explain(self, question, schema):
            return self.sql

    assert BLIND2.grade(q, Fixed("SELECT -12345.67")).verdict == "wrong"
    assert BLIND2.grade(q, Fixed(q.sql)).verdict == "pass"


if __name__ == "__main__":
    if "--holdout" in sys.argv[1:]:
        print(report(BLIND2.grade_split("holdout"), SCHEMAS, per_question=False))
    else:
        chosen = [a for a in sys.argv[1:] if a in SCHEMAS] or SCHEMAS
        print(report(BLIND2.grade_split("tune", chosen), chosen, per_question=True))
