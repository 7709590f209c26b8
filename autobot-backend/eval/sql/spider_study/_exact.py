"""Exact match against Spider's own script: each shared prediction set graded with ``--exact-match official``,
its EM beside the official ``evaluation.py``'s (``official_exact_match.jsonl``), pair by pair.

The official figure is counted as the script counts it: every question of the file (972 per set: the dev
questions whose database is shared), a prediction its parser could not read as no match. Ours is the run's
own ``exact_match`` figure, in official mode and, beside it, extended mode. The target: within 1 point of the
official figure on every set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from eval.sql.grading.exact_match import MISSING_NAMES, UNREADABLE
from eval.sql.spider_study._graded import GradedSet, dev_index
from eval.sql.spider_study._sets import SpiderDev

OFFICIAL_FILE = "official_exact_match.jsonl"
TARGET_POINTS = 1.0
"""The most our official-mode EM may differ from the official script's, in percentage points."""
RUN_FLAGS = ("--exact-match", "official")
COMMAND = "python -m eval.sql.spider_study exact-match"


@dataclass(frozen=True)
class SetAgreement:
    """One set: the official EM, ours in both modes, and where the two official-mode verdicts part."""

    name: str
    official: tuple[int, int]
    """(matched, questions) by the official script, every question of the file counted."""
    ours: tuple[int, int]
    """(matched, measured) by the run's official mode."""
    extended: tuple[int, int]
    """(matched, measured) by the run's extended mode."""
    differ: int
    """Answers the run's two modes score differently."""
    pairs: Counter[tuple[bool, str]] = field(default_factory=Counter)
    """(official match, ours: ``match`` / ``no match`` / ``unmeasured`` / ``missing``) -> pairs."""
    disagreeing: tuple[int, ...] = ()
    """Dev indices whose official result ours does not give, in order."""
    parser: Counter[tuple[bool, bool]] = field(default_factory=Counter)
    """(the official script could not parse the prediction, ours says Spider's parser cannot read it) -> pairs."""
    missing_names: tuple[int, int] = (0, 0)
    """(answers whose SQL names a table or column the database lacks, how many of them ran)."""

    @property
    def gap_points(self) -> float:
        """|ours - official| in percentage points."""
        return abs(100 * (_rate(self.ours) - _rate(self.official)))

    @property
    def agreeing(self) -> int:
        return self.pairs[(True, "match")] + self.pairs[(False, "no match")]

    @property
    def met(self) -> bool:
        return self.gap_points <= TARGET_POINTS


def _rate(pair: tuple[int, int]) -> float:
    return pair[0] / pair[1] if pair[1] else 0.0


def _ours(question: dict[str, Any] | None) -> str:
    exact = question.get("exact") if question else None
    if not isinstance(exact, dict):
        return "missing"
    match = exact.get("match")
    return "unmeasured" if match is None else "match" if match else "no match"


def agreement(spider: SpiderDev, graded: GradedSet) -> SetAgreement:
    """``graded`` (a run with ``--exact-match official``) against the official per-pair results of its set."""
    published = {i: row for (name, i), row in spider.published(OFFICIAL_FILE).items() if name == graded.name}
    em = graded.report.get("exact_match") or {}
    if em.get("mode") != "official":
        raise ValueError(f"{graded.name}: the run's EM is not in official mode (give it {' '.join(RUN_FLAGS)})")
    questions = {dev_index(q["id"]): q for q in graded.report["questions"]}
    pairs: Counter[tuple[bool, str]] = Counter()
    parser: Counter[tuple[bool, bool]] = Counter()
    disagreeing = []
    for i, row in sorted(published.items()):
        official, ours = bool(row["exact_match"]), _ours(questions.get(i))
        pairs[(official, ours)] += 1
        parser[(bool(row.get("error")), _notes(questions.get(i))[0].startswith(UNREADABLE))] += 1
        if ours != ("match" if official else "no match"):
            disagreeing.append(i)
    named = [q for q in questions.values() if any(n.startswith(MISSING_NAMES) for n in _notes(q))]
    other = em["other"]
    return SetAgreement(
        graded.name,
        (sum(bool(r["exact_match"]) for r in published.values()), len(published)),
        (em["matched"], em["measured"]),
        (other["matched"], other["measured"]),
        em["differ"],
        pairs,
        tuple(disagreeing),
        parser,
        (len(named), sum(q["verdict"] in ("pass", "wrong") for q in named)),
    )


def _notes(question: dict[str, Any] | None) -> tuple[str, str]:
    """(the official-mode note, the extended-mode note) of a question's EM; empty strings without one."""
    exact = question.get("exact") if question else None
    if not isinstance(exact, dict):
        return "", ""
    other = exact.get("extended") or {}
    return str(exact.get("note") or ""), str(other.get("note") or "")


def _of(pair: tuple[int, int]) -> str:
    return f"{pair[0]}/{pair[1]} ({100 * _rate(pair):.1f}%)"


def table(sets: Sequence[SetAgreement]) -> str:
    """One row per set: the official EM, ours in both modes, the gap and the pair-level agreement."""
    lines = [
        "| set | official `evaluation.py` | ours, `--exact-match official` | gap | ours, extended mode "
        "| modes differ | pairs agreeing | parser: unreadable to both / to one only | names the schema lacks (ran) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in sets:
        total = sum(s.pairs.values())
        one_only = s.parser[(True, False)] + s.parser[(False, True)]
        lines.append(
            f"| {s.name} | {_of(s.official)} | {_of(s.ours)} | {s.gap_points:.1f} pt | {_of(s.extended)} "
            f"| {s.differ} | {s.agreeing}/{total} | {s.parser[(True, True)]} / {one_only} "
            f"| {s.missing_names[0]} ({s.missing_names[1]}) |"
        )
    return "\n".join(lines)


def confusion(s: SetAgreement) -> str:
    """The pair-level table of one set: the official result by ours (official mode)."""
    columns = ("match", "no match", "unmeasured", "missing")
    lines = [
        f"| {s.name}: official \\ ours | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for official in (True, False):
        label = "official match" if official else "official no match"
        lines.append(f"| {label} | " + " | ".join(str(s.pairs[(official, c)]) for c in columns) + " |")
    return "\n".join(lines)


def report(sets: Sequence[SetAgreement], first: int) -> str:
    """The study's Markdown: the figures, each set's confusion table and its first ``first`` disagreeing pairs."""
    out = ["# Exact match against Spider's official script", "", table(sets), ""]
    for s in sets:
        shown = ", ".join(str(i) for i in s.disagreeing[:first]) or "none"
        more = f" (and {len(s.disagreeing) - first} more)" if len(s.disagreeing) > first else ""
        verdict = "within" if s.met else "NOT within"
        out += [
            confusion(s),
            "",
            f"{s.name}: {verdict} {TARGET_POINTS:g} point of the official figure; disagreeing pairs (dev index): "
            f"{shown}{more}",
            "",
        ]
    return "\n".join(out).rstrip() + "\n"


def docs_block(sets: Sequence[SetAgreement]) -> str:
    """The benchmarks page's figures: the table and each set's confusion table, with the command that made them."""
    parts = [f"Made by `{COMMAND} --update-docs` (checked by a test with `--check-docs`):", "", table(sets), ""]
    for s in sets:
        parts += [confusion(s), ""]
    return "\n".join(parts).rstrip()
