"""What the counterexample search found for one pass: how hard it looked, and the database that refutes it.

A pass means the answer's rows equal the reference's on the fixture's rotations. The search
(:mod:`eval.sql.counterexample`) looks for a neighbour of the graded database, data the fixture could hold,
on which the grader would call the same answer ``wrong``; when it finds one the pass is *refuted*: the two
queries are not the same question's answer, and one of them (the candidate, or the reference) is wrong. The
verdict stays ``pass`` and the flag goes beside it, shown by every output; the gate counts a refuted pass only
when asked (``--gate-refuted``). Plain data, written and read by the run model's codec (:mod:`eval.sql.model.codec`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from eval.sql.model.codec import key
from eval.sql.model.excerpt import Excerpt


@dataclass(frozen=True)
class Refutation:
    """A database on which the answer and the reference disagree, shrunk to few rows."""

    found_at: int
    """The neighbour (1-based) on which it was found, before shrinking."""
    rotation: int
    """The rotation (1-based) whose database the neighbour was made from."""
    edits: tuple[str, ...]
    """What makes it differ from that rotation's database, after shrinking, one line each."""
    rows: dict[str, int]
    """Rows per table of the shrunk database."""
    detail: str
    """The grader's comparison on it (``expected 2 rows, got 1``, the first differing row and column)."""
    excerpt: Excerpt | None
    """Both results on it, around the first difference."""
    engine: str
    """The engine the script is written for (the graded database's)."""
    script: str
    """A runnable SQL script: the shrunk database's DDL and rows, then the reference and the answer."""


@dataclass(frozen=True)
class Search:
    """The search on one pass: the neighbours it tried, those it set aside and why, what it found."""

    budget: str
    """As the run set it (``200 neighbours``, ``2s``)."""
    tried: int
    """Neighbours judged (written, both queries run, compared)."""
    discarded: dict[str, int] = field(default_factory=dict)
    """Neighbours set aside, by why: a rule or constraint they broke, a reference that failed, was empty or
    was arbitrary on them (a tie at a cut), an answer that did not run on them."""
    note: str = field(default="", metadata=key(omit="empty"))
    """Why nothing was searched (a database too big to copy, one the run cannot write a neighbour of); written
    only then."""
    refuted: Refutation | None = None
    """The database that refutes the pass; None: none found within the budget."""


def refuted_line(search: Search) -> str:
    """One line for a refuted pass, every output's: what differs, and what the comparison said."""
    r = search.refuted
    if r is None:
        return ""
    rows = sum(r.rows.values())
    made = "; ".join(r.edits) or "as graded"
    where = f"a database of {rows} row(s) made from rotation {r.rotation} ({made})"
    return f"refuted: on {where} the answer would be wrong: {r.detail}"
