"""What the counterexample search found for one pass: how hard it looked, and the database that refutes it.

A pass means the answer's rows equal the reference's on the fixture's rotations. The search
(:mod:`eval.sql.counterexample`) looks for a neighbour of the graded database, data the fixture could hold,
on which the grader would call the same answer ``wrong``; when it finds one the pass is *refuted*: the two
queries are not the same question's answer, and one of them (the candidate, or the reference) is wrong. The
verdict stays ``pass`` and the flag goes beside it, shown by every output; the gate counts a refuted pass only
when asked (``--gate-refuted``). Plain data, so the model needs no search to read a report.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

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
    script: str
    """A runnable SQL script: the shrunk database's DDL and rows, then the reference and the answer."""
    engine: str
    """The engine the script is written for (the graded database's)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "found_at": self.found_at,
            "rotation": self.rotation,
            "edits": list(self.edits),
            "rows": dict(self.rows),
            "detail": self.detail,
            "excerpt": None if self.excerpt is None else dataclasses.asdict(self.excerpt),
            "engine": self.engine,
            "script": self.script,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Refutation:
        e = data.get("excerpt")
        excerpt = (
            None
            if e is None
            else Excerpt(
                rotation=e["rotation"],
                expected_columns=tuple(e["expected_columns"]),
                actual_columns=tuple(e["actual_columns"]),
                expected=tuple((int(n), tuple(v)) for n, v in e["expected"]),
                actual=tuple((int(n), tuple(v)) for n, v in e["actual"]),
                expected_row=e.get("expected_row"),
                actual_row=e.get("actual_row"),
                column=e.get("column"),
            )
        )
        return cls(
            found_at=int(data["found_at"]),
            rotation=int(data["rotation"]),
            edits=tuple(str(x) for x in data.get("edits") or ()),
            rows={str(k): int(v) for k, v in (data.get("rows") or {}).items()},
            detail=str(data.get("detail") or ""),
            excerpt=excerpt,
            script=str(data.get("script") or ""),
            engine=str(data.get("engine") or ""),
        )


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
    refuted: Refutation | None = None
    note: str = ""
    """Why nothing was searched (a database too big to copy, one the run cannot write a neighbour of)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"budget": self.budget, "tried": self.tried, "discarded": dict(self.discarded)}
        if self.note:
            out["note"] = self.note
        out["refuted"] = None if self.refuted is None else self.refuted.to_json()
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Search:
        refuted = data.get("refuted")
        return cls(
            budget=str(data.get("budget") or ""),
            tried=int(data.get("tried") or 0),
            discarded={str(k): int(v) for k, v in (data.get("discarded") or {}).items()},
            refuted=None if refuted is None else Refutation.from_json(refuted),
            note=str(data.get("note") or ""),
        )


def refuted_line(search: Search) -> str:
    """One line for a refuted pass, every output's: what differs, and what the comparison said."""
    r = search.refuted
    if r is None:
        return ""
    rows = sum(r.rows.values())
    made = "; ".join(r.edits) or "as graded"
    where = f"a database of {rows} row(s) made from rotation {r.rotation} ({made})"
    return f"refuted: on {where} the answer would be wrong: {r.detail}"
