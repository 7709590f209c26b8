"""Which date a period is read on: the date of the rows it dates ("tickets bought for sailings in March": the
sailing's), a date column named in full, the rows "each month's" names, a range of days that borrows the
second day's month and year. Probes over the ferry schema of :mod:`tests.embedded_small_schemas`, graded
by execution against hand-written SQL."""

from __future__ import annotations

import pytest

from tests.embedded_small_schemas import assert_answers_like


@pytest.mark.parametrize(
    "question,reference",
    [
        (
            "How many tickets were bought for sailings in March 2024?",
            "SELECT COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
            "WHERE s.sailing_date >= '2024-03-01' AND s.sailing_date < '2024-04-01'",
        ),
        (
            "Number of tickets in each month, using the sailing date.",
            "SELECT strftime('%Y-%m', s.sailing_date), COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = "
            "t.sailing_id "
            "GROUP BY 1",
        ),
        (
            "Monthly ticket count for 2024, counting each month's sailings.",
            "SELECT strftime('%Y-%m', s.sailing_date) AS m, COUNT(*) FROM tickets t JOIN sailings s "
            "ON s.sailing_id = t.sailing_id WHERE s.sailing_date >= '2024-01-01' AND s.sailing_date < '2025-01-01' "
            "GROUP BY m",
        ),
        (
            "Daily number of sailings for 10 to 20 March 2024.",
            "SELECT sailing_date, COUNT(*) FROM sailings WHERE sailing_date >= '2024-03-10' AND sailing_date < "
            "'2024-03-21' "
            "GROUP BY sailing_date",
        ),
    ],
    ids=[
        "a period after an event table dates its rows",
        "a date column named in full dates the periods",
        "'each month's <rows>' dates the periods by those rows",
        "a day range borrows the second day's month and year",
    ],
)
def test_a_period_is_read_on_the_date_of_the_rows_it_dates(ferry, question, reference):
    assert_answers_like(ferry, question, reference)
