"""Suspect references on Spider dev's golds (issue 34 point 6): how many questions each kind flags, a seeded sample
of flags for a person to judge, and the precision of the committed judgements.

The flags are a graded set's own (``suspect_references`` of the run's JSON report, the import's self-check of
every gold): the golds are the same for every prediction set, so one set is graded. A *flag* is one question's
findings of one kind. The sample takes :data:`SIZE` flags across the kinds in turns (one of each kind that has
flags left, in :data:`~eval.sql.oracle.suspect.KINDS` order, each kind's flags shuffled by :data:`SEED`), so a
rare kind is judged as often as a frequent one rather than drowned by it.

A judgement (``eval/golden/suspects/judgements.yaml``) names the flag (``spider-0704/narrow_literal``), the
finding as it was judged, ``right`` or ``wrong`` and why. A flag whose finding has changed since is not judged:
rules that changed are judged again, never carried over.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from eval.core.errors import UsageError
from eval.sql.oracle.suspect import KINDS, by_kind
from eval.sql.spider_study._graded import BACKEND, GradedSet

SEED = 34
"""The sample's seed (the issue that asked for it)."""
SIZE = 30
"""Flags judged by hand."""
TARGET = 0.9
"""Precision the judgements must reach: right flags over judged ones."""
JUDGEMENTS = BACKEND / "eval" / "golden" / "suspects" / "judgements.yaml"
VERDICTS = ("right", "wrong")


@dataclass(frozen=True)
class Flag:
    """One question's findings of one kind."""

    question_id: str
    kind: str
    findings: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.question_id}/{self.kind}"

    @property
    def finding(self) -> str:
        return "\n".join(self.findings)


@dataclass(frozen=True)
class Judgement:
    flag: str
    finding: str
    verdict: str
    reason: str


def flags_of(graded: GradedSet) -> list[Flag]:
    """The run's findings grouped by (question, kind), in the report's order."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for s in graded.report.get("suspect_references") or []:
        grouped.setdefault((str(s["question_id"]), str(s["kind"])), []).append(str(s["detail"]))
    return [Flag(q, k, tuple(d)) for (q, k), d in grouped.items()]


def counts(flags: Sequence[Flag]) -> dict[str, int]:
    """Questions flagged by each kind, every kind named."""
    return by_kind(flags)


def sample(flags: Sequence[Flag], size: int = SIZE, seed: int = SEED) -> list[Flag]:
    """``size`` flags taken across the kinds in turns (see the module docstring), in the order drawn."""
    rng = random.Random(seed)
    pools: dict[str, list[Flag]] = {}
    for kind in KINDS:
        pool = sorted((f for f in flags if f.kind == kind), key=lambda f: f.question_id)
        rng.shuffle(pool)
        pools[kind] = pool
    drawn: list[Flag] = []
    while len(drawn) < size and any(pools.values()):
        for kind in KINDS:
            if pools[kind] and len(drawn) < size:
                drawn.append(pools[kind].pop(0))
    return drawn


def load_judgements(path: Path = JUDGEMENTS) -> dict[str, Judgement]:
    """The committed judgements by flag; an empty table when the file is not there yet."""
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    rows = data.get("judgements") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise UsageError(f"{path}: expected a mapping with a 'judgements' list (see the README beside it)")
    out: dict[str, Judgement] = {}
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict) or row.get("verdict") not in VERDICTS or not str(row.get("reason", "")).strip():
            label = row.get("flag") if isinstance(row, dict) else repr(row)
            raise UsageError(
                f"{path}: judgement {n} ({label}) needs a flag, the finding, a verdict ({' or '.join(VERDICTS)}) "
                "and a one-line reason"
            )
        out[str(row["flag"])] = Judgement(
            str(row["flag"]), str(row.get("finding", "")).strip(), row["verdict"], row["reason"]
        )
    return out


@dataclass(frozen=True)
class Precision:
    """The drawn sample against the judgements."""

    drawn: list[Flag]
    right: list[Flag]
    wrong: list[Flag]
    unjudged: list[Flag]
    """Flags with no judgement, or whose finding changed since it was judged."""

    @property
    def judged(self) -> int:
        return len(self.right) + len(self.wrong)

    @property
    def value(self) -> float | None:
        return len(self.right) / self.judged if self.judged and not self.unjudged else None

    @property
    def met(self) -> bool:
        return self.value is not None and self.value >= TARGET


def precision(drawn: list[Flag], judgements: Mapping[str, Judgement]) -> Precision:
    right: list[Flag] = []
    wrong: list[Flag] = []
    unjudged: list[Flag] = []
    for f in drawn:
        j = judgements.get(f.key)
        if j is None or j.finding != f.finding.strip():
            unjudged.append(f)
        else:
            (right if j.verdict == "right" else wrong).append(f)
    return Precision(drawn, right, wrong, unjudged)


def summary(name: str, questions: int, flags: Sequence[Flag], result: Precision) -> str:
    """What the command prints, and the benchmarks page's block."""
    per_kind = counts(flags)
    flagged = len({f.question_id for f in flags})
    lines = [
        f"Suspect references on the shared Spider dev golds ({questions} questions with a database; flags from "
        f"grading `{name}`, the golds being the same for every set):",
        "",
        "| kind | questions flagged | sampled | judged right |",
        "|---|---:|---:|---:|",
    ]
    for kind in KINDS:
        drawn = [f for f in result.drawn if f.kind == kind]
        right = [f for f in result.right if f.kind == kind]
        lines.append(f"| `{kind}` | {per_kind[kind]} | {len(drawn)} | {len(right)} |")
    lines.append(f"| any | {flagged} | {len(result.drawn)} | {len(result.right)} |")
    lines.append("")
    if result.value is None:
        lines.append(
            f"Precision: not known, {len(result.unjudged)} of {len(result.drawn)} sampled flag(s) not judged "
            f"(or changed since): {', '.join(f.key for f in result.unjudged[:10])}"
            + (" ..." if len(result.unjudged) > 10 else "")
        )
    else:
        verdict = "met" if result.met else "NOT met"
        lines.append(
            f"Precision of the hand-checked sample ({len(result.drawn)} flags, seed {SEED}, taken across the kinds "
            f"in turns): {len(result.right)} right of {result.judged} = {result.value:.0%} (target "
            f"{TARGET:.0%}: {verdict})."
        )
        if result.wrong:
            lines.append("Judged wrong: " + ", ".join(f"`{f.key}`" for f in result.wrong) + ".")
    return "\n".join(lines)


def judgement_stub(drawn: Sequence[Flag], judgements: Mapping[str, Judgement]) -> dict[str, Any]:
    """The judgements file for ``drawn``: each flag's judgement as committed, or an empty one to fill in."""
    rows = []
    for f in drawn:
        j = judgements.get(f.key)
        keep = j is not None and j.finding == f.finding.strip()
        rows.append(
            {
                "flag": f.key,
                "finding": f.finding,
                "verdict": j.verdict if keep and j else "",
                "reason": j.reason if keep and j else "",
            }
        )
    return {"judgements": rows}
