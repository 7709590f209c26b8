"""Progress of a long run, where the user can see it.

In a terminal: one live line (``rich``) with done/total, the elapsed time, an estimate of the time
left and the running count of passes. Not in a terminal (CI logs): one plain line at every tenth of
the run or every 30 seconds, whichever comes first, so a log shows the run is alive without a
line per question.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from eval.core.runner import Replay

LOG_EVERY_S = 30.0
LOG_STEPS = 10
"""A log line each time another tenth of the run is done (counted in whole steps: no float drift)."""


def _passed(replay: Replay[Any, Any]) -> bool:
    verdict = getattr(replay.result, "verdict", None)
    return getattr(verdict, "value", None) == "pass"


class ProgressLine:
    """A :data:`eval.core.runner.Progress` callback; call :meth:`close` when the run ends."""

    def __init__(
        self, label: str, stream: IO[str] | None = None, *, tty: bool | None = None, clock: Any = time.monotonic
    ) -> None:
        self.label, self.stream = label, stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock, self.started = clock, clock()
        self.passes, self.last_logged, self.last_step = 0, self.started, 0
        self.first: float | None = None
        """When the first answer came: the pace is measured from there, not from the set-up before it."""
        self._live: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int, replay: Replay[Any, Any]) -> None:
        self.passes += _passed(replay)
        if self.first is None:
            self.first = self.clock()
        if self.tty:
            self._draw(done, total)
            return
        now, step = self.clock(), done * LOG_STEPS // total if total else LOG_STEPS
        if done == total or step > self.last_step or now - self.last_logged >= LOG_EVERY_S:
            self.last_logged, self.last_step = now, step
            print(self.line(done, total, now), file=self.stream, flush=True)

    def line(self, done: int, total: int, now: float) -> str:
        elapsed = now - self.started
        paced = done > 1 and self.first is not None and now > self.first
        eta = (now - self.first) / (done - 1) * (total - done) if paced and self.first is not None else None
        pct = 100 * done / total if total else 100.0
        return (
            f"[{self.label}] {done}/{total} ({pct:.0f}%) elapsed {elapsed:.0f}s"
            + (f", about {eta:.0f}s left" if eta is not None and done < total else "")
            + f", {self.passes} passed"
        )

    def _draw(self, done: int, total: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        if self._live is None:
            from rich.console import Console

            self._live = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[passes]} passed"),
                console=Console(file=self.stream),
                transient=False,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
            self._task = self._live.add_task(self.label, total=total, passes=0)
        self._live.update(self._task, completed=done, passes=self.passes)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
