"""Asking and grading an offline candidate in forked processes (:mod:`eval.core.forked`).

An offline candidate (the built-in generator, recorded or reference answers) is Python that holds the
interpreter's lock: threads run its questions one at a time, processes side by side. The samples are
cut into chunks in corpus order; each child asks and grades its chunk one sample after another in its
one thread (:func:`~eval.sql.grading.asking.ask_in_turn`: the outcomes :func:`~eval.sql.grading.asking.ask_all`
gives, without an event loop or a thread hop per step, and without ``--timeout``: an offline candidate
is local Python, and the statement timeout bounds its SQL), and the outcomes come back in order, with
the progress reported as each chunk arrives. What may be spread is the pipeline's to say
(:func:`spreadable`): a model is asked at ``--concurrency`` in one process, and only SQLite files are
opened in a child (a server connection or the DuckDB worker is never shared across a fork).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from eval.core.forked import Spread, grouped, inverse
from eval.core.runner import INTERRUPTED, Limits, Progress, Replay
from eval.sql.grading.asking import OnAnswer, Sample, ask_in_turn
from eval.sql.grading.candidates import ServiceCandidate
from eval.sql.grading.grade import Grader
from eval.sql.model.outcome import SQLOutcome, Verdict

CHUNKS_PER_WORKER = 8
"""Chunks per process: enough that one slow chunk does not leave a core idle, few enough that each
costs little to send."""


def spreadable(candidate: str, urls: Sequence[str], limits: Limits, on_answer: OnAnswer | None) -> bool:
    """Whether a run's asking may go to forked processes: an offline candidate, every database a SQLite
    file, no run-wide time budget to keep across processes, and no answer kept as it comes
    (``--export-turns``, ``--judge``: their callback lives in this process). ``--stop-after-unavailable``
    does not matter: an offline candidate is never unavailable (a recorded run asks only what it has)."""
    return (
        candidate != "llm"
        and all(url.startswith("sqlite") for url in urls)
        and limits.run_budget_s is None
        and on_answer is None
    )


def ask_spread(
    samples: Sequence[Sample],
    candidate: ServiceCandidate,
    grader: Grader,
    spread: Spread,
    *,
    progress: Progress | None,
    after: Callable[[SQLOutcome], SQLOutcome] | None = None,
) -> tuple[list[SQLOutcome], bool]:
    """Every sample asked and graded in ``spread``'s processes: outcomes in order, and whether a signal cut it
    (a signal raises here, after every child has ended). ``after``: what else an outcome is given in the child
    that graded it (its EM: the answer's parse is kept there), from the outcome alone."""
    # Samples of one question text on one database next to each other, so in one child: its answer's SQL
    # runs once there (the result cache is each process's own). The outcomes go back to the samples' order.
    order = grouped([(s.question.target, s.question.question) for s in samples])
    samples = [samples[i] for i in order]
    size = max(1, len(samples) // (CHUNKS_PER_WORKER * spread.workers))
    chunks = [list(samples[i : i + size]) for i in range(0, len(samples), size)]
    graded: list[SQLOutcome] = []
    cut = False

    def grade(chunk: list[Sample]) -> tuple[list[SQLOutcome], bool]:
        outcomes, stopped = ask_in_turn(chunk, candidate, grader)
        return ([after(o) for o in outcomes] if after is not None and not stopped else outcomes), stopped

    def arrived(i: int, part: tuple[list[SQLOutcome], bool]) -> None:
        nonlocal cut
        cut = cut or part[1]
        for sample, outcome in zip(chunks[i], part[0]):
            graded.append(outcome)
            if progress is not None:
                progress(len(graded), len(samples), Replay(sample, outcome))

    try:
        spread.map(grade, chunks, on_result=arrived)
    except KeyboardInterrupt:  # a signal: every child has ended; what came back is kept, the rest unmeasured
        rest = samples[len(graded) :]
        graded += [grader.outcome(s.question, Verdict.UNMEASURED, "unmeasured", INTERRUPTED) for s in rest]
        cut = True
    return [graded[at] for at in inverse(order)], cut
