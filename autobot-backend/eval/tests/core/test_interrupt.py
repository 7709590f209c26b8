"""The signal handling every command runs under (``eval.core.interrupt``), with real signals sent to this
process: SIGTERM takes Ctrl-C's path, a held section is not cut, a second signal is ignored, an event
loop's main task is cancelled rather than broken, and threads start no new statement."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from eval.core import interrupt


@pytest.fixture(autouse=True)
def _handlers_back() -> Iterator[None]:
    """A stopped command leaves both signals ignored until the process exits; pytest's own come back here."""
    before = {s: signal.getsignal(s) for s in interrupt.SIGNALS}
    yield
    for s, handler in before.items():
        signal.signal(s, handler)


def send(sig: signal.Signals, after_s: float = 0.0) -> None:
    if after_s:
        threading.Timer(after_s, os.kill, (os.getpid(), sig)).start()
    else:
        os.kill(os.getpid(), sig)


def test_sigterm_raises_ctrl_cs_exception_in_the_main_thread():
    with pytest.raises(KeyboardInterrupt) as raised, interrupt.handling_signals():
        send(signal.SIGTERM)
        time.sleep(5)  # the handler runs here, long before
    assert isinstance(raised.value, interrupt.Interrupted) and raised.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN, "a late signal must not cut the exit short"


def test_a_held_section_is_not_cut_and_a_second_signal_is_ignored(capfd):
    with interrupt.handling_signals():
        with interrupt.held():
            send(signal.SIGINT)
            time.sleep(0.05)
            assert interrupt.requested() and interrupt.received() == "Ctrl-C (SIGINT)"
        send(signal.SIGTERM)  # outside the held section: the run is already stopping, so not raised either
        time.sleep(0.05)
        with pytest.raises(interrupt.Interrupted):
            interrupt.raise_if_requested()
    err = capfd.readouterr().err
    assert "Ctrl-C (SIGINT): stopping" in err and "SIGTERM: already stopping" in err


def test_handlers_come_back_when_no_signal_came():
    before = signal.getsignal(signal.SIGTERM)
    with interrupt.handling_signals():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before and not interrupt.requested()


def test_a_signal_cancels_the_event_loops_main_task_which_returns_what_it_has():
    async def work() -> list[int]:
        done = []
        try:
            for i in range(100):
                await asyncio.sleep(0.05)
                done.append(i)
        except asyncio.CancelledError:
            pass  # as the runner's replay_all does: keep what was done
        return done

    with interrupt.handling_signals():
        send(signal.SIGTERM, after_s=0.3)
        done = interrupt.run_async(work())
        assert 0 < len(done) < 100 and interrupt.requested()  # cancelled midway: what it had, not all 100 steps
        with pytest.raises(interrupt.Interrupted):  # after a signal, a loop does not start
            interrupt.run_async(work())


def test_a_coroutine_that_lets_the_cancellation_through_becomes_interrupted():
    with pytest.raises(interrupt.Interrupted), interrupt.handling_signals():
        send(signal.SIGINT, after_s=0.2)
        interrupt.run_async(asyncio.sleep(30))


def test_after_a_signal_a_thread_starts_no_new_statement():
    ran: list[int] = []
    stopped = threading.Event()

    def worker() -> None:
        try:
            for i in range(1000):
                interrupt.stop_point()
                ran.append(i)
                time.sleep(0.01)
        except interrupt.Stopped:
            stopped.set()

    with interrupt.handling_signals(), interrupt.held():
        thread = threading.Thread(target=worker)
        thread.start()
        time.sleep(0.1)
        send(signal.SIGTERM)
        thread.join(timeout=60)  # a guard against a hang, not a measure of speed
    assert stopped.is_set() and 0 < len(ran) < 1000
