"""The tests' throwaway PostgreSQL server: :mod:`eval.sql.engines.pg_server`, plus the rule for a machine without one.

Without the server binaries a PostgreSQL test is skipped, unless ``EVAL_REQUIRE_POSTGRES=1``
(``.ci/run`` sets it after installing them), where it fails: CI may not skip what it must test.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from eval.sql.engines.pg_server import (
    PgDatabase,
    PgServer,
    PgServerError,
    PgUnavailable,
    database_state,
    find_bindir,
    start,
)

__all__ = [
    "REQUIRE_ENV",
    "PgDatabase",
    "PgServer",
    "PgServerError",
    "PgUnavailable",
    "database_state",
    "find_bindir",
    "start",
    "start_for_tests",
]

REQUIRE_ENV = "EVAL_REQUIRE_POSTGRES"
"""Set to ``1`` (CI does) to make missing server binaries a test failure instead of a skip."""


def start_for_tests(environ: Mapping[str, str] | None = None) -> PgServer:
    """:func:`start`, or skip the calling test when PostgreSQL is not installed (fail under ``REQUIRE_ENV=1``)."""
    import pytest

    env = os.environ if environ is None else environ
    try:
        return start()
    except PgUnavailable as exc:
        if env.get(REQUIRE_ENV, "").strip() == "1":
            pytest.fail(
                f"{exc}. {REQUIRE_ENV}=1 is set, so the PostgreSQL tests may not be skipped "
                "(.ci/run installs the server package first).",
                pytrace=False,
            )
        pytest.skip(str(exc))
