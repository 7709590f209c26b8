"""How often the diagnosis names the mistake an independent labeller named, on real wrong answers.

Every labelled item is an answer of a shared prediction set; the set is graded as a user grades it
(:mod:`._graded`) and each item's diagnosis read from the JSON report. The targets (issue 34) are measured on
the **core** labels: confident, and not a gold defect (an answer that the reference, not the candidate, gets
wrong has no right category to agree with):

* the diagnosis's primary is the label's primary on at least :data:`PRIMARY_TARGET` of them;
* the label's primary is among the diagnosis's tags on at least :data:`TAGS_TARGET`.

Every figure is also given on all items, and the labellers' own agreement (with Cohen's kappa) says how
hard the labelling was.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from eval.core import markdown as md
from eval.core.figures import pct
from eval.sql.model.diagnosis import CATEGORIES, Category
from eval.sql.spider_study._labels import Label, Sample

PRIMARY_TARGET = 0.85
TAGS_TARGET = 0.95


@dataclass(frozen=True)
class Diagnosed:
    """What the diagnosis said of one item (None: the answer has no diagnosis now, e.g. it passes)."""

    primary: Category | None
    tags: tuple[Category, ...]


@dataclass(frozen=True)
class Agreement:
    name: str
    items: int
    labellers_agree: int
    kappa: float | None
    adjudicated: int
    core: int
    primary_core: int
    tags_core: int
    primary_all: int
    tags_all: int
    undiagnosed: tuple[str, ...]
    per_category: tuple[tuple[Category, int, int], ...]
    """(label's primary, core items, agreed) per category, in precedence order."""
    confusion: tuple[tuple[Category, Category | None, int], ...]
    """(label's primary, diagnosis's primary, core items) where they differ."""

    @property
    def met(self) -> bool:
        return (
            bool(self.core)
            and self.primary_core >= PRIMARY_TARGET * self.core
            and self.tags_core >= TAGS_TARGET * self.core
        )


def agreement(sample: Sample, diagnosed: Mapping[str, Diagnosed]) -> Agreement:
    final = sample.final()
    a, b = sample.labellers
    items = list(sample.items)
    said = {i: diagnosed.get(i, Diagnosed(None, ())) for i in items}
    core = [i for i in items if final[i].core]
    per = [
        (c, len(group), sum(said[i].primary is c for i in group))
        for c in CATEGORIES
        if (group := [i for i in core if final[i].primary is c])
    ]
    confusion = Counter((final[i].primary, said[i].primary) for i in core if said[i].primary is not final[i].primary)
    ordered = sorted(confusion.items(), key=lambda kv: (-kv[1], CATEGORIES.index(kv[0][0]), str(kv[0][1])))
    return Agreement(
        sample.name,
        len(items),
        sum(a[i].primary is b[i].primary for i in items),
        kappa([a[i].primary for i in items], [b[i].primary for i in items]),
        sum(i in sample.adjudicated for i in items),
        len(core),
        sum(_agrees(final[i], said[i]) for i in core),
        sum(_among(final[i], said[i]) for i in core),
        sum(_agrees(final[i], said[i]) for i in items),
        sum(_among(final[i], said[i]) for i in items),
        tuple(i for i in items if said[i].primary is None),
        tuple(per),
        tuple((lp, dp, n) for (lp, dp), n in ordered),
    )


def _agrees(label: Label, said: Diagnosed) -> bool:
    return said.primary is label.primary


def _among(label: Label, said: Diagnosed) -> bool:
    return label.primary in said.tags


def kappa(first: Iterable[Category], second: Iterable[Category]) -> float | None:
    """Cohen's kappa of two labellings of the same items: (observed agreement - chance agreement) / (1 - chance
    agreement), chance from each labeller's own category shares; None when chance agreement is 1."""
    x, y = list(first), list(second)
    n = len(x)
    if not n or n != len(y):
        return None
    observed = sum(p == q for p, q in zip(x, y)) / n
    cx, cy = Counter(x), Counter(y)
    chance = sum(cx[c] * cy[c] for c in cx) / (n * n)
    return None if chance == 1 else (observed - chance) / (1 - chance)


def _rate(n: int, d: int) -> str:
    return f"{n}/{d} ({pct(n / d)})" if d else "n/a"


def markdown(results: Iterable[Agreement]) -> str:
    """The diagnosis page's block: per sample, the headline against the targets, the labellers' agreement, per
    category and the confusion table of the core items."""
    out: list[str] = []
    for r in results:
        met = "met" if r.met else "NOT met"
        k = f"{r.kappa:.2f}" if r.kappa is not None else "n/a"
        out += [
            f"**{md.escape(r.name)}**: {r.items} real wrong or error answers; the labellers gave the same primary "
            f"to {_rate(r.labellers_agree, r.items)} (Cohen's kappa {k}), {r.adjudicated} adjudicated. "
            f"On the {r.core} core labels (confident, not a gold defect) the diagnosis's primary is the label's on "
            f"**{_rate(r.primary_core, r.core)}** and the label's primary is among its tags on "
            f"**{_rate(r.tags_core, r.core)}** (targets {pct(PRIMARY_TARGET)} and {pct(TAGS_TARGET)}: {met}); on all "
            f"{r.items} items: {_rate(r.primary_all, r.items)} and {_rate(r.tags_all, r.items)}.",
            "",
            "| label's primary | core items | diagnosis agrees |",
            "|---|---|---|",
            *[f"| {c.value} | {n} | {_rate(agreed, n)} |" for c, n, agreed in r.per_category],
            "",
        ]
        if r.confusion:
            out += ["| label says | diagnosis says | core items |", "|---|---|---|"]
            out += [f"| {lp.value} | {dp.value if dp else '(none)'} | {n} |" for lp, dp, n in r.confusion]
            out.append("")
        if r.undiagnosed:
            shown = ", ".join(md.escape(i) for i in r.undiagnosed[:10])
            out += [f"Items with no diagnosis now ({len(r.undiagnosed)}): {shown}.", ""]
    return "\n".join(out).rstrip("\n")


def to_json(r: Agreement) -> dict[str, Any]:
    return {
        "sample": r.name,
        "items": r.items,
        "labellers_agree": r.labellers_agree,
        "kappa": r.kappa,
        "adjudicated": r.adjudicated,
        "core": r.core,
        "primary_core": r.primary_core,
        "tags_core": r.tags_core,
        "primary_all": r.primary_all,
        "tags_all": r.tags_all,
        "targets": {"primary": PRIMARY_TARGET, "tags": TAGS_TARGET, "met": r.met},
        "per_category": [{"category": c.value, "core": n, "agreed": a} for c, n, a in r.per_category],
        "confusion": [{"label": lp.value, "diagnosis": dp.value if dp else None, "n": n} for lp, dp, n in r.confusion],
        "undiagnosed": list(r.undiagnosed),
    }
