"""Latency of the embedded generator (``embedded-v2``) per question, over its retail dev set and
over the blind set's tune questions on their five schemas.

Cold: each question is the first after the per-schema index was dropped, so the index build is
in the figure. Warm: the index is built; every question is asked five times. The target is well
under 50 ms per question.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

from services.embedded import EmbeddedGenerator
from services.embedded.index import clear_cache
from services.schema_context import inspect_schema
from tests.test_embedded_blind import database, load_split
from tests.test_embedded_devset import load_devset
from tests.test_embedded_schemas import write_db

WARM_REPEATS = 5


def _line(label: str, samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return (f"   {label:<5} n={len(ordered):<4} mean {statistics.fmean(ordered):6.2f} ms   "
            f"p50 {statistics.median(ordered):6.2f} ms   p95 {p95:6.2f} ms   max {ordered[-1]:6.2f} ms")


def run() -> None:
    questions = [q.question for q in load_devset() if q.schema == "retail"]
    with tempfile.TemporaryDirectory() as tmp:
        engine = sa.create_engine(write_db(Path(tmp) / "retail.db", "retail"))
        schema = inspect_schema(engine)
        engine.dispose()
    generator = EmbeddedGenerator()
    cold: list[float] = []
    for question in questions:
        clear_cache()
        started = time.perf_counter()
        generator.generate(question, schema)
        cold.append((time.perf_counter() - started) * 1000)
    warm: list[float] = []
    for _ in range(WARM_REPEATS):
        for question in questions:
            started = time.perf_counter()
            generator.generate(question, schema)
            warm.append((time.perf_counter() - started) * 1000)
    print(f"   generate() over {len(questions)} retail dev-set questions (answerable and must-refuse)")
    print(_line("cold", cold))
    print(_line("warm", warm))
    _blind(generator)


def _blind(generator: EmbeddedGenerator) -> None:
    """The blind tune questions, each on its own schema (warm: every index built first)."""
    blind = load_split("tune")
    contexts = {q.schema: database(q.schema)[0] for q in blind}
    for question in blind:
        generator.generate(question.question, contexts[question.schema])
    warm: list[float] = []
    for _ in range(WARM_REPEATS):
        for question in blind:
            started = time.perf_counter()
            generator.generate(question.question, contexts[question.schema])
            warm.append((time.perf_counter() - started) * 1000)
    print(f"   generate() over {len(blind)} blind tune questions on {len(contexts)} schemas")
    print(_line("warm", warm))
