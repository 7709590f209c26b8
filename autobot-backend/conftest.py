"""Session fixtures of every test folder.

Tests never write the project's own records: the docs pages, the corpus, its snapshots and baselines.
A test that records a run works on a copy; ``_project_records_untouched`` fails the session when one
wrote the real thing, so a dated record can only change through its command.

``postgres`` is the throwaway PostgreSQL server (``eval/sql/engines/pg_server.py``), one per session, for the
backend's tests and the eval's (the engines' tests build their fixtures on it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_server import PgServer, start_for_tests

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
