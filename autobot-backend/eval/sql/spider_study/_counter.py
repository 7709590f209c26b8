"""The shared Spider sets put to the counterexample search (issue 36 point 5): per set, how many passes were
searched and refuted, how many neighbours judged and set aside; per database, which declared constraints the
search could hold.

Each set is graded as a user grades it (:func:`~eval.sql.spider_study._graded.grade_set`) with
``--counterexamples`` at :data:`BUDGET` neighbours a pass, every question: the draws are seeded by the question
id and the answer's SQL, so a rerun prints the same figures (the time aside, which is printed and never put on a
page).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from eval.sql.counterexample.budget import DEFAULT_BUDGET
from eval.sql.spider_study._audit import Audited
from eval.sql.spider_study._graded import GradedSet

BUDGET = DEFAULT_BUDGET
"""Neighbours per pass: the run's own default, so the figures say what ``--counterexamples`` alone finds."""
RUN_FLAGS = ("--counterexamples", str(BUDGET))


@dataclass(frozen=True)
class SetSearch:
    """One set's passes and what the search made of them."""

    name: str
    questions: int
    passes: int
    searched: int
    """Passes on which at least one neighbour was judged."""
    refuted: tuple[int, ...]
    """Dev indexes of the refuted passes."""
    judged: int
    discarded: Counter[str] = field(default_factory=Counter)
    """Neighbours set aside, by why."""
    not_searched: Counter[str] = field(default_factory=Counter)
    """Passes on which nothing was judged, by why (the search's note, or no neighbour it could make)."""
    by_database: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Database -> (passes, refuted)."""
    seconds: float = 0.0


def searched_set(graded: GradedSet, seconds: float = 0.0) -> SetSearch:
    """The figures of a set graded with :data:`RUN_FLAGS`; raises ValueError when its run did not search."""
    passes = [(i, q) for i, q in sorted(graded.questions.items()) if q["verdict"] == "pass"]
    if passes and not any(q.get("search") for _, q in passes):
        raise ValueError(f"{graded.name}: the run searched no pass: was it graded with {' '.join(RUN_FLAGS)}?")
    discarded: Counter[str] = Counter()
    not_searched: Counter[str] = Counter()
    refuted, judged, searched = [], 0, 0
    per_db: dict[str, list[int]] = {}
    for i, q in passes:
        s: dict[str, Any] = q.get("search") or {}
        tally = per_db.setdefault(str(q.get("database")), [0, 0])
        tally[0] += 1
        judged += int(s.get("tried", 0))
        discarded.update({str(k): int(v) for k, v in (s.get("discarded") or {}).items()})
        if int(s.get("tried", 0)) > 0:
            searched += 1
        else:
            not_searched[str(s.get("note") or "no neighbour kept every constraint")] += 1
        if s.get("refuted"):
            refuted.append(i)
            tally[1] += 1
    return SetSearch(
        graded.name,
        len(graded.questions),
        len(passes),
        searched,
        tuple(refuted),
        judged,
        discarded,
        not_searched,
        {db: (n, r) for db, (n, r) in sorted(per_db.items())},
        seconds,
    )


def _share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.1f}%)" if whole else str(part)


def per_set_table(sets: list[SetSearch]) -> list[str]:
    lines = [
        "| set | questions graded | passes | passes searched | refuted | neighbours judged | set aside |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sets:
        lines.append(
            f"| {s.name} | {s.questions} | {s.passes} | {s.searched} | {_share(len(s.refuted), s.passes)} "
            f"| {s.judged} | {sum(s.discarded.values())} |"
        )
    return lines


def _set_aside(sets: list[SetSearch]) -> list[str]:
    lines = []
    for s in sets:
        why = "; ".join(f"{reason} {n}" for reason, n in sorted(s.discarded.items(), key=lambda x: (-x[1], x[0])))
        lines.append(f"- {s.name}: {why or 'none'}.")
        if s.not_searched:
            skipped = "; ".join(f"{n}: {reason}" for reason, n in sorted(s.not_searched.items()))
            lines.append(f"  Passes not searched: {skipped}.")
        else:
            lines.append("  Every pass was searched (at least one neighbour judged).")
    return lines


def database_table(sets: list[SetSearch], audits: list[Audited]) -> list[str]:
    names = " | ".join(f"{s.name} refuted / passes" for s in sets)
    lines = [
        f"| database | foreign keys declared | held by the search | rows of the data breaking one | {names} |",
        "|---|---:|---:|---:|" + "---:|" * len(sets),
    ]
    for a in audits:
        cells = []
        for s in sets:
            n, r = s.by_database.get(a.database, (0, 0))
            cells.append(f"{r} / {n}")
        broken = a.broken_label
        lines.append(f"| {a.database} | {a.declared} | {a.held} | {broken} | {' | '.join(cells)} |")
    return lines


def docs_block(sets: list[SetSearch], audits: list[Audited]) -> str:
    """The benchmarks page's block: per set, the set-aside reasons, per database; no time (it varies by machine)."""
    lines = [
        f"Every pass of each set searched with `--counterexamples {BUDGET}` ({BUDGET} neighbours a pass, seeded by "
        "the question id and the answer's SQL; every question, no sample), printed by `python -m "
        "eval.sql.spider_study counterexamples`:",
        "",
        *per_set_table(sets),
        "",
        "Neighbours set aside, by why (one that broke a constraint or a stated rule is never written and not counted "
        "as judged; the others were written, run and judged, and could not decide):",
        "",
        *_set_aside(sets),
        "",
        "Per database: the foreign keys its SQLite file declares, those the search holds every neighbour to, and "
        "the rows of the shared data that already break one (the search holds a constraint the data breaks only "
        "on the rows an edit touches):",
        "",
        *database_table(sets, audits),
    ]
    notes = [a.note for a in audits if a.note]
    if notes:
        lines += ["", *(f"- {n}" for n in notes)]
    return "\n".join(lines)


def report(sets: list[SetSearch], audits: list[Audited]) -> str:
    """What the command prints: the page's block, then each set's time (this machine's, never on the page)."""
    timing = [f"- {s.name}: graded and searched in {s.seconds:.0f} s" for s in sets]
    return docs_block(sets, audits) + "\n\nTime (this machine, not on the page):\n\n" + "\n".join(timing)
