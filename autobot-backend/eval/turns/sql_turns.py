"""A SQL run's answers as captured turns: exported (``--export-turns``), and judged (``--judge``).

With ``--judge`` every answer of the run is judged as a turn with no reference, and the judge is
measured against what execution grading found. A question is *good* by execution when it passed
(or, must-refuse, was declined); the judge calls it good when the composite's band is ``good``.
They agree when both say good, or neither does. A band of good on an answer execution found bad
(``wrong``, ``error``, a declined answerable question, a missed refusal) is a **judge error**; a band
of poor on a good answer is the judge being **too harsh**. Counts are per stratum, never rates
alone, and a question execution could not measure is not compared.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from eval.core import interrupt
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK
from eval.core.output import confine, write_text
from eval.core.runner import Limits
from eval.core.stats import cohen_kappa
from eval.sql.grading.asking import Sample
from eval.sql.grading.interruption import mark_partial
from eval.sql.model.judge import Agreement, JudgedAnswer, JudgeDescription, JudgedTurns, JudgeReport, NotJudged
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.turns.format import Turn, TurnsFileError, dump_turns, parse_turn
from eval.turns.judge import Judge, Judgement
from eval.turns.report import rubric_json, summary
from eval.turns.scoring import JudgeProgress, judge_all, judgement_json
from services.nl_database_service import Answer
from services.turn_capture import turn_from_answer


@dataclass
class SQLTurns:
    """Keeps each answer of a run as a turn beside its per-answer grade, then exports and judges them."""

    export_path: str | None
    judge: Judge | None
    concurrency: int = 4
    timeout_s: float = 120.0
    limits: Limits = field(default_factory=Limits)
    turns: list[tuple[Turn, SQLOutcome]] = field(default_factory=list)
    judged: list[Judgement] = field(default_factory=list)
    unusable: list[str] = field(default_factory=list)
    """Answers that could not be kept as a turn (and why): the run's verdicts never depend on it."""

    @classmethod
    def from_options(
        cls,
        export: str | None,
        judging: bool,
        *,
        repeats: int,
        concurrency: int | None,
        timeout_s: float,
        stop_after_unavailable: int | None,
    ) -> SQLTurns | None:
        """From the SQL suite's ``--export-turns`` and ``--judge`` (and the run's ``--repeats``,
        ``--concurrency``, ``--timeout`` and ``--stop-after-unavailable``), checked before anything runs (a bad
        path or a missing judge is exit 2 at once, not after the run); None when neither was asked for."""
        if not export and not judging:
            return None
        if export:
            confine(export)
        if judging and repeats > 1:
            raise UsageError("--judge judges one answer per question; drop --repeats, or judge an exported run")
        return cls(
            export_path=export,
            judge=Judge.from_env() if judging else None,
            concurrency=concurrency or 4,
            timeout_s=timeout_s,
            limits=Limits(stop_after_unavailable=stop_after_unavailable or None),
        )

    def record(self, sample: Sample, answer: Answer, outcome: SQLOutcome) -> None:
        """:data:`eval.sql.grading.asking.OnAnswer`: keep the answer as a turn, its grade in the turn's meta."""
        q = sample.question
        meta = {
            "source": "eval.sql",
            "question_id": q.id,
            "sample": sample.k + 1,
            "stratum": q.stratum,
            "expect": q.expect,
            "fixture": q.fixture,
            "verdict": outcome.verdict.value,
            "reason": outcome.reason,
        }
        raw = turn_from_answer(answer, sample.id, meta)
        if raw is None:
            return
        try:
            self.turns.append((parse_turn(raw, f"question {q.id}"), outcome))
        except TurnsFileError as exc:  # a turn is evidence for the judge; it must never cost the answer its grade
            self.unusable.append(str(exc))

    def ordered(self, report: SQLRun) -> list[tuple[Turn, SQLOutcome]]:
        position = {o.question_id: i for i, o in enumerate(report.outcomes)}
        return sorted(self.turns, key=lambda t: (position.get(t[1].question_id, len(position)), t[0].turn_id))

    def finish(self, report: SQLRun) -> None:
        """Export the turns and judge them; the judge's figures go into ``report.judge``.

        A signal (Ctrl-C, SIGTERM) stops the judge, and ``report`` is marked partial: an agreement over
        the turns judged so far is no figure to record. A run already partial is exported, not judged."""
        turns = self.ordered(report)
        if self.unusable:
            report.warnings.append(
                f"{len(self.unusable)} answer(s) could not be kept as captured turns (not exported or judged): "
                + "; ".join(self.unusable[:5])
            )
        if self.export_path:
            with interrupt.held():  # the file is written whole
                write_text(self.export_path, dump_turns([t.to_json() for t, _ in turns]))
        if self.judge is None or report.partial or interrupt.requested():
            return
        self.judged, interrupted = judge_all(
            [t for t, _ in turns],
            self.judge,
            timeout_s=self.timeout_s,
            concurrency=self.concurrency,
            limits=self.limits,
            progress=JudgeProgress(),
        )
        report.judge = agreement_report(self.judge, turns, self.judged)
        if interrupted:
            mark_partial(report, "while the judge judged the answers (the execution verdicts are complete)")

    @property
    def exit_code(self) -> int:
        """2 when judging was asked for and no turn could be judged; 0 otherwise."""
        if self.judge is not None and self.judged and not any(j.scored for j in self.judged):
            print("error: --judge: no answer could be judged; see the reasons in the report", file=sys.stderr)
            return EXIT_CANNOT_JUDGE
        return EXIT_OK


