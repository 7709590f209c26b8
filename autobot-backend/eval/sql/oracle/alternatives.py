"""The self-check of a question's other acceptable forms (``also:``, ``columns:``): each must be gradeable.

Each ``also:`` alternative runs through the checks ``sql`` does, but the rotation lint (an
alternative gives the reference's answer, so it is as static as the question is); its defects name
it (``alternative 2 (also[0]): ...``). A ``columns:`` rule must name columns the reference returns.
A question with a defect in any form is not asked. An alternative whose rows are the reference's is
held as the reference's one result (:func:`shared`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from eval.sql.corpus.questions import Question
from eval.sql.grading.forms import resolve
from eval.sql.rows import Ties
from services.readonly.execute import Execution

COLUMNS = "oracle: columns rule does not fit"

Checked = tuple[list[Any], list[Execution] | None, list[Ties | None]]


def alternative(q: Question, alt: str) -> Question:
    """``q`` with the alternative ``alt`` as its reference, written like ``sql``: as written where ``sql`` was
    taken as written, else transpiled from SQLite."""
    written = {d: alt for d, text in q.sql_dialects.items() if text == q.sql}
    return dataclasses.replace(q, sql=alt, sql_dialects=written, also=(), columns=None)


def shared(own: Execution, reference: Execution) -> Execution:
    """The reference's result itself when an alternative's has the same width and rows (an alternative is
    another way to the same answer, so it mostly does): a run holds one result for both, not one per
    alternative (issue 38 point 2: eight alternatives held 1.5 GB)."""
    if own is reference or (len(own.columns) == len(reference.columns) and own.rows == reference.rows):
        return reference
    return own


def check_forms(
    q: Question,
    rotations: list[tuple[str, str | Exception]],
    results: list[Execution],
    check: Callable[[Question, list[tuple[str, str | Exception]], bool], Checked],
) -> tuple[list[tuple[str, str]], list[list[Execution]] | None, list[list[Ties | None]]]:
    """Defects (kind, detail) of the question's other forms, and each alternative's results and ties
    on every rotation (None unless every alternative ran everywhere)."""
    defects: list[tuple[str, str]] = []
    if q.columns is not None:
        fit = resolve(q.columns, results[0].columns)
        if isinstance(fit, str):
            defects.append((COLUMNS, f"{fit}; name the reference's output columns"))
    alts: list[list[Execution]] = []
    alt_ties: list[list[Ties | None]] = []
    for k, alt in enumerate(q.also):
        found, got, ties = check(alternative(q, alt), rotations, False)
        defects += [(d.kind, f"alternative {k + 2} (also[{k}]): {d.detail}") for d in found]
        if got is not None:
            alts.append([shared(own, ref) for own, ref in zip(got, results, strict=False)])
            alt_ties.append(ties)
    return defects, (alts if q.also and len(alts) == len(q.also) else None), alt_ties
