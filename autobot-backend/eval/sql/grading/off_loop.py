"""Grading the model's answers in forked processes, off the process whose event loop waits on the model.

At ``--concurrency 16`` and more, the answers come back in waves. Graded in threads of the loop's own
process (``asyncio.to_thread``), each grading (the SQL on the other rotations, the comparison: Python
holding the interpreter's lock) delays the loop's reading of the next replies and its sending of the
next requests, so a 200 ms endpoint was waited on 0.3-0.5 s. Here each answer goes to a pool of
children forked before the loop starts (:func:`eval.core.forked.fork_pool`, which also ends them on a
signal), holding the run's grader and its reference results as they were at the fork; the loop's
process only asks, and the grades come back as they are made. Only SQLite files are opened in a child
(the pipeline decides), and only on an explicit ``EVAL_PROCESSES=N`` (:mod:`eval.core.forked`): measured
on two cores, children made the waves looser than the run's own grading threads
(:data:`eval.sql.grading.asking.GRADING_THREADS`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from eval.core.forked import Spread, fork_pool
from eval.core.runner import Replay
from eval.sql.corpus.questions import Question
from eval.sql.grading.grade import Grader
from eval.sql.model.outcome import SQLOutcome
from services.nl_database_service import Answer

Grade = Callable[[Question, Answer], Awaitable[SQLOutcome]]
"""Grade one answer, awaited in the loop."""

_forked: dict[str, Grader] = {}
"""The grader the children were forked with (never pickled)."""


def _grade(question: Question, answer: Answer) -> SQLOutcome:
    return _forked["grader"].grade(question, Replay(question, answer))


@contextlib.contextmanager
def grading_processes(grader: Grader, spread: Spread) -> Iterator[Grade]:
    """A pool of ``spread.workers`` children holding ``grader``, and the coroutine that grades in it. Enter it
    before the event loop starts; on the way out the children end (terminated on an exception)."""
    _forked["grader"] = grader
    try:
        with fork_pool(spread.workers, spread.child_setup) as pool:

            async def grade(question: Question, answer: Answer) -> SQLOutcome:
                loop = asyncio.get_running_loop()
                future: asyncio.Future[SQLOutcome] = loop.create_future()

                def settle(result: Any = None, error: BaseException | None = None) -> None:
                    if future.done():  # cancelled meanwhile (a signal, a timeout)
                        return
                    if error is not None:
                        future.set_exception(error)
                    else:
                        future.set_result(result)

                pool.apply_async(
                    _grade,
                    (question, answer),
                    callback=lambda r: loop.call_soon_threadsafe(settle, r),
                    error_callback=lambda e: loop.call_soon_threadsafe(settle, None, e),
                )
                return await future

            yield grade
    finally:
        _forked.clear()
