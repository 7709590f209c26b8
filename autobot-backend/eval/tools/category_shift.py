"""How the wrong and error answers moved between two runs, by diagnosis category (issue 25): "join -5,
filter +2", and the questions behind each number.

A question counts in a category on a side when its answer there is diagnosed with that primary
category (``SQLOutcome.diagnosis``: answerable ``wrong`` and ``error`` answers). The shift of a
category is B's count minus A's, over the questions both runs hold; a question whose category
changed counts in both. A report written before diagnoses existed has none, which the note says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval.core import markdown as md
from eval.sql.model.diagnosis import CATEGORIES
from eval.sql.model.outcome import SQLOutcome


def shift(a: Mapping[str, SQLOutcome], b: Mapping[str, SQLOutcome], ids: Sequence[str]) -> dict[str, Any]:
    """Per category that occurs on either side: A's and B's counts, the shift, and the questions that left
    it (in A, not in B) and joined it (in B, not in A); ``line`` the shifts in one line."""
    per: dict[str, dict[str, Any]] = {}
    for c in CATEGORIES:
        in_a = [i for i in ids if _primary(a[i]) == c.value]
        in_b = [i for i in ids if _primary(b[i]) == c.value]
        if in_a or in_b:
            per[c.value] = {
                "a": len(in_a),
                "b": len(in_b),
                "shift": len(in_b) - len(in_a),
                "left": [i for i in in_a if i not in in_b],
                "joined": [i for i in in_b if i not in in_a],
            }
    moved = [f"{c} {v['shift']:+d}" for c, v in per.items() if v["shift"]]
    diagnosed = any(_primary(a[i]) or _primary(b[i]) for i in ids)
    return {
        "categories": per,
        "line": ", ".join(moved) if moved else ("no shift" if diagnosed else "no diagnosis on either side"),
        "diagnosed": diagnosed,
    }


def _primary(o: SQLOutcome) -> str | None:
    return None if o.diagnosis is None else o.diagnosis.primary.value


def markdown(result: Mapping[str, Any] | None) -> list[str]:
    """The section of the comparison's Markdown (and so of its terminal view): the line and a table."""
    if not result:
        return []
    out = ["## Wrong and error answers by diagnosis category", "", f"Shift A -> B: **{md.escape(result['line'])}**", ""]
    if not result["categories"]:
        return out
    rows = [
        [
            md.escape(c),
            str(v["a"]),
            str(v["b"]),
            f"{v['shift']:+d}",
            _ids(v["left"]),
            _ids(v["joined"]),
        ]
        for c, v in result["categories"].items()
    ]
    return out + [md.table(["category", "A", "B", "shift", "left it (in A only)", "joined it (in B only)"], rows), ""]


def _ids(ids: Sequence[str], shown: int = 20) -> str:
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(md.escape(i) for i in ids[:shown]) + more or "-"
