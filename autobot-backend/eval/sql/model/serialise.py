"""The run model as JSON, and back: the JSON report is :class:`~eval.sql.model.run.SQLRun` serialised.

Its keys are a contract (spec section 7). ``schema_version`` says which shape a file has; a reader
refuses a version it does not know rather than guess. The figures (``summary``, ``two_by_two``,
``strata``, ``refusal_strata``, ``control_strata``, ``databases``, ``difficulties``, ``exact_match``,
``missed_refusals``, ``diagnosis_counts``, ``failing``) are written for readers in other languages and
recomputed from the questions on reading, so a file cannot carry figures its own questions contradict.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from eval.core.classification import Classification
from eval.core.errors import HarnessError
from eval.sql.model.counterexample import Search
from eval.sql.model.diagnosis import Diagnosis
from eval.sql.model.exact import ExactMatch
from eval.sql.model.excerpt import Excerpt
from eval.sql.model.gate import GateResult
from eval.sql.model.lints import Lint
from eval.sql.model.outcome import Cost, SQLOutcome, Verdict
from eval.sql.model.run import Classified, SQLRun
from eval.sql.model.setup import CorpusStamps, RunSetup
from eval.sql.model.transcript import Transcript

SCHEMA_VERSION = 2
"""1: the JSON before the run model (no ``schema_version`` key); 2: the run model serialised."""


class ReportFormatError(HarnessError):
    """A JSON report that is not a SQL run this harness can read."""


def _question(run: SQLRun, o: SQLOutcome) -> dict[str, Any]:
    c = run.classes.get(o.question_id)
    exact = {} if o.exact is None else {"exact": o.exact.to_json()}  # only then: other reports stay as they were
    searched = {} if o.search is None else {"search": o.search.to_json()}  # only with --counterexamples
    return (
        {
            "id": o.question_id,
            "expect": o.expect,
            "stratum": o.stratum,
            "verdict": o.verdict.value,
            "reason": o.reason,
            "detail": o.detail,
            "sql": o.sql,
            "declined_by": o.declined_by,
            "rotations_matched": o.rotations_matched,
            "rotations": o.rotations,
            "classification": None if c is None else c.classification.value,
            "baseline_verdict": None if c is None else c.baseline_verdict,
            "fixture": o.fixture,
            "database": o.database,
            "difficulty": o.difficulty,
            "question": o.question,
            "cost": None if o.cost is None else dataclasses.asdict(o.cost),
            "samples": [v.value for v in o.samples] if o.samples else None,
            "reference_sql": o.reference_sql,
            "excerpt": None if o.excerpt is None else dataclasses.asdict(o.excerpt),
            "decimals": o.decimals,
            "transcripts": [t.to_json() for t in o.transcripts],
            "diagnosis": None if o.diagnosis is None else o.diagnosis.to_json(),
        }
        | exact
        | searched
    )


def to_json(run: SQLRun) -> dict[str, Any]:
    exact = run.exact_match
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "suite": "sql",
        "generated_at": run.generated_at,
        "partial": run.partial,
        "candidate": {"path": run.candidate_path, "model": run.model},
        "cohort": run.cohort,
        "corpus": run.corpus,
        "run": run.run,
        "summary": run.summary,
        **({"lint_counts": counts} if (counts := run.lint_counts) else {}),  # only then: a run without keeps its bytes
        "two_by_two": run.two_by_two,
        "strata": run.strata,
        "refusal_strata": run.refusal_strata,
        "control_strata": run.control_strata,
        "databases": run.databases,
        "difficulties": run.difficulties,
        "missed_refusals": run.missed_refusals,
        "diagnosis_counts": run.diagnosis_counts,
        "failing": [o.question_id for o in run.failing],
        "baseline": run.baseline,
        "questions": [_question(run, o) for o in run.outcomes],
        "costs": run.costs,
        "repeats": run.repeats,
        "oracle_defects": run.oracle_defects,
        "warnings": run.warnings,
        "judge": run.judge,
        "gate": run.gate_view,
        "transcripts": run.transcripts,
    } | ({} if exact is None else {"exact_match": exact})
    if run.suspect_references:  # only then: a run without any keeps its report byte for byte
        data["suspect_references"] = run.suspect_references
    if run.lints:
        data["lints"] = [lint.to_json() for lint in run.lints]
    return data


def _excerpt(e: dict[str, Any] | None) -> Excerpt | None:
    if e is None:
        return None

    def rows(side: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
        return tuple((int(n), tuple(values)) for n, values in e[side])

    return Excerpt(
        rotation=e["rotation"],
        expected_columns=tuple(e["expected_columns"]),
        actual_columns=tuple(e["actual_columns"]),
        expected=rows("expected"),
        actual=rows("actual"),
        expected_row=e.get("expected_row"),
        actual_row=e.get("actual_row"),
        column=e.get("column"),
    )


def _outcome(q: dict[str, Any]) -> SQLOutcome:
    return SQLOutcome(
        question_id=q["id"],
        expect=q["expect"],
        stratum=q["stratum"],
        verdict=Verdict(q["verdict"]),
        reason=q.get("reason"),
        detail=q.get("detail") or "",
        sql=q.get("sql"),
        question=q.get("question") or "",
        fixture=q.get("fixture"),
        database=q.get("database"),
        difficulty=q.get("difficulty"),
        rotations_matched=q.get("rotations_matched"),
        rotations=q.get("rotations"),
        cost=None if q.get("cost") is None else Cost(**q["cost"]),
        samples=tuple(Verdict(v) for v in q.get("samples") or ()),
        reference_sql=q.get("reference_sql"),
        excerpt=_excerpt(q.get("excerpt")),
        decimals=q.get("decimals"),
        transcripts=tuple(Transcript.from_json(t) for t in q.get("transcripts") or ()),
        exact=None if q.get("exact") is None else ExactMatch.from_json(q["exact"]),
        diagnosis=None if q.get("diagnosis") is None else Diagnosis.from_json(q["diagnosis"]),
        search=None if q.get("search") is None else Search.from_json(q["search"]),
    )


def from_json(data: Any, source: str = "the report") -> SQLRun:
    """The run a JSON report holds. ``source`` names the file in errors.

    A report written before the run model (no ``schema_version``) is read too: its keys are the same.
    """
    if not isinstance(data, dict) or data.get("suite") != "sql" or not isinstance(data.get("questions"), list):
        raise ReportFormatError(
            f"{source}: not a SQL suite report (python -m eval.run --suite sql --json PATH writes one)"
        )
    version = data.get("schema_version", 1)
    if version not in (1, SCHEMA_VERSION):
        raise ReportFormatError(
            f"{source}: schema_version {version!r} is not one this harness reads (1 or {SCHEMA_VERSION}); "
            "upgrade the harness or re-run the report"
        )
    try:
        outcomes = [_outcome(q) for q in data["questions"]]
        classes = {
            q["id"]: Classified(Classification(q["classification"]), q.get("baseline_verdict"))
            for q in data["questions"]
            if q.get("classification") is not None
        }
        gate = data.get("gate") or {}
        candidate = data.get("candidate") or {}
        return SQLRun(
            outcomes=outcomes,
            candidate_path=candidate.get("path", "?"),
            model=candidate.get("model", "?"),
            corpus=cast(CorpusStamps, data.get("corpus") or {}),
            run=cast(RunSetup, data.get("run") or {}),
            baseline=data.get("baseline"),
            classes=classes,
            gate=None if gate.get("status", "not_evaluated") == "not_evaluated" else GateResult.from_json(gate),
            gate_note=gate.get("detail"),
            gated=bool(gate.get("enforced", False)),
            oracle_defects=list(data.get("oracle_defects") or []),
            warnings=list(data.get("warnings") or []),
            generated_at=data.get("generated_at", ""),
            cohort=data.get("cohort"),
            costs=data.get("costs"),
            repeats=data.get("repeats"),
            partial=bool(data.get("partial", False)),
            judge=data.get("judge"),
            transcripts=data.get("transcripts"),
            suspect_references=list(data.get("suspect_references") or []),
            lints=[Lint.from_json(lint) for lint in data.get("lints") or []],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReportFormatError(f"{source}: a question or field is malformed ({exc!r})") from None
