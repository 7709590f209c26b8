"""SIGINT and SIGTERM end a run the same way: once, cleanly, with what was done so far.

CI cancellation and ``timeout`` send SIGTERM, whose default action ends the process at once: no
``finally`` runs, so a throwaway PostgreSQL server and the run's temporary folder stay behind, and no
report is written. Every command runs under :func:`handling_signals` (installed by
:func:`eval.cli.entry.entry_point`), where both signals take one path:

* The **first** signal asks the run to stop, and :func:`requested` says so from then on. Where the run
  is decides how it hears it: in plain code the main thread gets :class:`Interrupted` (a
  ``KeyboardInterrupt``), so every ``with`` and ``finally`` on the way up runs; inside
  :func:`run_async` the event loop's main task is cancelled, and the coroutine returns what it has
  (:func:`eval.core.runner.replay_all` does); inside :func:`held` (a report or a record being written,
  a server being started or stopped) it is only noted, and the code after the section looks.
* **Further** signals are noted on stderr and otherwise ignored: a second Ctrl-C no longer loses the
  report being written or the cleanup running. What bounds the stop is the work in flight, never a
  second signal: see :func:`stop_point`.

Work in threads cannot be interrupted from outside; it calls :func:`stop_point` before each SQL
statement, so after a signal no statement starts and the one running ends within the statement limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from types import FrameType, TracebackType
from typing import Any, TypeVar

T = TypeVar("T")

SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals a run stops on: Ctrl-C, and what CI cancellation and ``timeout`` send."""


class Interrupted(KeyboardInterrupt):
    """Raised in the main thread by the first signal: Ctrl-C's own exception, so SIGTERM takes its path."""

    def __init__(self, signum: int) -> None:
        super().__init__(describe(signum))
        self.signum = signum


class Stopped(Exception):
    """Raised in a worker thread at a :func:`stop_point` after a signal: what it was about to start does not."""


@dataclass
class _State:
    signum: int | None = None
    event: threading.Event = field(default_factory=threading.Event)
    cancel: Callable[[], None] | None = None
    """While :func:`run_async` runs: cancel its main task instead of raising."""
    held: int = 0
    active: bool = False


_state = _State()


def describe(signum: int | None) -> str:
    """How a message names the signal: ``Ctrl-C (SIGINT)``, ``SIGTERM``, or ``Ctrl-C`` when none was caught here."""
    if signum is None:
        return "Ctrl-C"
    name = signal.Signals(signum).name
    return f"Ctrl-C ({name})" if signum == signal.SIGINT else name


def received() -> str:
    """The signal that stopped the run, named (``Ctrl-C`` when it came as a plain ``KeyboardInterrupt``)."""
    return describe(_state.signum)


def requested() -> bool:
    """Whether a signal has asked the run to stop."""
    return _state.event.is_set()


def stop_point() -> None:
    """Called by work in threads before each statement: after a signal, :class:`Stopped` instead of starting it."""
    if _state.event.is_set():
        raise Stopped(f"stopped by {received()}")


def _say(text: str) -> None:
    with contextlib.suppress(OSError):  # os.write, not print: the signal may have come in the middle of a print
        os.write(2, text.encode())


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _state.signum is not None:
        _say(f"\n{describe(signum)}: already stopping; the report so far and the cleanup are not cut short\n")
        return
    _state.signum = signum
    _state.event.set()
    _say(f"\n{describe(signum)}: stopping (further signals are ignored while the run ends cleanly)\n")
    if _state.cancel is not None:
        _state.cancel()
    elif not _state.held:
        raise Interrupted(signum)


@contextmanager
def handling_signals() -> Iterator[None]:
    """SIGINT and SIGTERM handled as the module says, for the duration; then the handlers before are put
    back, or, when a signal stopped the command, both are ignored until the process has exited.

    Outside the main thread (where Python cannot take signals) and inside another such block, a no-op."""
    if _state.active or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    _reset()
    _state.active = True
    for s in SIGNALS:
        signal.signal(s, _on_signal)
    try:
        yield
    finally:
        stopped = _state.signum is not None  # then the process is ending: a late signal must not cut its exit
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_IGN if stopped else handler)
        _reset()  # nothing stale for library code called afterwards in the same process (tests)


def _reset() -> None:
    _state.signum, _state.event, _state.cancel, _state.held, _state.active = None, threading.Event(), None, 0, False


@contextmanager
def held() -> Iterator[None]:
    """A section a first signal does not cut: it is noted (:func:`requested`) and the code after looks.

    For what must be whole or not begun: a report or a record written, a server started or stopped, a
    temporary folder removed. Keep it short: the stop waits for it."""
    _state.held += 1
    try:
        yield
    finally:
        _state.held -= 1


class _HeldExit(AbstractContextManager[T]):
    def __init__(self, cm: AbstractContextManager[T]) -> None:
        self._cm = cm

    def __enter__(self) -> T:
        return self._cm.__enter__()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        with held():
            return self._cm.__exit__(kind, exc, tb)


def cleanup_held(cm: AbstractContextManager[T]) -> AbstractContextManager[T]:
    """``cm`` whose exit (its cleanup) runs :func:`held`: a signal arriving then cannot leave it half done."""
    return _HeldExit(cm)


def raise_if_requested() -> None:
    """:class:`Interrupted` when a signal came during a :func:`held` section, so the code after it stops too."""
    if _state.event.is_set():
        raise Interrupted(_state.signum or signal.SIGINT)


def run_async(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, where a signal cancels the loop's main task rather than raising inside the loop.

    The coroutine gets ``CancelledError`` at its next await and may return what it has; if it lets the
    cancellation through, it becomes :class:`Interrupted`. Called after a signal, it starts nothing."""
    import asyncio  # here: a command that runs no event loop (an import, a check) does not load it

    if requested():
        main.close()
        raise_if_requested()
    running: dict[str, Any] = {}

    async def guarded() -> T:
        running["loop"], running["task"] = asyncio.get_running_loop(), asyncio.current_task()
        if requested():  # the signal came while the loop was being set up
            running["task"].cancel()
        return await main

    def cancel() -> None:
        task = running.get("task")
        if task is not None and not task.done():
            task.cancel()
            running["loop"].call_soon_threadsafe(lambda: None)  # wake the loop if it sleeps in select()

    previous, _state.cancel = _state.cancel, cancel
    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if requested():
            raise Interrupted(_state.signum or signal.SIGINT) from None
        raise
    finally:
        _state.cancel = previous
