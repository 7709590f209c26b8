"""Work spread over forked processes, results in order, stopped whole by a signal.

Threads buy an offline run nothing: the built-in generator, the guard and the comparison are Python
and hold the interpreter's lock, and SQLite hands it back and forth with every row. Processes do:
:func:`forked_map` runs a function over a list in ``processes`` children forked from this one (the
``fork`` start method: a child starts with everything the parent built, the databases' executors,
the parse and result caches, so nothing is pickled but each call's arguments and result), and gives
the results back in the order of the list, as one process would.

How many processes is :func:`processes`'s to say: by default (``EVAL_PROCESSES`` unset or ``auto``) one
child per CPU for :data:`MIN_ITEMS` items or more, where ``fork`` exists (not on Windows, nor macOS's
default) and there are two CPUs or more; ``EVAL_PROCESSES=N`` forks N, ``1`` never. A caller for whom
children do not pay by default (grading a model's answers: measured, threads keep the loop's waves
tighter) asks with ``default_auto=False`` and forks only on an explicit count.

Signals (:mod:`eval.core.interrupt`): the children ignore SIGINT (Ctrl-C reaches the whole process
group; the parent answers for them) and die on SIGTERM; they are forked with both blocked, so none
dies half set up. The first signal raises in the parent, which terminates and joins every child before
the exception goes on: no child outlives the run. A child's exception is raised in the parent.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from eval.core import crash, interrupt
from eval.core.errors import HarnessError

T = TypeVar("T")
R = TypeVar("R")

PROCESSES_ENV = "EVAL_PROCESSES"
MIN_ITEMS = 32
"""By default, fewer items than this run in one process: forking and collecting cost some 30-60 ms,
which a few dozen questions cannot win back."""


@dataclass(frozen=True)
class Spread:
    """How a phase spreads its work: over ``workers`` forked processes, each set up by ``child_setup``."""

    workers: int = 1
    child_setup: Callable[[], None] | None = None
    while_waiting: Callable[[], None] | None = None
    """Run here once the children are forked, while they work (what this process can prepare meanwhile)."""

    def map(self, fn: Callable[[T], R], items: Sequence[T], **kw: Any) -> list[R]:
        return forked_map(fn, items, self.workers, child_setup=self.child_setup, while_waiting=self.while_waiting, **kw)


_job: dict[str, Any] = {}
"""The function and items of the map in progress; a forked child finds them here (never pickled)."""


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def processes(items: int, minimum: int = MIN_ITEMS, *, default_auto: bool = True) -> int:
    """How many processes a map over ``items`` uses (1: this one), from ``EVAL_PROCESSES`` (module docstring)."""
    raw = os.environ.get(PROCESSES_ENV, "").strip().lower()
    if not can_fork():
        return 1
    if raw == "auto" or (not raw and default_auto):
        return min(cpus(), items) if items >= minimum and cpus() > 1 else 1
    if not raw:
        return 1
    try:
        wanted = int(raw)
    except ValueError:
        raise HarnessError(f"{PROCESSES_ENV}={raw!r} is neither a whole number of processes nor 'auto'") from None
    if wanted < 1:
        raise HarnessError(f"{PROCESSES_ENV}={raw!r} must be at least 1 (1: one process) or 'auto'")
    return min(wanted, max(1, items))


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def forked_map(
    fn: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    *,
    chunk: int = 1,
    child_setup: Callable[[], None] | None = None,
    on_result: Callable[[int, R], None] | None = None,
    while_waiting: Callable[[], None] | None = None,
    key: Callable[[T], Hashable] | None = None,
) -> list[R]:
    """``[fn(x) for x in items]``, computed in ``workers`` forked children (in this process when 1).

    ``chunk`` items go to a child at a time; ``child_setup`` runs first in each child (drop what must not
    be shared across a fork: pooled database connections); ``on_result(i, result)`` is called in this
    process as each result arrives, in order; ``while_waiting()`` runs here once the children are forked
    (before the items when there are none). ``key``: items with equal keys are computed next to each
    other, so in one child as far as the chunks allow (what a child caches, the next one of them finds);
    the results still come back in ``items``' order (not with ``on_result``).
    """
    if key is not None and workers > 1:
        if on_result is not None:
            raise ValueError("forked_map: key reorders the items; on_result would see them out of order")
        order = grouped([key(x) for x in items])
        done = forked_map(
            fn, [items[i] for i in order], workers, chunk=chunk, child_setup=child_setup, while_waiting=while_waiting
        )
        return [done[at] for at in inverse(order)]
    out: list[R] = []
    if workers <= 1 or len(items) <= 1:
        if while_waiting is not None:
            while_waiting()
        for i, x in enumerate(items):
            out.append(fn(x))
            if on_result is not None:
                on_result(i, out[-1])
        return out
    if _job:
        raise HarnessError("forked_map is not re-entrant: a map is already running in this process")
    starts = list(range(0, len(items), max(1, chunk)))
    _job.update(fn=fn, items=items, chunk=max(1, chunk))
    try:
        with fork_pool(workers, child_setup) as pool:
            parts = pool.imap(_run_chunk, starts)
            if while_waiting is not None:
                while_waiting()
            for part, logs in parts:
                crash.merge_log_counts(logs)
                for result in part:
                    out.append(result)
                    if on_result is not None:
                        on_result(len(out) - 1, result)
    finally:
        _job.clear()
    return out


def grouped(keys: Sequence[Hashable]) -> list[int]:
    """The positions of ``keys`` reordered so that equal keys are next to each other: the groups in the order
    of their first member, each group's members in their own order."""
    first: dict[Hashable, int] = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    return sorted(range(len(keys)), key=lambda i: (first[keys[i]], i))


def inverse(order: Sequence[int]) -> list[int]:
    """Where each original position went in ``order`` (``order`` is a permutation of ``range(len(order))``)."""
    at = [0] * len(order)
    for position, original in enumerate(order):
        at[original] = position
    return at


@contextlib.contextmanager
def fork_pool(workers: int, child_setup: Callable[[], None] | None = None) -> Iterator[Any]:
    """A ``multiprocessing`` pool of ``workers`` children forked now, each set up by ``child_setup``; closed
    and joined on the way out, terminated (and joined) on an exception or a signal. Fork it before any
    thread starts (an event loop's, a thread pool's): a child inherits the locks other threads hold."""
    context = multiprocessing.get_context("fork")
    stops = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    gc.freeze()  # what exists now is never scanned by a child's collector: its pages stay shared, not copied
    try:
        pool = context.Pool(workers, initializer=_child_start, initargs=(child_setup,))
    finally:
        gc.unfreeze()
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a signal that came meanwhile is taken now
    try:
        yield pool
    except BaseException:
        pool.terminate()  # SIGTERM to every child; then wait for them
        pool.join()
        raise
    if interrupt.requested():  # a loop that returned what it had after a signal: nothing left is wanted
        pool.terminate()
    else:
        pool.close()
    pool.join()


def _child_start(setup: Callable[[], None] | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    if setup is not None:
        setup()


def _run_chunk(start: int) -> tuple[list[Any], Any]:
    """A chunk's results, with the child's log counts since its last chunk (a parent that counts its service's
    log records counts its children's too: :mod:`eval.core.crash`)."""
    fn, items, chunk = _job["fn"], _job["items"], _job["chunk"]
    return [fn(x) for x in items[start : start + chunk]], crash.take_log_counts()
