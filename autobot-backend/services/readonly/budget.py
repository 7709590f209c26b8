"""A result read under the row cap and the byte budget, batch by batch: shared by the executor and the DuckDB worker.

Standard library only, because the DuckDB worker process imports it and should start fast. The
messages are written here once, so a statement past a limit reads the same on every engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["FETCH_BATCH", "Overflow", "fetch_bounded", "memory_message", "too_large", "too_many_rows", "value_bytes"]

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


def fetch_bounded(fetchmany: Callable[[int], Sequence[Any]], row_cap: int, max_bytes: int) -> list[tuple[Any, ...]]:
    """Every row, asked for in batches, stopping with :class:`Overflow` past ``row_cap`` rows or ``max_bytes``.

    At most ``row_cap + 1`` rows are ever asked for; the bytes are counted per batch, before the next one.
    """
    rows: list[tuple[Any, ...]] = []
    size = 0
    while batch := fetchmany(min(FETCH_BATCH, row_cap + 1 - len(rows)) or 1):
        for row in batch:
            size += sum(value_bytes(v) for v in row)
        rows.extend(tuple(r) for r in batch)
        if len(rows) > row_cap:
            raise Overflow(too_many_rows(row_cap))
        if size > max_bytes:
            raise Overflow(too_large(max_bytes))
    return rows
