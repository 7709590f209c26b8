"""Judge many turns at once, and keep each one's judgement as the report's JSON holds it.

The turns are put to the judge through the harness's runner (:func:`eval.core.runner.replay_all`), so a
turn costs at most its timeout, a dead endpoint stops being asked after a few unavailable turns in a
row (the rest are unmeasured at once), and results come back in the file's order whatever the
concurrency. A turn the judge could not score is ``unmeasured`` with its reason, never a score.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from eval.core import interrupt
from eval.core.progress import ProgressLine
from eval.core.runner import INTERRUPTED, CandidateUnavailable, Limits, Replay, replay_all
from eval.turns.format import Turn
from eval.turns.judge import Judge, Judgement

if TYPE_CHECKING:  # httpx is imported where a request is made: an offline run never loads it
    import httpx


class JudgeProgress(ProgressLine):
    """The run's progress as plain lines (every tenth of the run or 30 s), without the SQL suite's
    count of passes: a judgement is not a pass."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        super().__init__("judge", stream or sys.stderr, tty=False)

    def line(self, done: int, total: int, now: float) -> str:
        return super().line(done, total, now).rsplit(",", 1)[0] + " (turns judged)"


async def _judge_all(
    turns: Sequence[Turn], judge: Judge, timeout_s: float, concurrency: int, limits: Limits, progress: Any
) -> list[Replay[Turn, Judgement]]:
    session: httpx.AsyncClient | None = None

    async def one(turn: Turn) -> Judgement:
        nonlocal session
        if session is None:
            session = judge.session()
        judgement = await judge.ajudge(turn, session)
        if judgement.unavailable:
            raise CandidateUnavailable((judgement.reason or "").removeprefix("judge unavailable: "))
        return judgement

    try:
        return await replay_all(
            turns, one, Judgement, timeout_s=timeout_s, concurrency=concurrency, progress=progress, limits=limits
        )
    finally:
        if session is not None:
            await session.aclose()


def judge_all(
    turns: Sequence[Turn],
    judge: Judge,
    *,
    timeout_s: float = 120.0,
    concurrency: int = 4,
    limits: Limits | None = None,
    progress: Any = None,
) -> tuple[list[Judgement], bool]:
    """Every turn judged, in order; and whether the run was interrupted (a signal: Ctrl-C, SIGTERM), which
    cancels the judgements in flight (:func:`eval.core.interrupt.run_async`)."""
    replays = interrupt.run_async(_judge_all(turns, judge, timeout_s, concurrency, limits or Limits(), progress))
    out: list[Judgement] = []
    interrupted = False
    for r in replays:
        if r.result is not None:
            out.append(r.result)
            continue
        interrupted = interrupted or r.failure == INTERRUPTED
        reason = r.failure or "no judgement"
        out.append(Judgement(r.task, reason=f"judge {reason}" if reason.startswith("unavailable") else reason))
    return out, interrupted or interrupt.requested()


def judgement_json(j: Judgement, identity: dict[str, Any]) -> dict[str, Any]:
    """One turn's entry in a report: the verdict and every number behind it, the turn itself included
    (so ``--rejudge`` can score it again from the report alone)."""
    a, reply = j.arithmetic, j.reply
    return {
        "turn_id": j.turn.turn_id,
        "status": "scored" if a is not None else "unmeasured",
        "reason": j.reason,
        "judge": identity,
        "composite": None if a is None else float(a.composite),
        "band": None if a is None else a.band,
        "judge_band": None if reply is None else reply.band,
        "band_agrees": None if a is None else a.band_agrees,
        "subscores": None if reply is None else reply.subscores(),
        "caps": [] if a is None else [c.name for c in a.caps],
        "explanation": None if reply is None else reply.explanation,
        "arithmetic": None if a is None else a.to_json(),
        "attempts": j.attempts,
        "output_mode": j.output_mode,
        "invalid_replies": list(j.invalid_replies),
        "digest": j.turn.digest(),
        "turn": j.turn.to_json(),
    }
