"""Session fixtures of every test folder.

Tests never write the project's own records: the docs pages, the corpus, its snapshots and baselines.
A test that records a run works on a copy; ``_project_records_untouched`` fails the session when one
wrote the real thing, so a dated record can only change through its command.

``postgres`` is the throwaway PostgreSQL server (``eval/sql/engines/pg_server.py``), one per session, for the
backend's tests and the eval's (the engines' tests build their fixtures on it); ``spark`` the throwaway Spark
Thrift server (``eval/sql/engines/spark_server.py``), likewise one per session.

The tests that need a system package (Chromium and chromedriver, PostgreSQL's server binaries) skip without it,
and the session ends with one line saying which and how many, and how to get them (:func:`system_packages_line`);
under CI's ``EVAL_REQUIRE_BROWSER`` / ``EVAL_REQUIRE_POSTGRES`` / ``EVAL_REQUIRE_SPARK`` they fail instead.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests import spark_server
from tests.pg_server import PgServer, start_for_tests

SYSTEM_PACKAGES = (
    ("not installed: chromium", "Chromium and chromedriver"),
    ("PostgreSQL server binaries not found", "PostgreSQL's server binaries"),
    ("Java is not installed", "Java 17 (Spark's)"),
    ("the Java compiler is not installed", "Java 17's compiler (Spark's read-only layer)"),
)
"""(what a skip's reason says, the packages it names) of the tests that need a system package."""

_REPO = Path(__file__).resolve().parent.parent
_GUARDED = (_REPO / "docs", Path(__file__).resolve().parent / "eval" / "golden")


def _digests() -> dict[str, str]:
    return {
        str(p.relative_to(_REPO)): hashlib.sha256(p.read_bytes()).hexdigest()
        for root in _GUARDED
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="session", autouse=True)
def _project_records_untouched() -> Iterator[None]:
    before = _digests()
    yield
    after = _digests()
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"a test wrote the project's own files (use a copy): {', '.join(changed)}"


@pytest.fixture(scope="session")
def postgres(request: pytest.FixtureRequest) -> PgServer:
    """A running server with an owner role and a SELECT-only role; skipped when PostgreSQL is not installed.

    Stopped and deleted when the session ends, whatever the tests did (and at exit, should pytest crash).
    """
    server = start_for_tests()
    request.addfinalizer(server.stop)
    return server


@pytest.fixture(scope="session")
def spark(request: pytest.FixtureRequest) -> spark_server.SparkServer:
    """A running Spark Thrift server; skipped when Spark or Java is not installed.

    One per session (its JVM takes 15-40 s to start on two cores); stopped and deleted when the session ends.
    """
    server = spark_server.start_for_tests()
    request.addfinalizer(server.stop)
    return server


def system_packages_line(reasons: Sequence[str]) -> str | None:
    """The one line a session ends with when tests skipped for want of a system package; None when none did."""
    counts: Counter[str] = Counter()
    for reason in reasons:
        for marker, packages in SYSTEM_PACKAGES:
            if marker in reason:
                counts[packages] += 1
    if not counts:
        return None
    missing = "; ".join(f"{packages} ({n} test(s))" for packages, n in counts.items())
    return (
        f"system packages missing, so these tests skipped: {missing}. `make test` installs them as root or with "
        "password-less sudo (.ci/system-deps); CI requires them (EVAL_REQUIRE_BROWSER=1, EVAL_REQUIRE_POSTGRES=1, "
        "EVAL_REQUIRE_SPARK=1)"
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    reports = terminalreporter.stats.get("skipped", [])
    reasons = [str(r.longrepr[2]) if isinstance(r.longrepr, tuple) else str(r.longrepr) for r in reports]
    line = system_packages_line(reasons)
    if line is not None:
        terminalreporter.write_line(line, yellow=True)
