"""The replayer: put every golden to a candidate, one at a time, and keep going.

A candidate is any async callable ``golden -> CandidateResult``. A candidate that hangs past
the per-golden timeout, raises, or says it cannot answer (``CandidateUnavailable``) costs that
golden only: the golden is recorded as unmeasured with the reason, and the run goes on.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from eval.errors import HarnessError
from eval.store import GoldenTrajectory

DEFAULT_TIMEOUT_S = 120.0
TIMEOUT_ENV = "EVAL_REPLAY_TIMEOUT_S"


class CandidateUnavailable(Exception):
    """The candidate cannot answer this golden (no recording, endpoint down, ...).

    This is not a verdict about the candidate's quality: the golden becomes ``unmeasured``.
    """


@dataclass
class CandidateResult:
    response_text: str = ""
    """The candidate's final answer text."""
    tool_sequence: list[str] | None = None
    """Tools called, in order; ``None`` when the candidate does not report tools (unknown)."""
    final_status: str | None = None
    """Terminal status; ``None`` when unknown. Never defaulted to the golden's own."""
    sql: str | None = None
    """SQL the candidate produced (SQL suite)."""
    refused: bool = False
    """The candidate declined to produce SQL (SQL suite)."""
    reason: str | None = None
    """Why it declined or failed, in its own words."""
    model: str | None = None
    """Generator or model that produced the answer, when known."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Anything else worth keeping as evidence."""


CandidateRunner = Callable[[GoldenTrajectory], Awaitable[CandidateResult]]


@dataclass
class Replay:
    """One golden put to the candidate: the result, or why there is none."""

    golden: GoldenTrajectory
    result: CandidateResult | None
    failure: str | None = None
    """Set when the candidate gave no usable result (timeout, crash, unavailable)."""
    elapsed_s: float = 0.0


def timeout_from_env(default: float = DEFAULT_TIMEOUT_S) -> float:
    raw = os.environ.get(TIMEOUT_ENV)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise HarnessError(f"{TIMEOUT_ENV}={raw!r} is not a number of seconds") from None
    if value <= 0:
        raise HarnessError(f"{TIMEOUT_ENV}={raw!r} must be positive")
    return value


async def replay_one(golden: GoldenTrajectory, candidate: CandidateRunner, timeout_s: float) -> Replay:
    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(candidate(golden), timeout=timeout_s)
    except asyncio.TimeoutError:
        return Replay(golden, None, f"timeout: no answer within {timeout_s:g} s", time.perf_counter() - started)
    except CandidateUnavailable as exc:
        return Replay(golden, None, f"unavailable: {exc}", time.perf_counter() - started)
    except Exception as exc:  # one broken golden must not end the run
        return Replay(golden, None, f"candidate crashed: {type(exc).__name__}: {exc}", time.perf_counter() - started)
    if not isinstance(result, CandidateResult):
        return Replay(golden, None, f"candidate returned {type(result).__name__}, not CandidateResult",
                      time.perf_counter() - started)
    return Replay(golden, result, None, time.perf_counter() - started)


async def replay_all(
    goldens: Sequence[GoldenTrajectory],
    candidate: CandidateRunner,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    progress: Callable[[int, int, Replay], None] | None = None,
) -> list[Replay]:
    """Replay goldens in order, sequentially (candidates may hold one connection or model)."""
    replays: list[Replay] = []
    for i, golden in enumerate(goldens, 1):
        replay = await replay_one(golden, candidate, timeout_s)
        replays.append(replay)
        if progress is not None:
            progress(i, len(goldens), replay)
    return replays


def replay(goldens: Sequence[GoldenTrajectory], candidate: CandidateRunner, timeout_s: float = DEFAULT_TIMEOUT_S,
           progress: Callable[[int, int, Replay], None] | None = None) -> list[Replay]:
    """Synchronous entry point for :func:`replay_all`."""
    return asyncio.run(replay_all(goldens, candidate, timeout_s, progress))
