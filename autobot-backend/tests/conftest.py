"""Session fixtures shared by the backend tests: a throwaway PostgreSQL server (``tests/pg_server.py``)."""

from __future__ import annotations

import pytest

from tests.pg_server import PgServer, start_for_tests


@pytest.fixture(scope="session")
def postgres(request: pytest.FixtureRequest) -> PgServer:
    """A running server with an owner role and a SELECT-only role; skipped when PostgreSQL is not installed.

    Stopped and deleted when the session ends, whatever the tests did (and at exit, should pytest crash).
    """
    server = start_for_tests()
    request.addfinalizer(server.stop)
    return server
