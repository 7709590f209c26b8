"""Ask every question (K times, with ``--repeats K``) and grade each answer as it comes back.

One task is one ask of one question: the candidate answers, then the grader runs the SQL on the
other rotations. Tasks run at most ``concurrency`` at once (the model path is a coroutine; the
service's database work runs in threads), their results come back in the corpus's order whatever
the concurrency, and a run can stop early (a dead endpoint, a time budget, Ctrl-C) with what was
answered so far.

With repeats, a question's outcome is the majority of its K verdicts: the verdict most of them
got, where a pass needs a strict majority (a tie between a pass and anything else is not a pass),
and other ties go to the verdict the samples met first. Every sample's verdict is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import statistics
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from eval.core import interrupt
from eval.core.forked import Spread
from eval.core.runner import Limits, Progress, Replay, release_slot, replay_all, replay_now
from eval.sql.corpus.questions import Question
from eval.sql.grading.candidates import ServiceCandidate, SQLCandidate
from eval.sql.grading.grade import Grader
from eval.sql.grading.off_loop import Grade, grading_processes
from eval.sql.grading.transcripts import transcript
from eval.sql.model.outcome import Cost, SQLOutcome, Verdict
from services.nl_database_service import Answer


@dataclass(frozen=True)
class Sample:
    """One ask of one question."""

    question: Question
    k: int
    """0 .. repeats - 1."""

    @property
    def id(self) -> str:
        return self.question.id if self.k == 0 else f"{self.question.id}#{self.k + 1}"


def _cost(answer: Answer, reference_ms: float | None) -> Cost:
    generation = answer.generation
    model_ms = (
        generation.latency_ms if generation is not None and generation.latency_ms is not None else answer.generation_ms
    )
    return Cost(
        model_ms=model_ms,
        prompt_tokens=None if generation is None else generation.prompt_tokens,
        completion_tokens=None if generation is None else generation.completion_tokens,
        candidate_ms=answer.execution.elapsed_ms if answer.execution is not None and answer.execution.ok else None,
        reference_ms=reference_ms,
    )


OnAnswer = Callable[[Sample, Answer, SQLOutcome], None]
"""Called with every answer and its grade as it comes (``--export-turns``, ``--judge`` keep them as turns)."""


def graded_candidate(
    candidate: SQLCandidate,
    grader: Grader,
    on_answer: OnAnswer | None = None,
    secrets: frozenset[str] | None = None,
    grade: Grade | None = None,
) -> Callable[[Sample], Awaitable[SQLOutcome]]:
    """A task: ask, then grade (``grade``: in forked processes; None: in a thread, as the grader runs SQL),
    the cost attached, and the ask's transcript with ``secrets`` masked (None: no transcript is kept)."""

    async def run(sample: Sample) -> SQLOutcome:
        answer = await candidate(sample.question)
        release_slot()  # --concurrency bounds the asks in flight: the next question goes out while this is graded
        if grade is not None:
            outcome = await grade(sample.question, answer)
        else:
            outcome = await asyncio.to_thread(grader.grade, sample.question, Replay(sample.question, answer))
        return _finished(sample, answer, outcome, grader, secrets, on_answer)

    return run


def _finished(
    sample: Sample,
    answer: Answer,
    outcome: SQLOutcome,
    grader: Grader,
    secrets: frozenset[str] | None,
    on_answer: OnAnswer | None,
) -> SQLOutcome:
    """A graded answer with its cost and transcript attached, told to ``on_answer``."""
    refs = grader.reference.get(sample.question.id)
    kept = None if secrets is None else transcript(answer, secrets)
    outcome = dataclasses.replace(
        outcome,
        cost=_cost(answer, refs[0].elapsed_ms if refs else None),
        transcripts=() if kept is None else (kept,),
    )
    if on_answer is not None:
        on_answer(sample, answer, outcome)
    return outcome


def ask_in_turn(
    samples: Sequence[Sample], candidate: ServiceCandidate, grader: Grader
) -> tuple[list[SQLOutcome], bool]:
    """:func:`ask_all` of an offline candidate one sample after another in this thread: no event loop, no
    thread hop per step (a forked child's chunk, where one thing runs at a time anyway). No transcript
    (an offline answer has none) and no per-question time limit (local Python; the statement timeout
    bounds its SQL). The outcomes are those :func:`ask_all` gives."""

    def ask_and_grade(sample: Sample) -> SQLOutcome:
        answer = candidate.answer_now(sample.question)
        outcome = grader.grade(sample.question, Replay(sample.question, answer))
        return _finished(sample, answer, outcome, grader, None, None)

    return [_outcome(replay_now(sample, ask_and_grade, SQLOutcome), grader) for sample in samples], False


