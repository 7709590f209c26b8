"""Refusals of questions the schema cannot answer and of requests that are not questions: attributes the
schema does not keep (though a nearby table or comment shares a word), forecasts, a row added to the data
(a write) as against one added to the answer, a restricting word nothing in the schema places (declined
with the word named), and the words that restrict nothing and must not be declined. Probes over the
ferry and gym schemas of :mod:`tests.embedded_small_schemas`."""

from __future__ import annotations

import pytest

from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from tests.embedded_small_schemas import assert_same_rows


@pytest.mark.parametrize(
    "question",
    [
        "List the ports with their phone numbers.",
        "What is the average crossing time per port?",
        "Which tickets weigh more than 20 kg?",
        "Average sailing duration in hours per port?",
    ],
)
def test_attributes_the_schema_does_not_keep_are_out_of_schema(ferry, question):
    """Even when a nearby table or a comment shares a word: "crossing time", "phone numbers", a mass in kg."""
    outcome = EmbeddedGenerator().explain(question, ferry[0])
    assert isinstance(outcome, Refusal) and outcome.kind == "out_of_schema", outcome


@pytest.mark.parametrize(
    "question",
    [
        "Project next summer's ticket sales for us.",
        "How many tickets will we sell next year?",
    ],
)
def test_forecasts_are_declined(ferry, question):
    outcome = EmbeddedGenerator().explain(question, ferry[0])
    assert isinstance(outcome, Refusal) and outcome.kind == "unclear", outcome


def test_a_row_added_to_the_data_is_a_write_and_one_added_to_the_answer_is_not(ferry):
    gen, ctx = EmbeddedGenerator(), ferry[0]
    write = gen.explain("How many ports are there, and add a row to the ports table.", ctx)
    assert isinstance(write, Refusal) and write.kind == "injection", write
    answer = gen.explain("Count the buyers per loyalty level, and add a row labelled 'none' for the others.", ctx)
    assert not isinstance(answer, Refusal), answer


@pytest.mark.parametrize(
    "question,word",
    [
        ("How many climbers are happy?", "happy"),
        ("How many sessions were wasted?", "wasted"),
        ("How many stolen passes are there?", "stolen"),
        ("Count the sessions that were lost.", "lost"),
        ("How many long sessions were there in 2024?", "long"),
        ("How many climbers are loyal?", "loyal"),
    ],
    ids=[
        "adjective-predicate",
        "participle-predicate",
        "participle-modifier",
        "relative-clause-predicate",
        "gradable-modifier",
        "gradable-predicate",
    ],
)
def test_a_restricting_word_nothing_places_is_declined_by_name(gym, question, word):
    """Declined with the word named: by the unplaced-condition rule, or earlier as data the schema lacks."""
    outcome = EmbeddedGenerator().explain(question, gym[0])
    assert isinstance(outcome, Refusal), outcome
    assert outcome.kind in ("unclear", "out_of_schema") and repr(word) in outcome.reason, outcome


@pytest.mark.parametrize(
    "question,reference",
    [
        (
            "How many sessions were booked in March 2024?",
            "SELECT COUNT(*) FROM sessions WHERE session_date >= '2024-03-01' AND session_date < '2024-04-01'",
        ),
        ("Hi! How many climbers are there, please?", "SELECT COUNT(*) FROM climbers"),
        ("How many sessions were attended?", "SELECT COUNT(*) FROM sessions WHERE outcome = 'attended'"),
        (
            "Which climbers were the busiest? Names only, highest first, top 3.",
            "SELECT c.full_name FROM climbers c JOIN sessions s ON s.climber_id = c.climber_id "
            "GROUP BY c.climber_id ORDER BY COUNT(*) DESC, c.climber_id LIMIT 3",
        ),
        ("Which pass is the most expensive? Name only.", "SELECT name FROM passes ORDER BY monthly_price DESC LIMIT 1"),
    ],
    ids=["event-verb", "politeness", "value-predicate", "superlative-and-output-words", "gradable-in-a-superlative"],
)
def test_words_that_do_not_restrict_are_not_declined(gym, question, reference):
    assert_same_rows(gym, question, reference)
