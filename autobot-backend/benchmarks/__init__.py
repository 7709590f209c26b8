"""Benchmarks (``make bench``): speed and memory figures, printed, never asserted by timed tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(fn: Callable[[], T], repeat: int = 3) -> tuple[float, T]:
    """Seconds of the fastest of ``repeat`` calls (the least disturbed by the machine), and its result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - started)
    return best, out  # type: ignore[return-value]


__all__ = ["best_of"]
