"""How often the diagnosis of a killed mutant names the category of the mistake the study injected.

Every killed mutant is a wrong answer whose cause is known; the diagnoser does not see the kind
(only the two SQL texts, the two results and the question's declared order, decimals and column
order), so agreement between its primary category and the kind's category measures it. The kind ->
category mapping is :data:`KIND_CATEGORY` (and the docs' table): rounding a money figure to whole
units is ``value_format``, the same answer written less precisely, not another aggregate or column.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from eval.core import markdown as md
from eval.core.figures import pct
from eval.sql.model.diagnosis import Category
from eval.sql.near_miss._mutant import Kind
from eval.sql.near_miss._study import KILLED, Judged

KIND_CATEGORY: Mapping[Kind, Category] = {
    Kind.INCLUSIVE_END: Category.FILTER,
    Kind.EXCLUSIVE_START: Category.FILTER,
    Kind.BETWEEN_HALF_OPEN: Category.FILTER,
    Kind.DROP_CONJUNCT: Category.FILTER,
    Kind.STATUS_SWAP: Category.FILTER,
    Kind.INNER_FOR_LEFT: Category.JOIN,
    Kind.COUNT_SWAP: Category.AGGREGATION,
    Kind.SUM_FOR_AVG: Category.AGGREGATION,
    Kind.DISTINCT: Category.DISTINCT,
    Kind.ASC_FOR_DESC: Category.ORDERING,
    Kind.LIMIT_OFF_BY_ONE: Category.ORDERING,
    Kind.MONEY_ROUNDED: Category.VALUE_FORMAT,
    Kind.GROUP_BY_DROPPED: Category.GROUPING,
}
"""The category each injected mistake belongs to; a kind without one fails the tests."""
TARGET_OVERALL = 0.90
TARGET_PER_KIND = 0.80
"""Issue 25's targets: the primary category agrees with the kind's on >= 90% of killed mutants, >= 80% per kind."""


@dataclass(frozen=True)
class Agreement:
    kind: str
    killed: int
    agreed: int

    @property
    def rate(self) -> float | None:
        return self.agreed / self.killed if self.killed else None


def _diagnosed(judged: Iterable[Judged]) -> list[Judged]:
    return [j for j in judged if j.outcome == KILLED and j.diagnosis is not None]


def _agrees(j: Judged) -> bool:
    return j.diagnosis is not None and j.diagnosis.primary is KIND_CATEGORY[j.mutant.kind]


def agreement(judged: Iterable[Judged]) -> tuple[Agreement, dict[str, Agreement]]:
    """The overall agreement and the agreement per kind (in the kinds' order)."""
    killed = _diagnosed(judged)
    per: dict[str, Agreement] = {}
    for kind in Kind:
        of_kind = [j for j in killed if j.mutant.kind is kind]
        if of_kind:
            per[kind.value] = Agreement(kind.value, len(of_kind), sum(_agrees(j) for j in of_kind))
    return Agreement("all", len(killed), sum(_agrees(j) for j in killed)), per


def misses(judged: Iterable[Judged]) -> list[Judged]:
    """Killed mutants whose primary category is not their kind's."""
    return [j for j in _diagnosed(judged) if not _agrees(j)]


def met(judged: Iterable[Judged]) -> bool:
    items = list(judged)
    overall, per = agreement(items)
    return (overall.rate or 0) >= TARGET_OVERALL and all((a.rate or 0) >= TARGET_PER_KIND for a in per.values())


def to_json(judged: Iterable[Judged]) -> dict[str, Any]:
    items = list(judged)
    overall, per = agreement(items)
    return {
        "kind_category": {k.value: c.value for k, c in KIND_CATEGORY.items()},
        "overall": {"killed": overall.killed, "agreed": overall.agreed, "rate": _round(overall.rate)},
        "by_kind": {k: {"killed": a.killed, "agreed": a.agreed, "rate": _round(a.rate)} for k, a in per.items()},
        "target_overall": TARGET_OVERALL,
        "target_per_kind": TARGET_PER_KIND,
        "met": met(items),
    }


def _round(rate: float | None) -> float | None:
    return None if rate is None else round(rate, 4)


def lines(judged: Iterable[Judged]) -> list[str]:
    """The agreement as Markdown: the headline, the table per kind, every miss with its diagnosis."""
    items = list(judged)
    overall, per = agreement(items)
    verdict = "met" if met(items) else "NOT met"
    rows = [
        [md.escape(k), md.escape(KIND_CATEGORY[Kind(k)].value), str(a.killed), str(a.agreed), pct(a.rate)]
        for k, a in per.items()
    ]
    out = [
        f"Diagnosis agreement: the primary category of **{pct(overall.rate)}** of the {overall.killed} killed "
        f"mutants is their mistake's category ({overall.agreed} agree; targets {TARGET_OVERALL:.0%} overall and "
        f"{TARGET_PER_KIND:.0%} for every kind: {verdict}).",
        "",
        md.table(["mistake", "category", "killed", "agreed", "agreement"], rows),
        "",
    ]
    missed = misses(items)
    if missed:
        out += ["Every killed mutant diagnosed otherwise:", ""]
        out += [
            f"- **{md.escape(j.mutant.question_id)}** {j.mutant.kind.value} -> "
            f"{j.diagnosis.primary.value if j.diagnosis else '?'}: {md.escape(j.mutant.site)} "
            f"({md.escape(j.diagnosis.line if j.diagnosis else '')})"
            for j in missed
        ]
        out.append("")
    return out
