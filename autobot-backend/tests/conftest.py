"""Fixtures of the backend's tests: the small schemas the built-in generator's probes ask about
(:mod:`tests.embedded_small_schemas`), built once per test module that asks for them; the service's shop
database and a service over it (:mod:`tests.nl_service_helpers`), fresh for every test, shared by the
service's test modules (a module's own ``shop`` fixture overrides it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.nl_database_service import NLDatabaseService
from tests.bounds import PATIENCE_S
from tests.embedded_small_schemas import ferry_db, gym_db
from tests.nl_service_helpers import build_shop


@pytest.fixture(scope="module")
def ferry():
    yield from ferry_db()


@pytest.fixture(scope="module")
def gym():
    yield from gym_db()


@pytest.fixture
def shop(tmp_path) -> Path:
    path = tmp_path / "shop.db"
    build_shop(path)
    return path


@pytest.fixture
def service_for(shop):
    """Build a service over the shop database; every service built is closed at teardown. Its statement limit is
    one a busy machine never reaches, unless a test sets its own: a slow machine is not a ``timeout`` verdict
    (issue 37; :mod:`tests.bounds`)."""
    built: list[NLDatabaseService] = []

    def make(generator, **kwargs) -> NLDatabaseService:
        service = NLDatabaseService(generator, local_db_url=f"sqlite:///{shop}", **{"timeout_s": PATIENCE_S, **kwargs})
        built.append(service)
        return service

    yield make
    for service in built:
        service.close()