def _cell(outcome: SQLOutcome, judgement: Judgement) -> str | None:
    """Where one answer falls: ``good/good``, ``bad/partial``, ...; None when either side did not measure it."""
    if not outcome.measured or judgement.arithmetic is None:
        return None
    return f"{'good' if outcome.good else 'bad'}/{judgement.arithmetic.band}"


def _counts(cells: Sequence[str | None]) -> Agreement:
    c = Counter(x for x in cells if x is not None)
    return Agreement(
        good_good=c["good/good"],
        good_partial=c["good/partial"],
        good_poor=c["good/poor"],
        bad_good=c["bad/good"],
        bad_partial=c["bad/partial"],
        bad_poor=c["bad/poor"],
        compared=sum(c.values()),
        not_compared=sum(x is None for x in cells),
        agree=c["good/good"] + c["bad/partial"] + c["bad/poor"],
        judge_errors=c["bad/good"],
        too_harsh=c["good/poor"],
    )


def agreement_report(
    judge: Judge, turns: Sequence[tuple[Turn, SQLOutcome]], judged: Sequence[Judgement]
) -> JudgeReport:
    """The judge against the execution verdicts: overall and per stratum, every judge error by id."""
    cells = [_cell(o, j) for (_, o), j in zip(turns, judged)]
    strata: dict[str, list[str | None]] = {}
    for (_, o), cell in zip(turns, cells):
        strata.setdefault(o.stratum, []).append(cell)
    pairs = [(o, j) for (_, o), j, cell in zip(turns, judged, cells) if cell is not None]
    kappa = cohen_kappa(
        [o.good for o, _ in pairs], [j.arithmetic is not None and j.arithmetic.band == "good" for _, j in pairs]
    )
    identity = judge.identity()

    def entry(t: Turn, o: SQLOutcome, j: Judgement) -> JudgedAnswer:
        return JudgedAnswer(
            turn_id=t.turn_id,
            question_id=o.question_id,
            stratum=o.stratum,
            verdict=o.verdict.value,
            reason=o.reason,
            composite=None if j.arithmetic is None else float(j.arithmetic.composite),
            band=None if j.arithmetic is None else j.arithmetic.band,
            explanation=None if j.reply is None else j.reply.explanation,
        )

    rows = list(zip(turns, judged, cells))
    return JudgeReport(
        judge=JudgeDescription(**judge.describe()),
        rubric=rubric_json(),
        summary=JudgedTurns(**summary(judged)),
        agreement=_counts(cells),
        kappa=None if kappa is None else round(kappa, 4),
        strata={name: _counts(c) for name, c in sorted(strata.items())},
        judge_errors=[entry(t, o, j) for (t, o), j, c in rows if c == "bad/good"],
        too_harsh=[entry(t, o, j) for (t, o), j, c in rows if c == "good/poor"],
        unmeasured=[NotJudged(t.turn_id, j.reason) for (t, _), j in zip(turns, judged) if not j.scored],
        turns=[judgement_json(j, identity) | {"verdict": o.verdict.value} for (_, o), j in zip(turns, judged)],
    )
