"""Why a wrong or error answer is wrong: the failure taxonomy (issue 25) as the run model holds it.

The categories are listed in their precedence order: a diagnosis's ``primary`` is the category of the
smallest change that would make the answer right, and when several are needed, the earliest here.
The diagnoser (``eval.sql.diagnosis``) computes it; this module only holds the value, so the model
stays free of sqlglot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Category(StrEnum):
    """One kind of mistake, in precedence order (the issue's list)."""

    RUNTIME = "runtime"
    """Did not run (a database error, a timeout, the row cap, the guard)."""
    SCHEMA = "schema"
    """The wrong table or column for what is asked (or one that does not exist)."""
    JOIN = "join"
    """A missing, extra or wrong join, a wrong join type, a join that multiplies rows."""
    FILTER = "filter"
    """A missing, extra or wrong WHERE/HAVING condition: a literal, an operator, a date boundary."""
    GROUPING = "grouping"
    """Wrong GROUP BY keys."""
    AGGREGATION = "aggregation"
    """A wrong aggregate, COUNT(*) for COUNT(DISTINCT), an aggregate missing or extra."""
    DISTINCT = "distinct"
    """The rows differ only by duplicates."""
    PROJECTION = "projection"
    """The right rows with the wrong columns: missing, extra or reordered."""
    ORDERING = "ordering"
    """A wrong ORDER BY key or direction; LIMIT missing, extra or wrong."""
    VALUE_FORMAT = "value_format"
    """The same answer in another representation (rounded, cast, formatted)."""
    OTHER = "other"
    """None of the above could be seen."""


CATEGORIES: tuple[Category, ...] = tuple(Category)
"""Every category, in precedence order."""


def earliest(categories: Iterable[Category]) -> Category:
    """The category of highest precedence among ``categories`` (``other`` when there is none)."""
    found = set(categories)
    return next((c for c in CATEGORIES if c in found), Category.OTHER)


@dataclass(frozen=True)
class Diagnosis:
    """One wrong or error answer's category, every category seen, and the evidence in one line."""

    primary: Category
    tags: tuple[Category, ...]
    """Every category found (the primary among them), in precedence order."""
    line: str
    """One line a human reads: the differing clauses and the result evidence."""
    clauses: tuple[tuple[str, str, str], ...] = ()
    """The differing clauses, the primary's first: (clause, the reference's side, the candidate's side), each
    side as SQL (clipped), empty where that side has nothing; what the HTML shows side by side."""


def category_counts(primaries: Iterable[Category]) -> dict[str, int]:
    """Counts per primary category, in precedence order, categories with none left out."""
    found = list(primaries)
    return {c.value: n for c in CATEGORIES if (n := found.count(c))}
