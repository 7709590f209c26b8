"""The acceptable forms of a question's answer besides its reference (``also:`` and ``columns:``).

A ``columns:`` rule is applied by projecting the reference's result onto each acceptable set of its
columns (the required ones plus a subset of the optional ones, in the reference's relative order)
and comparing as usual: there is no special case in the comparison. At most 2**MAX_OPTIONAL sets.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from eval.sql.corpus.alternatives import ColumnRef, ColumnRule
from eval.sql.rows import Ties
from services.readonly.execute import Execution


@dataclass(frozen=True)
class Form:
    """One acceptable answer: per-rotation results and ties to compare against, and what to call it."""

    label: str
    refs: Sequence[Execution]
    ties: Sequence[Ties | None]


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


def column_forms(rule: ColumnRule, refs: Sequence[Execution], ties: Sequence[Ties | None]) -> list[Form]:
    """The reference projected onto each acceptable column set other than all of its columns; none
    when the rule does not fit (the self-check reports that as an oracle defect)."""
    if not refs:
        return []
    columns = refs[0].columns
    fit = resolve(rule, columns)
    if isinstance(fit, str):
        return []
    required, optional = fit
    forms: list[Form] = []
    for k in range(len(optional) + 1):
        for chosen in itertools.combinations(optional, k):
            keep = tuple(sorted(required + chosen))
            if not keep or keep == tuple(range(len(columns))):
                continue
            names = ", ".join(columns[i] for i in keep)
            extra = ", ".join(columns[i] for i in chosen)
            how = f"optional {extra} included" if chosen else "no optional column"
            forms.append(
                Form(
                    f"the reference's columns {names} ({how})",
                    [project(r, keep) for r in refs],
                    [project_ties(t, keep) for t in ties],
                )
            )
    return forms


def project(ex: Execution, keep: Sequence[int]) -> Execution:
    """The kept columns of ``ex``, with the fetch's column types (``kinds``) kept to the same columns: the
    comparison reads a column's types by its position, so a form's must be its own."""
    kinds = None if ex.kinds is None else tuple(ex.kinds[i] for i in keep)
    return dataclasses.replace(
        ex,
        columns=tuple(ex.columns[i] for i in keep),
        rows=[tuple(row[i] for i in keep) for row in ex.rows],
        kinds=kinds,
    )


def project_ties(ties: Ties | None, keep: Sequence[int]) -> Ties | None:
    """The same row groups (the row count is unchanged); the cut's rows on the kept columns."""
    if ties is None:
        return None
    return Ties(ties.groups, tuple(tuple(row[i] for i in keep) for row in ties.cut))
