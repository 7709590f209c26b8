"""The labelled sample's labels, read and checked: two labellers' independent labels of every drawn item and the
adjudicator's final label where they differed (``procedure.md`` beside them says how each was made).

A folder holds one sample: ``draw.jsonl`` (what was drawn), ``labeller-a.jsonl``, ``labeller-b.jsonl`` and
``adjudicated.jsonl``. The final label of an item is the adjudicator's when there is one, else the labellers'
(they agreed on the primary, the gold defect and the confidence), with the tags both gave.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core.errors import UsageError
from eval.core.jsonl import json_lines
from eval.sql.model.diagnosis import CATEGORIES, Category

LABELS = Path(__file__).resolve().parents[2] / "golden" / "diagnosis"
"""The committed development sample (``eval/golden/diagnosis/``); its held-out sample is ``heldout/`` in it."""
LABELLERS = ("labeller-a.jsonl", "labeller-b.jsonl")
ADJUDICATED = "adjudicated.jsonl"
DRAW = "draw.jsonl"


@dataclass(frozen=True)
class Label:
    item: str
    primary: Category
    tags: tuple[Category, ...]
    confident: bool
    gold_defect: bool
    note: str

    @property
    def core(self) -> bool:
        """A confident label of an answer whose reference is not at fault: what the targets are measured on."""
        return self.confident and not self.gold_defect


@dataclass(frozen=True)
class Sample:
    name: str
    items: tuple[str, ...]
    """The drawn items, in draw order."""
    labellers: tuple[dict[str, Label], dict[str, Label]]
    adjudicated: dict[str, Label]

    def final(self) -> dict[str, Label]:
        a, b = self.labellers
        out: dict[str, Label] = {}
        for item in self.items:
            if item in self.adjudicated:
                out[item] = self.adjudicated[item]
            else:
                x, y = a[item], b[item]
                tags = tuple(c for c in CATEGORIES if c in set(x.tags) | set(y.tags) | {x.primary})
                out[item] = Label(item, x.primary, tags, x.confident, x.gold_defect, x.note)
        return out

    def disagreeing(self) -> list[str]:
        """Items whose labels differ on the primary, the gold defect or the confidence (the adjudicated ones)."""
        a, b = self.labellers
        return [
            i
            for i in self.items
            if (a[i].primary, a[i].gold_defect, a[i].confident) != (b[i].primary, b[i].gold_defect, b[i].confident)
        ]


def read_sample(folder: Path, name: str) -> Sample:
    """The sample in ``folder``, checked: every drawn item labelled by both labellers, every disagreement
    adjudicated, every category one of the taxonomy's. Errors name the file, the line and what to do."""
    items = tuple(str(row["item"]) for _, row in _lines(folder / DRAW))
    a, b = (_labels(folder / f, set(items)) for f in LABELLERS)
    for path, labels in zip(LABELLERS, (a, b)):
        missing = [i for i in items if i not in labels]
        if missing:
            raise UsageError(
                f"{folder / path}: no label for {len(missing)} drawn item(s), first {missing[0]}; label each"
            )
    adjudicated = _labels(folder / ADJUDICATED, set(items)) if (folder / ADJUDICATED).exists() else {}
    sample = Sample(name, items, (a, b), adjudicated)
    open_items = [i for i in sample.disagreeing() if i not in adjudicated]
    if open_items:
        raise UsageError(
            f"{folder / ADJUDICATED}: {len(open_items)} item(s) the labellers disagree on have no adjudicated label, "
            f"first {open_items[0]}; adjudicate them by procedure.md"
        )
    return sample


def _lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    out = []
    missing = "missing; the labelled sample needs it (see the README beside it)"
    for line in json_lines(path, UsageError, missing=missing, unreadable="unreadable"):
        if line.error is not None:
            raise UsageError(f"{line.where}: not JSON ({line.error.msg}); one JSON object a line")
        if not isinstance(line.value, dict) or "item" not in line.value:
            raise UsageError(f"{line.where}: not a label: one JSON object with an 'item' key a line")
        out.append((line.number, line.value))
    return out


def _labels(path: Path, drawn: set[str]) -> dict[str, Label]:
    out: dict[str, Label] = {}
    for n, row in _lines(path):
        where = f"{path}:{n}: {row['item']}"
        if row["item"] not in drawn:
            raise UsageError(f"{where}: not an item of the draw; label only drawn items")
        if row["item"] in out:
            raise UsageError(f"{where}: labelled twice; keep one label per item")
        try:
            out[row["item"]] = Label(
                str(row["item"]),
                Category(row["primary"]),
                tuple(Category(t) for t in row.get("tags") or ()),
                bool(row["confident"]),
                bool(row["gold_defect"]),
                str(row.get("note") or ""),
            )
        except (KeyError, ValueError) as exc:
            names = ", ".join(c.value for c in CATEGORIES)
            raise UsageError(
                f"{where}: {exc}; a label has primary, tags (categories: {names}), confident, gold_defect"
            ) from None
    return out


def default_samples() -> list[Path]:
    """The committed samples: the development sample, then the held-out one when it is there."""
    return [LABELS] + ([LABELS / "heldout"] if (LABELS / "heldout" / DRAW).is_file() else [])


def sample_name(folder: Path) -> str:
    """How a report names a sample: its README's first heading, else its folder's name."""
    readme = folder / "README.md"
    if readme.is_file():
        for line in readme.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return folder.name
