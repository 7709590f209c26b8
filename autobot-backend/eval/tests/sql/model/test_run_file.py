"""The run file is the run model walked field by field (:mod:`eval.sql.model.codec`): what was written before
the serialiser was field-driven reads back and is written again byte for byte, older shapes still read, and each
rule a field declares (its key, when it is left out, how an older file lacks it) holds both ways."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from eval.core.classification import Classification
from eval.sql.gate.baseline import BASELINE_DIR, Baseline
from eval.sql.model import codec
from eval.sql.model.costs import Repeats
from eval.sql.model.exact import ExactMatch
from eval.sql.model.gate import GateCheck
from eval.sql.model.outcome import Classified, SQLOutcome, Verdict
from eval.sql.model.serialise import ReportFormatError, from_json, to_json
from eval.sql.model.transcript import Message, Transcript

REPO = Path(__file__).resolve().parents[5]
EXAMPLE = REPO / "docs" / "eval" / "examples" / "sql-run.json"
SNAPSHOT = Path(__file__).parents[2] / "data" / "characterisation" / "builtin.json"


REPEATS = Repeats(
    k=3,
    questions=2,
    majority_pass_rate=0.5,
    majority_pass_rate_ci=[0.1, 0.9],
    ci_method="bootstrap",
    pass_at=1.0,
    pass_hat=0.0,
    flaky=["q"],
)


def written(data: dict[str, Any]) -> str:
    """A report as ``--json`` writes it."""
    return json.dumps(data, indent=2, default=str) + "\n"


def test_the_committed_example_run_is_written_again_byte_for_byte() -> None:
    """The README's run (docs/eval/examples/sql-run.json), read into the model and written again: the same bytes,
    key order included."""
    text = EXAMPLE.read_text(encoding="utf-8")
    run = from_json(json.loads(text), str(EXAMPLE))
    assert run.outcomes and run.summary.answerable and run.cohort is not None
    assert written(to_json(run)) == text


def test_the_builtin_runs_snapshot_reads_back_and_writes_its_own_bytes() -> None:
    """The characterisation snapshot (148 outcomes, sorted keys, timings replaced by markers) is written again as
    it was: a file's values pass through the model unchanged."""
    text = SNAPSHOT.read_text(encoding="utf-8")
    again = json.dumps(to_json(from_json(json.loads(text))), indent=2, sort_keys=True) + "\n"
    assert again == text


@pytest.mark.parametrize("path", sorted(BASELINE_DIR.glob("*.json")), ids=lambda p: p.name)
def test_each_committed_baseline_is_written_again_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    baseline = codec.from_json(Baseline, json.loads(text))
    assert baseline.summary.answerable and baseline.questions and baseline.keys, "read into typed values"
    assert json.dumps(codec.to_json(baseline), indent=1) + "\n" == text


def _older(data: dict[str, Any]) -> dict[str, Any]:
    """The example as a report from before the keys added since schema version 2 (and before it: version 1)."""
    old = json.loads(json.dumps(data))
    for key in ("schema_version", "transcripts", "lint_counts", "gate", "candidate", "generated_at"):
        old.pop(key, None)
    for q in old["questions"]:
        for key in ("decimals", "transcripts", "excerpt", "reference_sql", "diagnosis", "samples", "detail"):
            q.pop(key, None)
    if old.get("costs"):
        old["costs"].pop("tokens_per_ask", None)
        if old["costs"].get("model_latency_ms"):
            old["costs"]["model_latency_ms"].pop("asks")
    return old


def test_a_report_from_before_the_later_keys_still_reads() -> None:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    run = from_json(_older(data), "old.json")
    assert (run.candidate_path, run.model, run.generated_at) == ("?", "?", "")
    assert run.gate is None and run.gate_note is None and not run.gated, "no gate: not evaluated"
    assert run.transcripts is None and all(o.transcripts == () and o.samples == () for o in run.outcomes)
    assert all(o.detail == "" and o.diagnosis is None for o in run.outcomes)
    assert run.summary == from_json(data).summary, "the figures come from the questions, as before"
    assert run.costs is not None and run.costs.tokens_per_ask is None
    latency = run.costs.model_latency_ms
    assert latency is not None and latency.asks == latency.questions, "one ask per question before asks were counted"


