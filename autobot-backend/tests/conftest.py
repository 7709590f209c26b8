"""Fixtures of the backend's tests: the small schemas the built-in generator's probes ask about
(:mod:`tests.embedded_small_schemas`), built once per test module that asks for them."""

from __future__ import annotations

import pytest

from tests.embedded_small_schemas import ferry_db, gym_db


@pytest.fixture(scope="module")
def ferry():
    yield from ferry_db()


@pytest.fixture(scope="module")
def gym():
    yield from gym_db()
