"""A corpus's lints as a run holds them, and their count by kind: the one line every output writes.

A lint is something about the corpus a person should look at that does not stop the run: a question
that says no order although the grader holds it to one (``unstated order``), two questions asked
nearly alike (``near-duplicate``), one nobody has checked (``draft``), and a reference that cannot
grade its question (an oracle defect, kept in the run's ``oracle_defects``; its question is
``unmeasured``). They are found once (:mod:`eval.sql.oracle.findings`), by the run and by
``python -m eval.sql.check`` alike. Every output counts them by kind in one line after the headline
(:func:`lint_counts`); the report files (JSON, Markdown, HTML) list each one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from eval.sql.model.codec import key
from eval.sql.model.findings import OracleDefect

DRAFT = "draft"
NEAR_DUPLICATE = "near-duplicate"
UNSTATED_ORDER = "unstated order"
CORPUS_KINDS = (DRAFT, NEAR_DUPLICATE, UNSTATED_ORDER)
"""The lints of the corpus's text, in the order outputs count them (oracle defects follow)."""


@dataclass(frozen=True)
class Lint:
    question_id: str
    kind: str
    """One of :data:`CORPUS_KINDS`."""
    detail: str = field(metadata=key(absent=lambda _: ""))
    """What was seen and what to do."""
    where: str
    """``file:line`` of the question."""

    def line(self) -> str:
        """``questions.yaml:12: question 'q-1': unstated order: ...``: how the check prints it."""
        return f"{self.where}: question {self.question_id!r}: {self.kind}: {self.detail}"


def lint_counts(lints: Sequence[Lint], oracle_defects: Sequence[OracleDefect]) -> dict[str, int]:
    """Questions per kind of lint (a question counts once per kind): the corpus's kinds in
    :data:`CORPUS_KINDS` order, then the oracle defects' (``oracle: empty result``, ...) from the most
    frequent; only the kinds found."""
    seen: dict[str, set[str]] = {kind: set() for kind in CORPUS_KINDS}
    for lint in lints:
        seen.setdefault(lint.kind, set()).add(lint.question_id)
    defects: dict[str, set[str]] = {}
    for d in oracle_defects:
        defects.setdefault(d.kind, set()).add(d.question_id)
    ordered = sorted(defects.items(), key=lambda item: (-len(item[1]), item[0]))
    return {kind: len(ids) for kind, ids in [*seen.items(), *ordered] if ids}
