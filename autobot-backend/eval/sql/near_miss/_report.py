"""The study's figures, and how they are shown: JSON, the Markdown report, the diagnosis page's block.

Kill rate = killed / (mutants that ran - mutants shown equivalent): a mutant that returns the
reference's rows on any database is no mistake the corpus could catch. Mutants that did not run
(the database refused them) are counted apart: the suite would grade them ``error``, caught, but
they are no near miss. Survivors of the ``outside`` and ``open`` classes count against the rate;
the rate without the ``outside`` ones (what a database of the fixtures' own period could show)
is given beside it, never instead of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from eval.core import markdown as md
from eval.core.figures import pct
from eval.sql.model import codec
from eval.sql.near_miss import _agreement
from eval.sql.near_miss._explain import Classified, Verdict
from eval.sql.near_miss._mutant import Kind
from eval.sql.near_miss._study import DID_NOT_RUN, KILLED, Study

TARGET = 0.95
"""The kill rate the corpus aims at (issue 14)."""


@dataclass(frozen=True)
class Tally:
    mutants: int
    did_not_run: int
    equivalent: int
    killed: int
    outside: int
    open: int

    @property
    def measurable(self) -> int:
        return self.mutants - self.did_not_run - self.equivalent

    @property
    def kill_rate(self) -> float | None:
        return self.killed / self.measurable if self.measurable else None

    @property
    def kill_rate_in_period(self) -> float | None:
        """Leaving out the survivors only data outside the fixtures could show."""
        n = self.measurable - self.outside
        return self.killed / n if n else None

    def to_json(self) -> dict[str, Any]:
        return {
            "mutants": self.mutants,
            "did_not_run": self.did_not_run,
            "equivalent": self.equivalent,
            "measurable": self.measurable,
            "killed": self.killed,
            "survived_outside": self.outside,
            "survived_open": self.open,
            "kill_rate": _round(self.kill_rate),
            "kill_rate_in_period": _round(self.kill_rate_in_period),
        }


def tally(verdicts: Iterable[Verdict]) -> Tally:
    items = list(verdicts)
    outcome = Counter(v.judged.outcome for v in items if v.cls is None)
    classes = Counter(v.cls for v in items if v.cls is not None)
    return Tally(
        mutants=len(items),
        did_not_run=outcome[DID_NOT_RUN],
        equivalent=classes["equivalent"],
        killed=outcome[KILLED],
        outside=classes["outside"],
        open=classes["open"],
    )


def _round(rate: float | None) -> float | None:
    return None if rate is None else round(rate, 4)


def _groups(result: Classified, key: Callable[[Verdict], str]) -> dict[str, Tally]:
    groups: dict[str, list[Verdict]] = {}
    for v in result.verdicts:
        groups.setdefault(key(v), []).append(v)
    return {name: tally(vs) for name, vs in groups.items()}


def by_kind(result: Classified) -> dict[str, Tally]:
    found = _groups(result, lambda v: v.judged.mutant.kind.value)
    return {k.value: found[k.value] for k in Kind if k.value in found}


def by_stratum(result: Classified) -> dict[str, Tally]:
    return dict(sorted(_groups(result, lambda v: v.judged.stratum).items()))


def to_json(study: Study, result: Classified) -> dict[str, Any]:
    return {
        "study": "near_miss",
        "corpus_digest": study.corpus_digest,
        "rotations": study.rotations,
        "seed": study.seed,
        "target": TARGET,
        "summary": tally(result.verdicts).to_json(),
        "by_kind": {k: t.to_json() for k, t in by_kind(result).items()},
        "by_stratum": {k: t.to_json() for k, t in by_stratum(result).items()},
        "mutants": [
            {
                "question": v.judged.mutant.question_id,
                "stratum": v.judged.stratum,
                "kind": v.judged.mutant.kind.value,
                "site": v.judged.mutant.site,
                "sql": v.judged.mutant.sql,
                "outcome": v.judged.outcome,
                "class": v.cls,
                "why": v.why or None,
                "detail": v.judged.detail,
                "diagnosis": None if v.judged.diagnosis is None else codec.to_json(v.judged.diagnosis),
            }
            for v in result.verdicts
        ],
        "diagnosis_agreement": _agreement.to_json(study.judged),
        "unusable_questions": study.broken,
        "problems": result.problems,
    }


_HEAD = ["", "mutants", "did not run", "equivalent", "killed", "survived", "kill rate"]


def _row(name: str, t: Tally) -> list[str]:
    return [
        md.escape(name),
        str(t.mutants),
        str(t.did_not_run),
        str(t.equivalent),
        str(t.killed),
        str(t.outside + t.open),
        pct(t.kill_rate),
    ]


def headline(study: Study, result: Classified) -> list[str]:
    t = tally(result.verdicts)
    met = "met" if t.kill_rate is not None and t.kill_rate >= TARGET else "NOT met"
    return [
        f"{t.mutants} mutants of the reference queries of the built-in corpus (corpus digest "
        f"`{study.corpus_digest[:16]}`), each run on {study.rotations} rotation(s) from seed {study.seed}: "
        f"**kill rate {pct(t.kill_rate)}** ({t.killed} killed of {t.measurable}; target {TARGET:.0%}: {met}). "
        f"{t.equivalent} mutants are equivalent (the same rows on any database) and left out; "
        f"{t.did_not_run} did not run. Of the {t.outside + t.open} survivors, {t.outside} need data outside the "
        f"fixtures' period; without them the kill rate is {pct(t.kill_rate_in_period)}.",
    ]


def _tables(result: Classified) -> list[str]:
    kinds = [_row(k, t) for k, t in by_kind(result).items()]
    strata = [_row(k, t) for k, t in by_stratum(result).items()]
    return [
        "Per mistake:",
        "",
        md.table(["mistake", *_HEAD[1:]], kinds),
        "",
        "Per stratum:",
        "",
        md.table(["stratum", *_HEAD[1:]], strata),
        "",
    ]


def _survivor_lines(verdicts: Iterable[Verdict]) -> list[str]:
    return [
        f"- **{md.escape(v.judged.mutant.question_id)}** {md.escape(v.judged.mutant.kind.value)}: "
        f"{md.escape(v.judged.mutant.site)} ({v.cls}: {md.escape(v.why)})"
        for v in verdicts
    ]


def docs_block(study: Study, result: Classified) -> str:
    """What the diagnosis page carries between its near-miss markers: figures, tables, every counted survivor."""
    survivors = [v for v in result.verdicts if v.cls in ("outside", "open")]
    reasons = Counter(v.why for v in result.verdicts if v.cls == "equivalent")
    lines = [*headline(study, result), "", *_tables(result)]
    lines += ["Survivors that count against the rate:", "", *_survivor_lines(survivors), ""]
    lines += ["Equivalent mutants, by reason:", ""]
    lines += [f"- {n} x {md.escape(why)}" for why, n in sorted(reasons.items(), key=lambda r: (-r[1], r[0]))]
    return "\n".join(lines)


def agreement_block(study: Study) -> str:
    """What the diagnosis page carries between its diagnosis-agreement markers: the agreement table and every miss."""
    return "\n".join(_agreement.lines(study.judged)).strip()


def markdown(study: Study, result: Classified) -> str:
    """The full report: figures, tables, every survivor (equivalent ones too) and any problem."""
    out = ["# Near-miss study", "", *headline(study, result), "", *_tables(result)]
    out += ["## Why each killed mutant is wrong: the diagnosis against the known mistake", ""]
    out += _agreement.lines(study.judged)
    if result.problems:
        out += [
            "## Problems (the study cannot vouch for its figures)",
            "",
            *[f"- {md.escape(p)}" for p in result.problems],
            "",
        ]
    left_out = "Questions left out (a failed self-check, or a reference sqlglot does not write back): "
    out += md.named(left_out, study.broken)
    for cls in ("open", "outside", "equivalent"):
        found = [v for v in result.verdicts if v.cls == cls]
        if found:
            out += [f"## Survivors: {cls} ({len(found)})", "", *_survivor_lines(found), ""]
    return "\n".join(out)
