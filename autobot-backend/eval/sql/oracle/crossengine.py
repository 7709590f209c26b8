"""The oracle agreeing with itself across engines: every reference, every rotation, every engine.

The same seed is the same rows on every engine (the fixtures are built by one SQLAlchemy builder),
so a reference that means one thing gives one answer everywhere. :func:`run_cross_engine` builds
the fixtures on each engine, runs the full self-check there (every rule it has on SQLite, the
snapshot included), then compares each question's reference result on each rotation of every
other engine with the first engine's, at the question's declared ``decimals``, through the
grader's own comparison (:func:`eval.sql.rows.compare_with_ties`: a tie-break the reference's
ORDER BY leaves open is not a disagreement, exactly as it is not a wrong answer).

Each disagreement is a named defect: the question id, the two engines, the rotation and the first
difference. A disagreement means the question's reference does not say the same thing in every
dialect: sqlglot's transpilation of its SQLite reference changed its meaning (give it a
``sql_<dialect>`` override), or the engines store the data differently (fix the fixture's types).
Never the comparison: it is the grader's.

Command line: ``python -m eval.cli.selfcheck --engines sqlite,postgresql,duckdb`` (exit 0 when
every engine's self-check is clean and no two engines disagree, 2 otherwise).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK
from eval.sql.corpus.questions import Corpus
from eval.sql.corpus.snapshot import SNAPSHOT_DIR, SNAPSHOT_SEED
from eval.sql.engines.setup import build_all, fixture_host
from eval.sql.fixtures.seeded import FIXTURES, Fixture
from eval.sql.grading.grade import as_graded
from eval.sql.model.defaults import ENGINES
from eval.sql.oracle.selfcheck import OracleDefect, SelfCheckResult, run_self_check
from services.readonly.execute import ReadOnlySQL

__all__ = ["CrossEngineResult", "Disagreement", "compare_engines", "parse_engines", "print_result", "run_cross_engine"]


@dataclass(frozen=True)
class Disagreement:
    """Two engines' reference answers to one question differ on one rotation."""

    question_id: str
    engines: tuple[str, str]
    """(the engine compared against, the engine that differs)."""
    rotation: int
    """0-based."""
    reason: str
    """The comparison's reason (``value``, ``row_count``, ``order``, ``column_count``, ``shape``)."""
    detail: str
    """The first difference, e.g. ``row 3 col 2: expected 12.5, got 12``."""

    def __str__(self) -> str:
        a, b = self.engines
        return f"{self.question_id}: {a} vs {b}, rotation {self.rotation + 1}: {self.reason}: {self.detail}"


@dataclass
class CrossEngineResult:
    engines: tuple[str, ...]
    checks: dict[str, SelfCheckResult] = field(default_factory=dict)
    """Engine -> its own self-check (defects and reference results)."""
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def defects(self) -> list[tuple[str, OracleDefect]]:
        """Every engine's own self-check defects, as (engine, defect)."""
        return [(engine, d) for engine in self.engines for d in self.checks[engine].defects]

    @property
    def ok(self) -> bool:
        return not self.disagreements and not self.defects


def compare_engines(corpus: Corpus, checks: Mapping[str, SelfCheckResult]) -> list[Disagreement]:
    """Every question whose reference answer on some engine differs from the first engine's.

    A question whose reference did not run on an engine is that engine's self-check defect, not a
    disagreement. On each question, the first rotation that differs is named.
    """
    engines = list(checks)
    if len(engines) < 2:
        return []
    base, others = engines[0], engines[1:]
    found = []
    for q in corpus.questions:
        expected = checks[base].reference.get(q.id)
        if q.expect != "answer" or expected is None:
            continue
        ties = checks[base].ties.get(q.id) or [None] * len(expected)
        for other in others:
            actual = checks[other].reference.get(q.id)
            if actual is None:
                continue
            for rotation, (ref, got, tie) in enumerate(zip(expected, actual, ties)):
                cmp = as_graded(q, ref, got, tie)
                if not cmp.match:
                    found.append(Disagreement(q.id, (base, other), rotation, cmp.reason or "", cmp.detail))
                    break
    return found


def run_cross_engine(
    corpus: Corpus,
    engines: Sequence[str],
    *,
    rotations: int,
    seed: int = SNAPSHOT_SEED,
    fixtures: Mapping[str, Fixture] = FIXTURES,
    postgres_url: str | None = None,
    spark_url: str | None = None,
    snapshot_dir: Path | None = SNAPSHOT_DIR,
    progress: Callable[[str], None] | None = None,
) -> CrossEngineResult:
    """Build the fixtures on every engine, self-check each, and compare the engines' answers.

    Args:
        engines: engine names (:data:`eval.sql.engines.ENGINES`); the first is the one the others are
            compared with.
        postgres_url: a PostgreSQL database to build in (``--fixture-url``); None starts a throwaway server.
        spark_url: a Spark server to build in (a ``spark://`` URL); None starts a throwaway server.
        snapshot_dir: the committed seed-0 answers, checked on every engine (None to skip, or when
            ``seed`` is not the snapshot's).
    """
    names = sorted({q.fixture for q in corpus.questions if q.fixture and q.expect == "answer"})
    result = CrossEngineResult(tuple(engines))
    with tempfile.TemporaryDirectory(prefix="sql-engines-") as tmp, ExitStack() as stack:
        for engine in engines:
            workdir = Path(tmp) / engine
            workdir.mkdir()
            url = {"postgresql": postgres_url, "spark": spark_url}.get(engine)
            host = stack.enter_context(fixture_host(engine, workdir, url))
            targets = build_all(host, [fixtures[n] for n in names], seed, rotations, progress)
            if progress is not None:
                progress(f"self-check on {engine}")
            with ReadOnlySQL() as database:
                result.checks[engine] = run_self_check(
                    database, corpus, targets, snapshot_dir=snapshot_dir if seed == SNAPSHOT_SEED else None
                )
    result.disagreements = compare_engines(corpus, result.checks)
    return result


def parse_engines(text: str) -> list[str]:
    """``sqlite,postgresql`` -> the engines, in order; an unknown or repeated name is a usage error."""
    engines = [e.strip() for e in text.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if not engines or unknown or len(set(engines)) != len(engines):
        raise UsageError(
            f"--engines {text!r}: name each engine once, comma-separated, from {', '.join(ENGINES)}"
            + (f" (unknown: {', '.join(unknown)})" if unknown else "")
        )
    return engines


def print_result(corpus: Corpus, result: CrossEngineResult, rotations: int) -> int:
    """Every defect and disagreement on a line of its own, then the verdict; the exit code (0 or 2)."""
    several = len(result.engines) > 1
    for engine, d in result.defects:
        print(f"{f'[{engine}] ' if several else ''}{d.question_id}: {d.kind}: {d.detail}")
    for disagreement in result.disagreements:
        print(f"{disagreement.question_id}: engines disagree: {disagreement}")
    answerable = sum(q.expect == "answer" for q in corpus.questions)
    fixtures = sorted({q.fixture for q in corpus.questions if q.fixture})
    where = f" on {', '.join(result.engines)}" if several else ""
    found = [f"{len(result.defects)} defect(s)"] if result.defects else []
    if several:
        found.append(f"{len(result.disagreements)} disagreement(s)")
    print(
        f"self-check: {answerable} reference queries on {rotations} rotation(s) of {', '.join(fixtures)}{where}: "
        + ("ok" + (" (0 disagreements)" if several else "") if result.ok else ", ".join(found))
    )
    return EXIT_OK if result.ok else EXIT_CANNOT_JUDGE
