"""The trajectory suite's candidate contract: a golden in, a :class:`CandidateResult` out, replayed in order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from eval.core import interrupt
from eval.core.runner import DEFAULT_TIMEOUT_S, Progress, Replay, replay_all
from eval.trajectory.store import GoldenTrajectory


@dataclass
class CandidateResult:
    """What a trajectory-suite candidate did for one golden."""

    response_text: str = ""
    """The candidate's final answer text."""
    tool_sequence: list[str] | None = None
    """Tools called, in order; ``None`` when the candidate does not report tools (unknown)."""
    final_status: str | None = None
    """Terminal status; ``None`` when unknown. Never defaulted to the golden's own."""
    model: str | None = None
    """Agent or model that produced the answer, when known."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Anything else worth keeping as evidence."""


CandidateRunner = Callable[[GoldenTrajectory], Awaitable[CandidateResult]]
"""The trajectory suite's candidate contract."""


def replay(
    goldens: Sequence[GoldenTrajectory],
    candidate: CandidateRunner,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    progress: Progress | None = None,
) -> list[Replay[GoldenTrajectory, CandidateResult]]:
    """The trajectory suite's synchronous entry point: goldens one at a time, in order (a signal stops the
    replay: the goldens not replayed by then are unmeasured, :data:`eval.core.runner.INTERRUPTED`)."""
    return interrupt.run_async(replay_all(goldens, candidate, CandidateResult, timeout_s=timeout_s, progress=progress))
