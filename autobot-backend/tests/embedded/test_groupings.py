"""Groupings: the rows grouped by (a key named as a grouping shows the rows it points at, joined through
the keys that must be set), "by the <noun>" after a participle as who did it rather than a grouping, a
row's own column listed rather than grouped by, labels the question gives its groups, and an average
length per group taken over the rows. Probes over the ferry and gym schemas of
:mod:`tests.embedded_small_schemas`, graded by execution against hand-written SQL."""

from __future__ import annotations

import pytest

from tests.embedded_small_schemas import assert_answers_like, assert_same_rows


@pytest.mark.parametrize(
    "question,reference",
    [
        (
            "How many tickets were sold per port? Port name and count.",
            "SELECT p.name, COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
            "JOIN ports p ON p.port_id = s.origin_port_id GROUP BY p.port_id",
        ),
        (
            "Count the sailings per destination port.",
            "SELECT p.name, COUNT(*) FROM sailings s JOIN ports p ON p.port_id = s.destination_port_id GROUP BY "
            "p.port_id",
        ),
        (
            "How many sailings were cancelled by the port in 2024?",
            "SELECT COUNT(*) FROM sailings WHERE cancelled AND sailing_date >= '2024-01-01' AND sailing_date < "
            "'2025-01-01'",
        ),
    ],
    ids=[
        "the join through mandatory keys, not an optional one",
        "a key named as a grouping shows the rows it points at",
        "'by the <noun>' after a participle is the agent",
    ],
)
def test_rows_are_grouped_by_what_the_question_groups_them_by(ferry, question, reference):
    assert_answers_like(ferry, question, reference)


@pytest.mark.parametrize(
    "question,reference",
    [
        (
            "Average ticket price for cancelled and other sailings, labelled 'cancelled' and 'sailed'.",
            "SELECT CASE WHEN s.cancelled THEN 'cancelled' ELSE 'sailed' END, AVG(t.price) FROM tickets t "
            "JOIN sailings s ON s.sailing_id = t.sailing_id GROUP BY 1",
        ),
        (
            "Number of buyers per loyalty level, with non-members under the label 'none'.",
            "SELECT COALESCE(loyalty_level, 'none'), COUNT(*) FROM buyers GROUP BY 1",
        ),
        (
            "Split the ticket count between buyers with a home port and those without, labelled 'local' and 'unknown'.",
            "SELECT CASE WHEN b.home_port_id IS NOT NULL THEN 'local' ELSE 'unknown' END, COUNT(*) FROM tickets t "
            "JOIN buyers b ON b.buyer_id = t.buyer_id GROUP BY 1",
        ),
    ],
    ids=[
        "two labels split the rows on a flag",
        "one label names the group without a value",
        "two labels split on whether a key is set; 'those who/without' is no deictic",
    ],
)
def test_labels_the_question_gives_name_its_groups(ferry, question, reference):
    assert_answers_like(ferry, question, reference)


@pytest.mark.parametrize(
    "question,reference",
    [
        ("Show each climber's phone.", "SELECT full_name, phone FROM climbers"),
        (
            "Show each climber's number of sessions.",
            "SELECT c.full_name, COUNT(*) FROM climbers c JOIN sessions s ON s.climber_id = c.climber_id "
            "GROUP BY c.climber_id",
        ),
    ],
    ids=["own-attribute-listed", "a-measure-still-grouped"],
)
def test_each_rows_own_column_is_a_list_not_a_grouping(gym, question, reference):
    assert_same_rows(gym, question, reference)


@pytest.mark.parametrize(
    "question,reference",
    [
        (
            "What is the average session length per climber?",
            "SELECT c.full_name, AVG(s.duration_minutes) FROM sessions s JOIN climbers c ON c.climber_id = "
            "s.climber_id "
            "GROUP BY c.climber_id",
        ),
        (
            "Average session length for each pass, please.",
            "SELECT p.name, AVG(s.duration_minutes) FROM sessions s JOIN climbers c ON c.climber_id = s.climber_id "
            "JOIN passes p ON p.pass_id = c.pass_id GROUP BY p.pass_id",
        ),
    ],
    ids=["length-per-entity", "length-for-each-group"],
)
def test_an_average_length_per_group_averages_the_rows(gym, question, reference):
    assert_same_rows(gym, question, reference)
