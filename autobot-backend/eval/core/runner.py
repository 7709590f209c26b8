"""The replayer: put every task to a candidate, and keep going whatever one task costs.

The runner is generic over what it replays: a trajectory suite's golden, a SQL suite's question.
A candidate is any async callable ``task -> result`` (the trajectory suite's contract is
:data:`eval.trajectory.contract.CandidateRunner`). A candidate that hangs past
the per-task timeout, raises, or says it cannot answer (:class:`CandidateUnavailable`) costs that
task only: the replay records why there is no result, and the run goes on. Results come back in
the order of the tasks, however many run at once.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from eval.core import interrupt
from eval.core.errors import HarnessError

DEFAULT_TIMEOUT_S = 120.0
TIMEOUT_ENV = "EVAL_REPLAY_TIMEOUT_S"

T = TypeVar("T")
R = TypeVar("R")


class CandidateUnavailable(Exception):
    """The candidate cannot answer this task (no recording, endpoint down, ...).

    This is not a verdict about the candidate's quality: the task becomes ``unmeasured``.
    """


@dataclass
class Replay(Generic[T, R]):
    """One task put to the candidate: the result, or why there is none."""

    task: T
    result: R | None
    failure: str | None = None
    """Set when the candidate gave no usable result (timeout, crash, unavailable)."""
    elapsed_s: float = 0.0


Progress = Callable[[int, int, "Replay[Any, Any]"], None]
"""Called after each task with (done, total, replay)."""


def timeout_from_env(default: float = DEFAULT_TIMEOUT_S) -> float:
    raw = os.environ.get(TIMEOUT_ENV)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise HarnessError(f"{TIMEOUT_ENV}={raw!r} is not a number of seconds") from None
    if not (value > 0 and math.isfinite(value)):
        raise HarnessError(f"{TIMEOUT_ENV}={raw!r} must be a positive, finite number of seconds")
    return value


async def replay_one(
    task: T, candidate: Callable[[T], Awaitable[R]], timeout_s: float, result_type: type[R]
) -> Replay[T, R]:
    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(candidate(task), timeout=timeout_s)
    except Exception as exc:  # one broken task must not end the run
        return Replay(task, None, _failure(exc, timeout_s), time.perf_counter() - started)
    return _replay(task, result, result_type, started)


def replay_now(task: T, candidate: Callable[[T], R], result_type: type[R]) -> Replay[T, R]:
    """:func:`replay_one` of a synchronous candidate, in this thread and without a time limit (a forked
    child's offline candidate: local Python, whose SQL the statement timeout bounds)."""
    started = time.perf_counter()
    try:
        result = candidate(task)
    except Exception as exc:
        return Replay(task, None, _failure(exc, None), time.perf_counter() - started)
    return _replay(task, result, result_type, started)


def _replay(task: T, result: object, result_type: type[R], started: float) -> Replay[T, R]:
    if not isinstance(result, result_type):
        why = f"candidate returned {type(result).__name__}, not {result_type.__name__}"
        return Replay(task, None, why, time.perf_counter() - started)
    return Replay(task, result, None, time.perf_counter() - started)


def _failure(exc: Exception, timeout_s: float | None) -> str:
    if interrupt.requested():  # stopped by the signal (eval.core.interrupt.Stopped), not the candidate's doing
        return INTERRUPTED
    if isinstance(exc, TimeoutError) and timeout_s is not None:
        return f"timeout: no answer within {timeout_s:g} s"
    if isinstance(exc, CandidateUnavailable):
        return f"unavailable: {exc}"
    return f"candidate crashed: {type(exc).__name__}: {exc}"


_release: ContextVar[Callable[[], None] | None] = ContextVar("_release", default=None)


def release_slot() -> None:
    """Called by a task once the candidate has answered: its place among the ``concurrency`` in flight goes
    to the next task now, while this one finishes (the grading), so the candidate is kept as busy as it
    allows. Outside :func:`replay_all`, nothing."""
    release = _release.get()
    if release is not None:
        release()


class _Slot:
    """One of ``concurrency`` places, given back at the end of the task or at :func:`release_slot`."""

    def __init__(self, gate: asyncio.Semaphore) -> None:
        self.gate, self.held = gate, False

    def release(self) -> None:
        if self.held:
            self.held = False
            self.gate.release()

    async def __aenter__(self) -> None:
        await self.gate.acquire()
        self.held = True
        self.token = _release.set(self.release)

    async def __aexit__(self, *exc: object) -> None:
        _release.reset(self.token)
        self.release()


UNAVAILABLE = "unavailable: "
INTERRUPTED = "interrupted: the run was stopped (Ctrl-C or SIGTERM) before this was answered"


@dataclass(frozen=True)
class Limits:
    """When a run stops asking, and the tasks not asked yet become unmeasured at once."""

    stop_after_unavailable: int | None = None
    """Consecutive unavailable answers (a dead endpoint) after which the rest is not asked."""
    run_budget_s: float | None = None
    """The whole run's time; past it, what is in flight is stopped and the rest not asked."""


async def replay_all(
    tasks: Sequence[T],
    candidate: Callable[[T], Awaitable[R]],
    result_type: type[R],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    concurrency: int = 1,
    progress: Progress | None = None,
    limits: Limits | None = None,
) -> list[Replay[T, R]]:
    """Replay ``tasks`` with at most ``concurrency`` in flight; results in the order of ``tasks``.

    A cancelled run (a signal, :func:`eval.core.interrupt.run_async`) returns what was answered, the rest
    marked :data:`INTERRUPTED`.
    """
    if concurrency < 1:
        raise HarnessError(f"concurrency must be at least 1, got {concurrency}")
    limits = limits or Limits()
    gate = asyncio.Semaphore(concurrency)
    loop = asyncio.get_running_loop()
    end = None if limits.run_budget_s is None else loop.time() + limits.run_budget_s
    done, streak, stopped = 0, 0, None
    results: dict[int, Replay[T, R]] = {}

    async def one(i: int, task: T) -> None:
        nonlocal done, streak, stopped
        async with _Slot(gate):
            left = None if end is None else end - loop.time()
            if stopped is None and left is not None and left <= 0:
                stopped = f"not asked: the run's time budget ({limits.run_budget_s:g} s) was spent"
            if stopped is not None:
                replay: Replay[T, R] = Replay(task, None, stopped)
            else:
                replay = await replay_one(
                    task, candidate, timeout_s if left is None else min(timeout_s, left), result_type
                )
                if left is not None and replay.failure and replay.failure.startswith("timeout") and loop.time() >= end:  # type: ignore[operator]
                    replay.failure = f"not answered: the run's time budget ({limits.run_budget_s:g} s) was spent"
                streak = streak + 1 if (replay.failure or "").startswith(UNAVAILABLE) else 0
                if limits.stop_after_unavailable and streak >= limits.stop_after_unavailable and stopped is None:
                    stopped = (
                        f"not asked: the candidate was unavailable for {streak} questions in a row "
                        f"(the last: {(replay.failure or '')[len(UNAVAILABLE) :][:200]})"
                    )
        results[i] = replay
        done += 1
        if progress is not None:
            progress(done, len(tasks), replay)

    try:
        await asyncio.gather(*(one(i, t) for i, t in enumerate(tasks)))
    except asyncio.CancelledError:
        return [results.get(i) or Replay(t, None, INTERRUPTED) for i, t in enumerate(tasks)]
    return [results[i] for i in range(len(tasks))]
