"""What the oracle found of a corpus's references, as a run keeps it: the oracle defects (a reference that cannot
grade its question, which is then unmeasured) and the suspect references (a shape that makes a reference likely
wrong; its question is graded as usual). :mod:`eval.sql.oracle` finds them; every output lists them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OracleDefect:
    """A reference that cannot grade its question (``eval.sql.oracle.selfcheck``)."""

    question_id: str
    kind: str
    """One of the self-check's kinds, e.g. ``oracle: empty result``."""
    detail: str
    """What was seen and, where it helps, what to do."""


@dataclass(frozen=True)
class SuspectReference:
    """A reference (or ``also:`` alternative) of a shape that makes it likely wrong (``eval.sql.oracle.suspect``)."""

    question_id: str
    kind: str
    """One of ``eval.sql.oracle.suspect.KINDS``."""
    detail: str
    """What was seen, naming the literal, column or table (an alternative's is prefixed with which one)."""
