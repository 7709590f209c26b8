"""A result read under the row cap and the byte budget, batch by batch: shared by the executor and the DuckDB worker.

Standard library only, because the DuckDB worker process imports it and should start fast. The
messages are written here once, so a statement past a limit reads the same on every engine.

The bytes are counted a column of a batch at a time, by C-level passes instead of a Python call per
value (which cost two thirds of the fetch: 5M calls for 1M rows of 5 columns): a column of strings
alone is ``sum(map(str.__len__, ...))``, which raises at the first value that is not a string; any other
column's types are read in one pass (``set(map(type, ...))``), and a column of values that are neither text,
bytes nor ``None`` (numbers, dates) is ``16 * rows``. Only a column that mixes those, or holds ``None``, is
counted value by value. The count is exactly :func:`value_bytes`'s, never an estimate. The types read on the
way are handed to the caller (``kinds``): the grader's comparison and lints need them, and would scan every
value again for them.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

__all__ = [
    "FETCH_BATCH",
    "Overflow",
    "batch_bytes",
    "fetch_bounded",
    "memory_message",
    "too_large",
    "too_many_rows",
    "value_bytes",
]

FETCH_BATCH = 500
"""Rows asked of the driver at a time; each batch is measured before the next is asked for."""


class Overflow(Exception):
    """The result passed the row cap or the byte budget; ``message`` says which and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def too_many_rows(row_cap: int) -> str:
    return (
        f"The query returned more than {row_cap} rows (the row cap); "
        "add a LIMIT, a filter or an aggregate. A truncated answer cannot be graded."
    )


def too_large(max_bytes: int) -> str:
    return (
        f"The result is larger than {max_bytes:,} bytes (the result budget); select fewer or "
        "shorter columns, or aggregate. A truncated answer cannot be graded."
    )


def memory_message(where: str, limit_bytes: int) -> str:
    """A statement that needed more memory than ``where`` (a named cap of ``limit_bytes``) allows."""
    return (
        f"The query needed more memory than {where} allows ({limit_bytes // (1 << 20):,} MiB) and was stopped: "
        "it builds values or intermediate results that are too large; select fewer or shorter values, "
        "filter earlier, or aggregate."
    )


def value_bytes(value: Any) -> int:
    """Strings and blobs by their length, any other value 16 bytes (``None``: 0)."""
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return len(value)
    return 16 if value is not None else 0


_SIZED = (str, bytes, bytearray, memoryview, type(None))
"""Values :func:`value_bytes` does not count as 16 bytes."""


def batch_bytes(batch: Sequence[Sequence[Any]], kinds: list[set[type]] | None = None) -> int:
    """The bytes of a batch of rows as :func:`value_bytes` counts them, summed a column at a time in C.

    ``kinds``: one set per column, to which each column's types are added as the count reads them (a column of
    text alone adds ``str``, of bytes alone ``bytes``); what the result's readers would otherwise scan again."""
    if not batch:
        return 0
    total = 0
    for col in range(len(batch[0])):
        pick = itemgetter(col)
        try:
            total += sum(map(str.__len__, map(pick, batch)))  # text alone
            if kinds is not None:
                kinds[col].add(str)
            continue
        except TypeError:
            pass
        try:
            total += sum(map(bytes.__len__, map(pick, batch)))  # bytes alone
            if kinds is not None:
                kinds[col].add(bytes)
            continue
        except TypeError:
            pass
        seen = set(map(type, map(pick, batch)))
        if kinds is not None:
            kinds[col] |= seen
        if not any(issubclass(kind, _SIZED) for kind in seen):  # numbers, dates, ...: 16 bytes each
            total += 16 * len(batch)
        else:
            total += sum(map(value_bytes, map(pick, batch)))
    return total


def fetch_bounded(
    fetchmany: Callable[[int], Sequence[Any]], row_cap: int, max_bytes: int, kinds: list[set[type]] | None = None
) -> list[tuple[Any, ...]]:
    """Every row, asked for in batches, stopping with :class:`Overflow` past ``row_cap`` rows or ``max_bytes``.

    At most ``row_cap + 1`` rows are ever asked for; the bytes are counted per batch, before the next one.
    ``kinds`` (empty): filled with one set per column of the types the count saw (:func:`batch_bytes`).
    Rows that are tuples already (``sqlite3``'s, DuckDB's, psycopg's) are kept as they are. The cyclic
    garbage collector is paused meanwhile, as ``timeit`` does: rows of plain values hold no cycles, and
    every young collection would walk all the rows fetched so far again.
    """
    rows: list[tuple[Any, ...]] = []
    size = 0
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        while batch := fetchmany(min(FETCH_BATCH, row_cap + 1 - len(rows)) or 1):
            if kinds is not None and not kinds:
                kinds.extend(set() for _ in batch[0])
            size += batch_bytes(batch, kinds)
            if type(batch) is list and type(batch[0]) is tuple:
                rows.extend(batch)
            else:
                rows.extend(map(tuple, batch))
            if len(rows) > row_cap:
                raise Overflow(too_many_rows(row_cap))
            if size > max_bytes:
                raise Overflow(too_large(max_bytes))
    finally:
        if paused:
            gc.enable()
    return rows
