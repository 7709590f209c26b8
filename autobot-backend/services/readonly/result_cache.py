"""Results of read-only SQL already run, per (database URL, SQL): a run executes identical SQL once.

An eval run asks many times what it asked before: a candidate answering with the reference's own
SQL, two questions with the same answer, the self-check's probes of an ``also:`` form equal to the
reference. On databases that do not change while the run lasts (the run already grades every answer
against the references its self-check read once), the second execution can only return the first's
rows. :class:`~services.readonly.execute.ReadOnlySQL` keeps them here when it is given a cache (the
eval's runs; the service itself keeps none): only statements that ran (an error is run again), and
at most :data:`MAX_VALUES` values in all, the least recently used dropped first, so memory stays
flat whatever the corpus's size. The self-check's determinism run asks with ``fresh=True``: the SQL
runs again, and that second result is kept apart, so a later question with the same reference compares
the same two runs (its determinism was settled by the first) instead of running it a third time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Generic, Protocol, TypeVar


class _Result(Protocol):
    @property
    def ok(self) -> bool: ...
    @property
    def rows(self) -> Sequence[Any]: ...
    @property
    def columns(self) -> Sequence[str]: ...


Execution = TypeVar("Execution", bound=_Result)

__all__ = ["MAX_VALUES", "ResultCache"]

MAX_VALUES = 2_000_000
"""Values (rows x columns) kept in all: some 100 MiB of small values at most; a result bigger than a
quarter of it is not kept, unless it is held (:meth:`ResultCache.put`)."""


class ResultCache(Generic[Execution]):
    """Executions by (URL, SQL), bounded by the values they hold; safe to share between threads."""

    def __init__(self, max_values: int = MAX_VALUES) -> None:
        self.max_values = max_values
        self.values = 0
        self.hits = 0
        self._kept: OrderedDict[tuple[str, str], tuple[Execution, int]] = OrderedDict()
        self._second: OrderedDict[tuple[str, str], tuple[Execution, int]] = OrderedDict()
        self._held: dict[tuple[str, str], Execution] = {}
        self._lock = threading.Lock()

    def get(self, url: str, sql: str, *, second: bool = False) -> Execution | None:
        """The execution kept for (``url``, ``sql``); ``second``: its second, independent run (the
        self-check's determinism run), which a question repeating the SQL compares with as the first did."""
        kept = self._second if second else self._kept
        with self._lock:
            found = kept.get((url, sql))
            if found is None:
                held = None if second else self._held.get((url, sql))
                if held is not None:
                    self.hits += 1
                return held
            kept.move_to_end((url, sql))
            self.hits += 1
            return found[0]

    def put(self, url: str, sql: str, execution: Execution, *, second: bool = False, held: bool = False) -> None:
        """Keep ``execution`` (one that ran) unless it is too big; drop the oldest past the bound. ``held``: the
        caller holds it for as long as the cache lasts (a reference's result, which the grader keeps for the
        run), so it is kept whatever its size, outside the bound and never dropped: keeping it costs no memory,
        and a candidate that is its reference's SQL is then not run again on a result of a million rows."""
        if not execution.ok:
            return
        if held and not second:
            with self._lock:
                self._held[(url, sql)] = execution
            return
        size = max(1, len(execution.rows) * max(1, len(execution.columns)))
        if size > self.max_values // 4:
            return
        kept = self._second if second else self._kept
        with self._lock:
            old = kept.pop((url, sql), None)
            if old is not None:
                self.values -= old[1]
            kept[(url, sql)] = (execution, size)
            self.values += size
            while self.values > self.max_values:
                oldest = self._kept if self._kept else self._second
                _, (_, dropped) = oldest.popitem(last=False)
                self.values -= dropped

    def __len__(self) -> int:
        return len(self._kept)
