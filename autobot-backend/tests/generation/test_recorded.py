"""RecordedGenerator: answers keyed by question text."""

from __future__ import annotations

import pytest

from services.generation.protocol import Generation, SQLGenerator
from services.generation.recorded import NO_ANSWER_REASON, RecordedGenerator
from services.schema_context import SchemaContext

SCHEMA = SchemaContext("sqlite")
COUNT = Generation(sql="SELECT count(*) FROM orders")
DECLINED = Generation.refuse("not about the data")


@pytest.fixture
def recorded() -> RecordedGenerator:
    return RecordedGenerator({"How many orders?": COUNT, "  Write a poem  ": DECLINED})


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many orders?", COUNT),
        ("\n How many orders?\t", COUNT),
        ("Write a poem", DECLINED),
    ],
    ids=["exact", "surrounding_whitespace", "key_stripped_too"],
)
def test_answers_recorded_questions(recorded, question, expected):
    assert recorded.generate(question, SCHEMA) == expected


@pytest.mark.parametrize(
    "question",
    ["how many orders?", "How many orders", "Unknown question"],
    ids=["case_differs", "punctuation_differs", "absent"],
)
def test_unrecorded_question_is_refused(recorded, question):
    generation = recorded.generate(question, SCHEMA)
    assert generation.refused
    assert generation.refusal == NO_ANSWER_REASON == "no answer recorded"


def test_names_default_and_override():
    assert (RecordedGenerator({}).name, RecordedGenerator({}).model) == ("recorded", "recorded")
    gen = RecordedGenerator({}, name="recorded-run", model="gpt-x")
    assert isinstance(gen, SQLGenerator)
    assert (gen.name, gen.model) == ("recorded-run", "gpt-x")


def test_conflicting_answers_after_stripping_are_rejected():
    with pytest.raises(ValueError, match=r"two different answers.*'Q'"):
        RecordedGenerator({"Q": COUNT, " Q ": DECLINED})


def test_same_answer_twice_is_fine():
    assert len(RecordedGenerator({"Q": COUNT, " Q ": COUNT})) == 1


def test_answer_must_be_a_generation():
    with pytest.raises(TypeError, match="'Q' is a str, not a Generation"):
        RecordedGenerator({"Q": "SELECT 1"})
