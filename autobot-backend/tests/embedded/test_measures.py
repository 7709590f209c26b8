"""What is counted or added up: the rows the question names (not those of a verb that names a date, not
the answer list's own "count"), a bare noun asked about for a period, the one price paid as sales, a
defined term as the condition of a share. Probes over the ferry schema of
:mod:`tests.embedded_small_schemas`, graded by execution against hand-written SQL."""

from __future__ import annotations

import pytest

from tests.embedded_small_schemas import assert_answers_like


@pytest.mark.parametrize(
    "question,reference",
    [
        (
            "used tickets per port - port name, count",
            "SELECT p.name, COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
            "JOIN ports p ON p.port_id = s.origin_port_id WHERE t.status = 'used' GROUP BY p.port_id",
        ),
        (
            "Tickets for sailings in March 2024?",
            "SELECT COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
            "WHERE s.sailing_date >= '2024-03-01' AND s.sailing_date < '2024-04-01'",
        ),
        (
            "What percentage of the sailings in 2024 were tardy?",
            "SELECT 100.0 * SUM(COALESCE(delay_minutes > 10, 0)) / COUNT(*) FROM sailings "
            "WHERE sailing_date >= '2024-01-01' AND sailing_date < '2025-01-01'",
        ),
        (
            "What were total sales in March 2024?",
            "SELECT SUM(price) FROM tickets WHERE bought_date >= '2024-03-01' AND bought_date < '2024-04-01'",
        ),
        (
            "How many different buyers bought tickets for cancelled sailings?",
            "SELECT COUNT(DISTINCT t.buyer_id) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id WHERE "
            "s.cancelled",
        ),
    ],
    ids=[
        "a count the answer list asks for counts the rows named",
        "a bare noun question with a second table is a count",
        "a defined term is the share's condition",
        "with no metric, sales are the one price paid",
        "a verb naming a date does not head the counted noun",
    ],
)
def test_what_is_counted_or_added_up_is_what_the_question_names(ferry, question, reference):
    assert_answers_like(ferry, question, reference)
