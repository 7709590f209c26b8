"""Rankings and sorts: what is ranked (the rows a wh-word or an opening "of all X" names), by which
measure ("spent the most": the money; "rank X by <rows>": how many), how many rows are kept, and in
which order ("busiest first", "highest first"). Probes over the ferry schema of
:mod:`tests.embedded_small_schemas`, graded by execution against hand-written SQL (order included)."""

from __future__ import annotations

import pytest

from tests.embedded_small_schemas import assert_answers_like


@pytest.mark.parametrize(
    "question,reference",
    [
        (
            "List the two ports with the most sailings, giving the port name and the count, highest first.",
            "SELECT p.name, COUNT(*) FROM ports p JOIN sailings s ON s.origin_port_id = p.port_id GROUP BY p.port_id "
            "ORDER BY 2 DESC LIMIT 2",
        ),
        (
            "Of all ports, which two had the most sailings?",
            "SELECT p.name FROM ports p JOIN sailings s ON s.origin_port_id = p.port_id GROUP BY p.port_id "
            "ORDER BY COUNT(*) DESC LIMIT 2",
        ),
        (
            "Give me the number of sailings per port for 2024, busiest first.",
            "SELECT p.name, COUNT(*) AS n FROM sailings s JOIN ports p ON p.port_id = s.origin_port_id "
            "WHERE s.sailing_date >= '2024-01-01' AND s.sailing_date < '2025-01-01' GROUP BY p.port_id ORDER BY n DESC",
        ),
        (
            "Rank the ports by sailings, quietest first.",
            "SELECT p.name, COUNT(*) AS n FROM sailings s JOIN ports p ON p.port_id = s.origin_port_id "
            "GROUP BY p.port_id ORDER BY n ASC",
        ),
        (
            "Which buyer spent the most?",
            "SELECT b.full_name FROM tickets t JOIN buyers b ON b.buyer_id = t.buyer_id GROUP BY b.buyer_id "
            "ORDER BY SUM(t.price) DESC, b.buyer_id LIMIT 1",
        ),
        (
            "List the ports with their annual fee, highest first.",
            "SELECT name, annual_fee FROM ports ORDER BY annual_fee DESC",
        ),
    ],
    ids=[
        "an imperative ranking with its answer list",
        "'which two' means the rows an opening 'of all X' names",
        "'give me' is a request, 'busiest first' a sort",
        "'rank X by <rows>' counts the rows, in the order asked",
        "'spent the most' ranks by the money spent",
        "rows listed with an attribute show their name first, in the order asked",
    ],
)
def test_the_rows_asked_for_are_ranked_by_the_measure_named_in_the_order_asked(ferry, question, reference):
    assert_answers_like(ferry, question, reference)
