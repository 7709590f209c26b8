"""With ``--judge``: the model judge's scores of a run's answers against the execution verdicts, as the run keeps
them (``eval.turns.sql_turns`` computes them). A band of good on an answer execution found bad is a judge
error; a band of poor on a good one is the judge being too harsh."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eval.sql.model.codec import key


@dataclass(frozen=True)
class JudgeDescription:
    """Who judged and how it was asked (``eval.turns.judge.Judge.describe``)."""

    model: str | None
    rubric_version: str
    prompt_sha256: str
    endpoint: str | None
    output_mode: str
    schema_note: str | None


@dataclass(frozen=True)
class JudgedTurns:
    """The judge's own figures over the turns (``eval.turns.report.summary``); the nested ones are the turns
    suite's records."""

    turns: int
    scored: int
    unmeasured: int
    distribution: dict[str, Any]
    histogram: list[dict[str, Any]]
    bands: dict[str, int]
    judge_bands: dict[str, int]
    band_disagreements: int
    caps: dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Agreement:
    """Answers by execution's verdict (good or bad) and the judge's band, compared where both measured them."""

    good_good: int = field(metadata=key("good/good"))
    good_partial: int = field(metadata=key("good/partial"))
    good_poor: int = field(metadata=key("good/poor"))
    bad_good: int = field(metadata=key("bad/good"))
    bad_partial: int = field(metadata=key("bad/partial"))
    bad_poor: int = field(metadata=key("bad/poor"))
    compared: int
    not_compared: int
    agree: int
    """Both good, or neither."""
    judge_errors: int
    """Band good, execution bad."""
    too_harsh: int
    """Band poor, execution good."""

    @property
    def cells(self) -> tuple[int, int, int, int, int, int]:
        """good/good, good/partial, good/poor, bad/good, bad/partial, bad/poor."""
        return self.good_good, self.good_partial, self.good_poor, self.bad_good, self.bad_partial, self.bad_poor


@dataclass(frozen=True)
class JudgedAnswer:
    """One answer the judge got wrong (a judge error) or judged too harshly."""

    turn_id: str
    question_id: str
    stratum: str
    verdict: str
    reason: str | None
    composite: float | None
    band: str | None
    explanation: str | None


@dataclass(frozen=True)
class NotJudged:
    turn_id: str
    reason: str | None


@dataclass(frozen=True)
class JudgeReport:
    """The judge against the execution verdicts: overall and per stratum, every judge error by id."""

    judge: JudgeDescription
    rubric: dict[str, Any]
    """The rubric as the turns suite writes it (``eval.turns.report.rubric_json``)."""
    summary: JudgedTurns
    agreement: Agreement
    kappa: float | None
    """Cohen's kappa, execution good against judge good; None when it cannot be computed."""
    strata: dict[str, Agreement]
    judge_errors: list[JudgedAnswer]
    too_harsh: list[JudgedAnswer]
    unmeasured: list[NotJudged]
    turns: list[dict[str, Any]]
    """Each turn's judgement as the turns suite writes it, with its execution verdict (``--rejudge`` reads it)."""
