"""A few rows of both results around their first difference, as a report shows them (a wrong answer's, and a
refuted pass's on the database that refutes it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Excerpt:
    """A few rows of both results on the rotation that failed, around the first difference, as text."""

    rotation: int
    """1-based."""
    expected_columns: tuple[str, ...]
    actual_columns: tuple[str, ...]
    expected: tuple[tuple[int, tuple[str, ...]], ...]
    """(1-based row number, the row's values as shown) for a window of the reference's rows."""
    actual: tuple[tuple[int, tuple[str, ...]], ...]
    expected_row: int | None = None
    """1-based rows and column the comparison points at; None where it points at no one cell."""
    actual_row: int | None = None
    column: int | None = None