def test_older_values_inside_a_question_still_read() -> None:
    exact = codec.from_json(ExactMatch, {"match": True, "components": {"select": True}, "tables": True})
    assert (exact.mode, exact.other, exact.other_note) == ("extended", None, ""), "before the modes: extended alone"
    said = codec.from_json(Transcript, {"messages": [{"role": "user", "content": "q"}], "reply": "abc", "sql": None})
    assert said.messages == (Message("user", "q"),) and said.reply_chars == 3, "the reply as kept is its length"


def test_a_key_named_after_another_field_is_written_and_read_by_it() -> None:
    """pass@K is ``pass_at_K`` and the other EM mode's result is under the other mode's name."""
    data = codec.to_json(REPEATS)
    assert list(data) == [
        "k",
        "questions",
        "majority_pass_rate",
        "majority_pass_rate_ci",
        "ci_method",
        "pass_at_3",
        "pass_hat_3",
        "flaky",
    ]
    assert codec.from_json(Repeats, data) == REPEATS
    official = ExactMatch(False, {}, None, "unreadable", True, "", mode="official")
    data = codec.to_json(official)
    assert data["extended"] == {"match": True, "note": ""} and "official" not in data
    assert codec.from_json(ExactMatch, data) == official


def test_a_question_writes_what_it_holds_where_the_report_always_had_it() -> None:
    """``declined_by`` (a figure) after ``sql``; the classification written into the question (null without a
    baseline); ``samples`` null when there are none; ``exact`` only when EM was asked for."""
    plain = SQLOutcome("q", "refuse", "s", Verdict.REFUSED)
    data = codec.to_json(plain)
    keys = list(data)
    assert keys[keys.index("sql") + 1] == "declined_by" and data["declined_by"] == "generator"
    assert keys[keys.index("rotations") + 1 : keys.index("rotations") + 3] == ["classification", "baseline_verdict"]
    assert data["classification"] is None and data["samples"] is None and "exact" not in data
    assert codec.from_json(SQLOutcome, data) == plain
    classified = dataclasses.replace(
        plain,
        classified=Classified(Classification.REGRESSION, "refused"),
        samples=(Verdict.REFUSED, Verdict.ANSWERED),
        exact=ExactMatch(None, note="no SQL"),
    )
    data = codec.to_json(classified)
    assert (data["classification"], data["baseline_verdict"]) == ("regression", "refused")
    assert data["samples"] == ["refused", "answered"] and data["exact"]["note"] == "no SQL"
    assert codec.from_json(SQLOutcome, data) == classified


def test_a_missing_required_key_or_a_null_where_none_is_not_taken_is_an_error_naming_it() -> None:
    with pytest.raises(KeyError, match="ok"):
        codec.from_json(GateCheck, {"name": "regressions", "detail": "d"})
    with pytest.raises(ValueError, match="null"):
        codec.from_json(SQLOutcome, {"id": "q", "expect": "answer", "stratum": "s", "verdict": None})
    with pytest.raises(TypeError, match="array"):
        codec.from_json(Repeats, codec.to_json(REPEATS) | {"flaky": "q"})
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data["questions"][0]["samples"] = "pass"
    with pytest.raises(ReportFormatError, match="malformed"):
        from_json(data, "bad.json")


def test_a_figure_that_follows_no_field_is_refused() -> None:
    @dataclass
    class Stray:
        a: int = field(default=1)

        @property
        @codec.written(after="b")
        def double(self) -> int:
            return 2 * self.a

    with pytest.raises(TypeError, match="follow no field"):
        codec.to_json(Stray())
