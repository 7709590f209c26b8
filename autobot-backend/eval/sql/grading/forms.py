"""The acceptable forms of a question's answer besides its reference (``also:`` and ``columns:``).

A ``columns:`` rule is applied by projecting the reference's result onto each acceptable set of its
columns (the required ones plus a subset of the optional ones, in the reference's relative order)
and comparing as usual: there is no special case in the comparison. At most 2**MAX_OPTIONAL sets.

One reference is held, whatever the forms (issue 38 point 2: six optional columns held the reference 63
times, 3.6 GB against 0.23 GB): a form's rows are a view of the reference's (:class:`Projected`, nothing
copied until a comparison reads it), and the forms are made one at a time, as the grader asks for them.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, overload

from eval.sql.corpus.alternatives import ColumnRef, ColumnRule
from eval.sql.rows import Ties
from services.readonly.execute import Execution


@dataclass(frozen=True)
class Form:
    """One acceptable answer: per-rotation results and ties to compare against, and what to call it."""

    label: str
    refs: Sequence[Execution]
    ties: Sequence[Ties | None]

    @property
    def width(self) -> int:
        """The form's column count: an answer of another width cannot match it (0 when unknown)."""
        return len(self.refs[0].columns) if self.refs else 0


def resolve(rule: ColumnRule, columns: Sequence[str]) -> tuple[tuple[int, ...], tuple[int, ...]] | str:
    """The rule's required and optional columns as 0-based positions of ``columns``, or why it does not fit."""

    def one(ref: ColumnRef) -> int | str:
        if isinstance(ref, int):
            return ref - 1 if ref <= len(columns) else f"position {ref} is past the reference's {len(columns)} columns"
        exact = [i for i, c in enumerate(columns) if c == ref]
        found = exact or [i for i, c in enumerate(columns) if c.lower() == ref.lower()]
        if len(found) == 1:
            return found[0]
        if found:
            return f"{ref!r} names {len(found)} reference columns; use its 1-based position"
        return f"{ref!r} is not a reference column (columns: {', '.join(columns)})"

    required, optional = [one(r) for r in rule.required], [one(r) for r in rule.optional]
    errors = [e for e in required + optional if isinstance(e, str)]
    if errors:
        return "columns: " + "; ".join(errors)
    req = tuple(i for i in required if isinstance(i, int))
    opt = tuple(i for i in optional if isinstance(i, int))
    if len(set(req + opt)) != len(req + opt):
        return "columns: a reference column is named twice (by name and by position)"
    return req, opt


def column_forms(rule: ColumnRule, refs: Sequence[Execution], ties: Sequence[Ties | None]) -> Iterator[Form]:
    """The reference projected onto each acceptable column set other than all of its columns, one at a time;
    none when the rule does not fit (the self-check reports that as an oracle defect)."""
    if not refs:
        return
    columns = refs[0].columns
    fit = resolve(rule, columns)
    if isinstance(fit, str):
        return
    required, optional = fit
    for k in range(len(optional) + 1):
        for chosen in itertools.combinations(optional, k):
            keep = tuple(sorted(required + chosen))
            if not keep or keep == tuple(range(len(columns))):
                continue
            names = ", ".join(columns[i] for i in keep)
            extra = ", ".join(columns[i] for i in chosen)
            how = f"optional {extra} included" if chosen else "no optional column"
            yield Form(
                f"the reference's columns {names} ({how})",
                [project(r, keep) for r in refs],
                [project_ties(t, keep) for t in ties],
            )


class Projected(Sequence[tuple[Any, ...]]):
    """Rows on some of their columns, read through to the rows they come from: a view, never a copy.

    Example:
        >>> view = Projected([(1, "a", 2.5), (2, "b", 3.5)], (0, 2))
        >>> list(view), view[1], len(view)
        ([(1, 2.5), (2, 3.5)], (2, 3.5), 2)
    """

    __slots__ = ("_get", "keep", "rows")

    def __init__(self, rows: Sequence[Sequence[Any]], keep: Sequence[int]) -> None:
        self.rows, self.keep = rows, tuple(keep)
        getter = itemgetter(*self.keep) if self.keep else None
        one = len(self.keep) == 1
        self._get = (lambda row: (getter(row),)) if one and getter else getter or (lambda row: ())

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, i: int) -> tuple[Any, ...]: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[Any, ...]]: ...

    def __getitem__(self, i: int | slice) -> tuple[Any, ...] | Sequence[tuple[Any, ...]]:
        if isinstance(i, slice):
            return [self._get(row) for row in self.rows[i]]
        return tuple(self._get(self.rows[i]))

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return map(self._get, self.rows)


def project(ex: Execution, keep: Sequence[int]) -> Execution:
    """``ex`` on the columns ``keep``: its rows a :class:`Projected` view of ``ex``'s, its fetch's column types
    (``kinds``) those of the kept columns (the comparison reads a column's types by its position, so a form's
    must be its own)."""
    rows = ex.rows.rows if isinstance(ex.rows, Projected) else ex.rows  # a view of a view reads the rows
    kept = [ex.rows.keep[i] for i in keep] if isinstance(ex.rows, Projected) else keep
    kinds = None if ex.kinds is None else tuple(ex.kinds[i] for i in keep)
    return dataclasses.replace(ex, columns=tuple(ex.columns[i] for i in keep), rows=Projected(rows, kept), kinds=kinds)


def project_ties(ties: Ties | None, keep: Sequence[int]) -> Ties | None:
    """The same row groups (the row count is unchanged); the cut's rows on the kept columns."""
    if ties is None:
        return None
    return Ties(ties.groups, tuple(tuple(row[i] for i in keep) for row in ties.cut))
