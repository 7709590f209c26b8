"""What every mutation operator shares: the mistakes' names, a mutant, and the rewrite of one node.

A rewrite never edits the reference's own tree: it copies the tree, finds the same node in the copy
(by its position in a walk, which copying keeps) and replaces or removes it there, so one parse
serves every mutant of a query.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from sqlglot import exp

DIALECT = "sqlite"


class Kind(StrEnum):
    """The mistakes the study makes (the issue's list), one operator each."""

    INCLUSIVE_END = "inclusive_end"
    """A date range's end takes one period too many: ``< D`` as ``<= D``; ``<= D`` and ``BETWEEN .. AND D``
    up to the next day (or month)."""
    EXCLUSIVE_START = "exclusive_start"
    """A date range's start loses its first period: ``>= D`` as ``> D``; ``BETWEEN D AND ..`` as
    ``> D AND <= ..``."""
    BETWEEN_HALF_OPEN = "between_half_open"
    """``x BETWEEN a AND b`` written as the half-open ``x >= a AND x < b`` (the last day lost)."""
    INNER_FOR_LEFT = "inner_for_left"
    """``LEFT JOIN`` as an inner join (rows without a partner lost)."""
    DROP_CONJUNCT = "drop_conjunct"
    """One condition of a WHERE left out (the whole WHERE, when it has one)."""
    COUNT_SWAP = "count_swap"
    """``COUNT(*)``, ``COUNT(col)`` and ``COUNT(DISTINCT col)`` swapped for one another."""
    SUM_FOR_AVG = "sum_for_avg"
    """``SUM`` where ``AVG`` was meant."""
    DISTINCT = "distinct"
    """``SELECT DISTINCT`` added or removed."""
    ASC_FOR_DESC = "asc_for_desc"
    """An ordering ``DESC`` written ``ASC`` (the outermost ORDER BY, a subquery's, a window's)."""
    LIMIT_OFF_BY_ONE = "limit_off_by_one"
    """``LIMIT n`` as ``n + 1`` or ``n - 1``."""
    MONEY_ROUNDED = "money_rounded"
    """A money figure of the answer rounded to whole units."""
    STATUS_SWAP = "status_swap"
    """An order status value swapped for another of the vocabulary."""
    GROUP_BY_DROPPED = "group_by_dropped"
    """One GROUP BY expression left out (the whole GROUP BY, when it has one)."""


@dataclass(frozen=True)
class Mutant:
    question_id: str
    kind: Kind
    site: str
    """The SQL before and after, ``before -> after``: how the mutant is named (unique within its question)."""
    sql: str
    equivalent: str | None = None
    """Why it gives the reference's rows on every database (a rule of SQL or of the keys), or None."""
    beyond: str | None = None
    """Why only rows outside the fixture's period could show it (the build checks the period), or None."""


@dataclass(frozen=True)
class Found:
    """One mutant an operator found, before it is named after its question."""

    kind: Kind
    site: str
    sql: str
    equivalent: str | None = None
    beyond: str | None = None


Periods = dict[str, tuple[str, str]]
"""Date column -> the first and last day the fixture's rows may hold (``YYYY-MM-DD``)."""


@dataclass(frozen=True)
class Context:
    ordered: bool
    """The question is ``ordered``: its outermost ORDER BY is part of the answer."""
    periods: Periods


Operator = Callable[[exp.Expr, Context], Iterator[Found]]
Change = Callable[[exp.Expr], exp.Expr | None]


def apply(tree: exp.Expr, target: exp.Expr, change: Change) -> tuple[str, str]:
    """The query with ``target`` (a node of ``tree``) replaced by ``change(copy of it)`` (None: removed),
    and the replacement's text."""
    index = next(i for i, node in enumerate(tree.walk()) if node is target)
    copy = tree.copy()
    node = next(n for i, n in enumerate(copy.walk()) if i == index)
    new = change(node.copy())
    if new is None:
        node.pop()
        return copy.sql(dialect=DIALECT), "(left out)"
    if node is copy:  # the whole query: replace() needs a parent
        return new.sql(dialect=DIALECT), new.sql(dialect=DIALECT)
    node.replace(new)
    return copy.sql(dialect=DIALECT), new.sql(dialect=DIALECT)


def becomes(new: exp.Expr) -> Change:
    """A change that puts ``new`` in the node's place."""
    return lambda _old: new.copy()


def site(before: exp.Expr, after: str) -> str:
    return f"{short(before.sql(dialect=DIALECT))} -> {short(after)}"


def short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bare(p: exp.Expr) -> exp.Expr:
    """A projection without its alias."""
    return p.this if isinstance(p, exp.Alias) else p
