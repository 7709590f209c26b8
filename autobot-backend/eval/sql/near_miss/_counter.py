"""The near-miss study's survivors put to the counterexample search (issue 36 point 5).

A survivor passes every rotation. The search (:mod:`eval.sql.counterexample`, the same one ``--counterexamples``
runs on a pass) looks for a database the fixture could hold on which the grader would call it wrong. What it
must find, and must not, is known: every ``open`` survivor is wrong on data the fixture could hold, so each one
refuted is the search doing its job; an ``equivalent`` survivor gives the reference's rows on every database, so
one refuted is a defect of the search (a neighbour the schema or the fixture's rules forbid, or a comparison
unlike the grader's). So is a refuted *rewrite*: a hand-written equivalent of a built-in reference
(``rewrites.yaml``), SQL a person would write differently with the same rows on every database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from eval.core import markdown as md
from eval.core.errors import HarnessError
from eval.sql.corpus.questions import Corpus, Question
from eval.sql.counterexample.budget import Budget
from eval.sql.counterexample.memory_writer import MemoryWriter
from eval.sql.counterexample.search import Searcher
from eval.sql.fixtures.rules import RULES
from eval.sql.grading.grade import Grader
from eval.sql.grading.refuting import search_one
from eval.sql.model.counterexample import Search
from eval.sql.model.defaults import DEFAULT_ROTATIONS
from eval.sql.model.outcome import Verdict
from eval.sql.near_miss._explain import Classified
from eval.sql.near_miss._study import checked_references
from eval.sql.oracle.tie_check import ties_elsewhere
from services.readonly.execute import ReadOnlySQL

REWRITES = Path(__file__).with_name("rewrites.yaml")
CLASSES = ("open", "equivalent", "rewrite")
STUDY_BUDGET = "50"
"""Neighbours per survivor in the published figures (``--counterexamples`` without a value)."""


@dataclass(frozen=True)
class Rewrite:
    question: str
    sql: str
    why: str


@dataclass(frozen=True)
class Searched:
    cls: str
    """``open``, ``equivalent`` (survivors) or ``rewrite``."""
    question: str
    name: str
    """The mutant's kind and site, or the rewrite's why."""
    search: Search | None
    """None: a rewrite that does not pass on the fixture (an error of the rewrites file)."""


def load_rewrites(path: Path = REWRITES) -> list[Rewrite]:
    doc: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for i, entry in enumerate((doc or {}).get("rewrites") or (), 1):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("question", "sql", "why")):
            raise HarnessError(f"{path.name}: rewrite {i} needs question, sql and why")
        out.append(Rewrite(entry["question"], entry["sql"].strip(), entry["why"]))
    return out


def search_survivors(
    corpus: Corpus,
    result: Classified,
    rewrites: Sequence[Rewrite],
    budget: Budget,
    *,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    classes: Sequence[str] = CLASSES,
) -> list[Searched]:
    """Every ``open`` and ``equivalent`` survivor and every rewrite searched on SQLite rotations of its fixture
    (``classes``: only those of these classes)."""
    by_id = {q.id: q for q in corpus.questions}
    todo: list[tuple[str, Question, str, str]] = [
        (
            str(v.cls),
            by_id[v.judged.mutant.question_id],
            v.judged.mutant.sql,
            f"{v.judged.mutant.kind.value}: {v.judged.mutant.site}",
        )
        for v in result.verdicts
        if v.cls in ("open", "equivalent") and v.judged.mutant.question_id in by_id
    ]
    todo += [("rewrite", by_id[r.question], r.sql, r.why) for r in rewrites if r.question in by_id]
    todo = [t for t in todo if t[0] in classes]
    checked = checked_references(corpus, seed=seed, rotations=DEFAULT_ROTATIONS, prefix="near-miss-cx-")
    with checked as (tmp, database, targets, check):
        grader = Grader(database, targets, check.reference, check.ties, check.also, check.also_ties)
        searcher = Searcher(budget, ties_elsewhere, MemoryWriter, tmp / "neighbours", rules=RULES)
        out = []
        try:
            for i, (cls, q, sql, name) in enumerate(todo, 1):
                if progress is not None:
                    progress(i, len(todo))
                out.append(Searched(cls, q.id, name, _searched(grader, searcher, database, q, sql, targets)))
        finally:
            searcher.close()
    return out


def _searched(
    grader: Grader,
    searcher: Searcher,
    database: ReadOnlySQL,
    q: Question,
    sql: str,
    targets: dict[str | None, list[str]],
) -> Search | None:
    """The search on ``sql`` when it passes on the rotations (a survivor does; a rewrite must), else None."""
    got = grader.capped(q, database.run_readonly(sql, targets[q.target][0]))
    if not got.ok or grader._grade_answer(q, sql, got).verdict is not Verdict.PASS:
        return None
    return search_one(grader, searcher, q, sql)


def counter_block(searched: Sequence[Searched], budget: Budget) -> str:
    """The diagnosis page's block: per class, how many were searched and refuted; every open survivor the search
    missed; every equivalent survivor or rewrite it refuted (each a defect); any rewrite that does not pass."""
    lines = [
        f"Counterexample search on the survivors ({budget.label} each, seeded by the question and the SQL; "
        "`python -m eval.sql.near_miss --counterexamples`):",
        "",
        "| class | searched | refuted | neighbours judged | set aside |",
        "|---|---|---|---|---|",
    ]
    for cls in CLASSES:
        mine = [s for s in searched if s.cls == cls and s.search is not None]
        refuted = sum(s.search.refuted is not None for s in mine if s.search is not None)
        tried = sum(s.search.tried for s in mine if s.search is not None)
        aside = sum(sum(s.search.discarded.values()) for s in mine if s.search is not None)
        lines.append(f"| {cls} | {len(mine)} | {refuted} | {tried:,} | {aside:,} |")
    lines.append("")
    missed = [s for s in searched if s.cls == "open" and s.search is not None and s.search.refuted is None]
    wrongly = [s for s in searched if s.cls != "open" and s.search is not None and s.search.refuted is not None]
    failing = [s for s in searched if s.search is None]
    lines += ["Open survivors not refuted:", ""] + (_lines(missed) or ["- none"]) + [""]
    lines += ["Equivalent survivors or rewrites refuted (each a defect of the search):", ""]
    lines += (_lines(wrongly, refuted=True) or ["- none"]) + [""]
    if failing:
        lines += ["Rewrites that do not pass on the fixture (an error of rewrites.yaml):", "", *_lines(failing), ""]
    return "\n".join(lines).strip()


def _lines(found: Sequence[Searched], *, refuted: bool = False) -> list[str]:
    out = []
    for s in found:
        line = f"- **{md.escape(s.question)}** {md.escape(s.name, 200)}"
        if refuted and s.search is not None and s.search.refuted is not None:
            line += f": {md.escape(s.search.refuted.detail, 200)}"
        out.append(line)
    return out


def problems(searched: Sequence[Searched]) -> list[str]:
    """What the study must not show: an equivalent survivor or a rewrite refuted, a rewrite that does not pass."""
    out = [
        f"{s.question}: {s.cls} refuted: {s.name}"
        for s in searched
        if s.cls != "open" and s.search and s.search.refuted
    ]
    out += [f"{s.question}: rewrite does not pass on the fixture: {s.name}" for s in searched if s.search is None]
    return out