def _outcome(replay: Replay[Sample, SQLOutcome], grader: Grader) -> SQLOutcome:
    """A replay's graded outcome, or ``unmeasured`` with the reason it has none."""
    if replay.result is not None:
        return replay.result
    return grader.outcome(replay.task.question, Verdict.UNMEASURED, "unmeasured", replay.failure or "no result")


def ask_all(
    samples: Sequence[Sample],
    candidate: SQLCandidate,
    grader: Grader,
    *,
    timeout_s: float,
    concurrency: int,
    limits: Limits,
    progress: Progress | None,
    on_answer: OnAnswer | None = None,
    secrets: frozenset[str] | None = None,
    grading: Spread | None = None,
) -> tuple[list[SQLOutcome], bool]:
    """Every sample graded, in order; and whether the run was cut short (a signal: Ctrl-C, SIGTERM).
    With ``secrets`` (masked in them), each model answer keeps its transcript.

    A signal cancels what is in flight (:func:`eval.core.interrupt.run_async`); the samples not answered
    by then are unmeasured and the run is partial, even when every sample had just been answered.
    ``grading``: forked processes to grade in (:mod:`eval.sql.grading.off_loop`); None: threads."""
    with contextlib.ExitStack() as stack:
        if grading is not None and grading.workers > 1:
            grade = stack.enter_context(grading_processes(grader, grading))
        else:
            grade = _in_threads(grader, stack.enter_context(ThreadPoolExecutor(GRADING_THREADS, "grading")))

        async def run() -> list[Replay[Sample, SQLOutcome]]:
            try:
                return await replay_all(
                    samples,
                    graded_candidate(candidate, grader, on_answer, secrets, grade),
                    SQLOutcome,
                    timeout_s=timeout_s,
                    concurrency=concurrency,
                    progress=progress,
                    limits=limits,
                )
            finally:
                close = getattr(candidate, "aclose", None)
                if close is not None:
                    await close()  # in the loop that opened what it closes

        replays = interrupt.run_async(run())
    outcomes = []
    interrupted = False
    for r in replays:
        interrupted = interrupted or (r.result is None and (r.failure or "").startswith("interrupted"))
        outcomes.append(_outcome(r, grader))
    return outcomes, interrupted or interrupt.requested()


GRADING_THREADS = 2
"""Threads the gradings run in, apart from the event loop's default executor: a wave of answers being
graded no longer queues the next answers' own database steps (the service's threads) behind it."""


def _in_threads(grader: Grader, pool: ThreadPoolExecutor) -> Grade:
    async def grade(question: Question, answer: Answer) -> SQLOutcome:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool, grader.grade, question, Replay(question, answer))

    return grade


def majority(verdicts: Sequence[Verdict]) -> Verdict:
    """The verdict most samples got; a pass needs a strict majority."""
    counts = Counter(verdicts)
    top = max(counts.values())
    leaders = [v for v in dict.fromkeys(verdicts) if counts[v] == top]
    if len(leaders) > 1:
        leaders = [v for v in leaders if v is not Verdict.PASS] or leaders
    return leaders[0]


def combine(question_outcomes: Mapping[str, list[SQLOutcome]]) -> list[SQLOutcome]:
    """One outcome per question from its samples (the majority verdict, every verdict kept)."""
    out = []
    for samples in question_outcomes.values():
        if len(samples) == 1:
            out.append(samples[0])
            continue
        verdict = majority([s.verdict for s in samples])
        chosen = next(s for s in samples if s.verdict is verdict)
        out.append(
            dataclasses.replace(
                chosen,
                samples=tuple(s.verdict for s in samples),
                cost=_cost_of_asks([s.cost for s in samples if s.cost is not None]),
                transcripts=tuple(t for s in samples for t in s.transcripts),
            )
        )
    return out


def _cost_of_asks(costs: list[Cost]) -> Cost | None:
    """A question's cost over its K asks: the model's time and tokens are totals (the same asks counted in
    both); the SQL's execution times, candidate's and reference's, are means (a typical run of each)."""
    if not costs:
        return None

    def mean(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return round(statistics.fmean(known), 3) if known else None

    def total(values: list[int | None]) -> int | None:
        known = [v for v in values if v is not None]
        return sum(known) if known else None

    def total_ms(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return round(sum(known), 3) if known else None

    return Cost(
        model_ms=total_ms([c.model_ms for c in costs]),
        prompt_tokens=total([c.prompt_tokens for c in costs]),
        completion_tokens=total([c.completion_tokens for c in costs]),
        candidate_ms=mean([c.candidate_ms for c in costs]),
        reference_ms=mean([c.reference_ms for c in costs]),
    )
