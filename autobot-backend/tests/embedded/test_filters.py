"""Conditions on rows and groups: a negated value excludes it, a number's unit names the column compared
(converted between units of time), a term a comment defines is what it says, "more than N <rows>" or
"more than N times" counts the rows named, and a word that names a value restricts the rows to it (a
coded value said in words, a value named with its table, a value the comment explains, a column "we do
not know"). Probes over the ferry and gym schemas of :mod:`tests.embedded_small_schemas`, graded by
execution against hand-written SQL."""

from __future__ import annotations

import pytest

from tests.embedded_small_schemas import assert_answers_like, assert_same_rows


@pytest.mark.parametrize(
    "question,reference",
    [
        ("How many tickets weren't refunded?", "SELECT COUNT(*) FROM tickets WHERE status <> 'refunded'"),
        ("Count the tickets that were not refunded.", "SELECT COUNT(*) FROM tickets WHERE status <> 'refunded'"),
        ("How many sailings were longer than 40 km?", "SELECT COUNT(*) FROM sailings WHERE distance_km > 40"),
        ("How many sailings were over 1 hour late?", "SELECT COUNT(*) FROM sailings WHERE delay_minutes > 60"),
        (
            "How many sailings were tardy in 2024?",
            "SELECT COUNT(*) FROM sailings WHERE delay_minutes > 10 AND sailing_date >= '2024-01-01' "
            "AND sailing_date < '2025-01-01'",
        ),
        (
            "List buyers who bought more than ten tickets, with how many.",
            "SELECT b.full_name, COUNT(*) FROM tickets t JOIN buyers b ON b.buyer_id = t.buyer_id GROUP BY b.buyer_id "
            "HAVING COUNT(*) > 10",
        ),
        (
            "List the buyers who bought tickets more than 8 times, with the number of tickets each bought.",
            "SELECT b.full_name, COUNT(*) FROM tickets t JOIN buyers b ON b.buyer_id = t.buyer_id GROUP BY b.buyer_id "
            "HAVING COUNT(*) > 8",
        ),
    ],
    ids=[
        "a contracted negation excludes the value",
        "a spelled-out negation excludes the value",
        "a number's unit names the column compared",
        "a duration in another unit of time converts",
        "a term a comment defines is what it says",
        "'who' after its noun is a relative pronoun",
        "'more than N times' counts the rows the verb names; 'with the number of' is a column",
    ],
)
def test_a_condition_restricts_the_rows_or_groups_it_names(ferry, question, reference):
    assert_answers_like(ferry, question, reference)


@pytest.mark.parametrize(
    "question,reference",
    [
        ("How many sessions were no-shows?", "SELECT COUNT(*) FROM sessions WHERE outcome = 'no_show'"),
        (
            "Count the no-show sessions in 2024.",
            "SELECT COUNT(*) FROM sessions WHERE outcome = 'no_show' AND session_date >= '2024-01-01'",
        ),
        ("How many late cancels were there?", "SELECT COUNT(*) FROM sessions WHERE outcome = 'late_cancel'"),
        (
            "How many Unlimited-pass climbers are there?",
            "SELECT COUNT(*) FROM climbers c JOIN passes p ON p.pass_id = c.pass_id WHERE p.name = 'Unlimited'",
        ),
        (
            "How many sessions are there for Boulder-pass climbers?",
            "SELECT COUNT(*) FROM sessions s JOIN climbers c ON c.climber_id = s.climber_id "
            "JOIN passes p ON p.pass_id = c.pass_id WHERE p.name = 'Boulder'",
        ),
        (
            "How many sessions in 2024 did climbers stay away from?",
            "SELECT COUNT(*) FROM sessions WHERE outcome = 'no_show' AND session_date >= '2024-01-01'",
        ),
        ("How many climbers have no injuries?", "SELECT COUNT(*) FROM climbers WHERE injuries = 0"),
        ("Count the climbers whose phone we do not know.", "SELECT COUNT(*) FROM climbers WHERE phone IS NULL"),
        ("List the climbers whose phone we know.", "SELECT full_name FROM climbers WHERE phone IS NOT NULL"),
        ("How many sessions belong to winter 2024?", "SELECT COUNT(*) FROM sessions WHERE block = '2024-winter'"),
        (
            "For how many sessions in 2024 did the climber not show up?",
            "SELECT COUNT(*) FROM sessions WHERE outcome = 'no_show' AND session_date >= '2024-01-01'",
        ),
    ],
    ids=[
        "coded-value-plural",
        "coded-value-modifier",
        "coded-value-two-words",
        "value-hyphen-table",
        "value-hyphen-table-joined",
        "value-glossed-in-comment",
        "none-of-a-count-column",
        "not-known-is-missing",
        "known-is-present",
        "value-of-a-year-and-a-word",
        "negated-verb-of-a-no-value",
    ],
)
def test_a_word_that_names_a_value_restricts_the_rows(gym, question, reference):
    assert_same_rows(gym, question, reference)
