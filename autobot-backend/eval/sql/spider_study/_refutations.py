"""The hand-checked sample of refuted passes on the shared Spider sets: how it is drawn, the committed judgements
(``refutations_checked.yaml``), and the table the benchmarks page shows.

A refuted pass says the answer and the reference disagree on data the database could hold, not which is wrong;
a person reads the question, both queries and the counterexample and says which: ``candidate wrong``, ``reference
wrong``, or ``both defensible`` (the question does not decide). The draw is fixed by a stated rule, so anyone can
redraw it: per set, the refuted passes in the order of the SHA-256 of ``<set>/<dev index>``, the first
:data:`PER_SET` of each (a set with fewer gives all it has, the other set the rest).
"""

from __future__ import annotations

import hashlib
import html
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from eval.core.errors import UsageError
from eval.sql.spider_study._graded import ID_PREFIX, GradedSet, dev_index

CHECKED = Path(__file__).with_name("refutations_checked.yaml")
SIZE = 30
PER_SET = SIZE // 2
CLASSES = ("candidate wrong", "reference wrong", "both defensible")
RULE = (
    f"per set, the refuted passes ordered by the SHA-256 of `<set>/<dev index>` (e.g. `DAIL-SQL+GPT-4/0007`), the "
    f"first {PER_SET} of each ({SIZE} in all; a set with fewer gives all it has and the other the rest)"
)


@dataclass(frozen=True)
class Checked:
    set: str
    id: str
    verdict: str
    """One of :data:`CLASSES`."""
    reason: str

    @property
    def key(self) -> tuple[str, int]:
        return self.set, dev_index(self.id)


def _order(name: str, index: int) -> str:
    return hashlib.sha256(f"{name}/{index:04d}".encode()).hexdigest()


def draw(refuted: dict[str, tuple[int, ...]]) -> list[tuple[str, int]]:
    """The sample by :data:`RULE`, from each set's refuted dev indexes; in (set, dev index) order."""
    ranked = {name: sorted(found, key=lambda i: _order(name, i)) for name, found in refuted.items()}
    taken = {name: ranked[name][:PER_SET] for name in ranked}
    short = SIZE - sum(len(t) for t in taken.values())
    for name in sorted(ranked):  # the rest from whichever set has more
        extra = ranked[name][len(taken[name]) : len(taken[name]) + max(short, 0)]
        taken[name] += extra
        short -= len(extra)
    return sorted((name, i) for name, found in taken.items() for i in found)


def load(path: Path = CHECKED) -> list[Checked]:
    """The committed judgements; a UsageError naming the file and the entry that is not one."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(f"{path}: cannot read the checked refutations: {exc}") from None
    if not isinstance(raw, list):
        raise UsageError(f"{path}: expected a list of entries (set, id, class, reason)")
    out = []
    for n, entry in enumerate(raw, 1):
        where = f"{path}: entry {n}" + (f" ({entry.get('id')})" if isinstance(entry, dict) else "")
        if not isinstance(entry, dict) or not {"set", "id", "class", "reason"} <= set(entry):
            raise UsageError(f"{where}: give set, id, class and reason")
        if entry["class"] not in CLASSES:
            raise UsageError(f"{where}: class {entry['class']!r} is not one of {', '.join(CLASSES)}")
        if not str(entry["id"]).startswith(ID_PREFIX) or not str(entry["reason"]).strip():
            raise UsageError(f"{where}: id must be {ID_PREFIX}NNNN and the reason must say why")
        out.append(Checked(str(entry["set"]), str(entry["id"]), str(entry["class"]), str(entry["reason"]).strip()))
    return out


def mismatch(drawn: list[tuple[str, int]], checked: list[Checked]) -> list[str]:
    """How the committed judgements differ from the draw: each missing or extra entry, named."""
    listed = {c.key for c in checked}
    wanted = set(drawn)
    missing = [f"{s}/{ID_PREFIX}{i:04d} drawn but not judged" for s, i in sorted(wanted - listed)]
    extra = [f"{s}/{ID_PREFIX}{i:04d} judged but not drawn" for s, i in sorted(listed - wanted)]
    return missing + extra


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell: HTML escaped, pipes and newlines kept out of the table's structure."""
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def table(checked: list[Checked]) -> str:
    """The benchmarks page's block: the rule, the counts per class, one row per judged refutation."""
    counts = Counter(c.verdict for c in checked)
    said = ", ".join(f"{cls} {counts[cls]}" for cls in CLASSES)
    lines = [
        f"{len(checked)} refuted passes, drawn by a stated rule ({RULE}), each read by hand: the question, the gold "
        f"SQL, the predicted SQL and the counterexample database the search printed. By class: {said}.",
        "",
        "| set | question | class | why |",
        "|---|---|---|---|",
    ]
    for c in sorted(checked, key=lambda c: c.key):
        lines.append(f"| {_cell(c.set)} | {c.id} | {c.verdict} | {_cell(c.reason)} |")
    return "\n".join(lines)


def still_refuted(checked: list[Checked], graded: dict[str, GradedSet]) -> list[str]:
    """The judged refutations the search no longer produces, each named."""
    gone = []
    for c in checked:
        q = graded[c.set].questions.get(dev_index(c.id)) if c.set in graded else None
        if q is None or not (q.get("search") or {}).get("refuted"):
            gone.append(f"{c.set}/{c.id}: no longer refuted")
    return gone


def packet(name: str, q: dict[str, Any]) -> str:
    """What the checker reads of one refuted pass (Markdown): the question, both queries, the counterexample."""
    r = q["search"]["refuted"]
    return "\n".join(
        [
            f"## {name} / {q['id']} ({q.get('database')})",
            "",
            f"Question: {q.get('question')}",
            "",
            f"Gold: `{q.get('reference_sql')}`",
            "",
            f"Predicted: `{q.get('sql')}`",
            "",
            f"Edits: {'; '.join(r.get('edits') or [])}",
            "",
            f"Grader: {r.get('detail')}",
            "",
            "```sql",
            str(r.get("script", "")).strip(),
            "```",
            "",
        ]
    )


def stub(drawn: list[tuple[str, int]], checked: list[Checked]) -> list[dict[str, str]]:
    """The judgements file for the draw: a committed judgement kept, an empty one for each new item."""
    known = {c.key: c for c in checked}
    out = []
    for name, i in drawn:
        c = known.get((name, i))
        out.append(
            {
                "set": name,
                "id": f"{ID_PREFIX}{i:04d}",
                "class": c.verdict if c else "",
                "reason": c.reason if c else "",
            }
        )
    return out
