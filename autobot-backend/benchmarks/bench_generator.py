"""Latency of the built-in generator per question, over its retail dev set, over
the first blind set on its five schemas and the second blind set (both splits, burned) on its four.

Cold: each question is the first after the per-schema index was dropped, so the index build is
in the figure. Warm: the index is built; every question is asked five times. The target is well
under 50 ms per question. A warm ``max`` can include a pause of Python's cyclic garbage collector,
which belongs to the whole process (here one holding every blind-set database), not to the
question; so each blind set is timed once more with the collector paused, as ``timeit`` does, and
that slowest question is printed beside it.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable

from services.embedded import EmbeddedGenerator
from services.embedded.index import clear_cache
from services.schema_context import SchemaContext
from tests.generator_outputs import context, questions

WARM_REPEATS = 5
Asked = tuple[str, SchemaContext]
"""A question and the schema it is asked of."""


def _line(label: str, samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"   {label:<5} n={len(ordered):<4} mean {statistics.fmean(ordered):6.2f} ms   "
        f"p50 {statistics.median(ordered):6.2f} ms   p95 {p95:6.2f} ms   max {ordered[-1]:6.2f} ms"
    )


def run() -> None:
    generator = EmbeddedGenerator()
    asked = [
        (text, context(fixture))
        for key, fixture, text in questions()
        if key.startswith("embedded_dev/") and fixture == "dev_retail"
    ]
    cold = _times(generator, asked, before_each=clear_cache)
    warm = _times(generator, asked * WARM_REPEATS)
    print(f"   generate() over {len(asked)} retail dev-set questions (answerable and must-refuse)")
    print(_line("cold", cold))
    print(_line("warm", warm))
    _blind(generator)


def _blind(generator: EmbeddedGenerator) -> None:
    """Both blind sets' questions, each on its own schema (warm: every index built first)."""
    for folder, label in (
        ("embedded_blind/", "blind set (both splits, burned holdout included)"),
        ("embedded_blind2/", "second blind set's questions (both splits, burned holdout included)"),
    ):
        _warm(
            generator, label, [(text, context(fixture)) for key, fixture, text in questions() if key.startswith(folder)]
        )


def _times(
    generator: EmbeddedGenerator, asked: list[Asked], before_each: Callable[[], None] | None = None
) -> list[float]:
    """Milliseconds per ``generate`` call, one per (question, schema) in ``asked``, in order."""
    samples = []
    for question, schema in asked:
        if before_each:
            before_each()
        started = time.perf_counter()
        generator.generate(question, schema)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _warm(generator: EmbeddedGenerator, label: str, asked: list[Asked]) -> None:
    _times(generator, asked)
    warm = _times(generator, asked * WARM_REPEATS)
    gc.disable()
    try:
        paused = _times(generator, asked)
    finally:
        gc.enable()
    print(f"   generate() over {len(asked)} questions of the {label}")
    print(_line("warm", warm))
    print(f"   slowest question with the garbage collector paused: {max(paused):6.2f} ms")
