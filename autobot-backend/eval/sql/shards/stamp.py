"""What a shard's report stamps beyond its share: what the merge requires equal in every shard that the cohort
does not already hold (the engine's version, the harness's code, the limits, the settings that change a figure).

The harness is named by the digest of its code rather than a commit: an uncommitted edit on one runner is a
different harness, and a checkout without git still has one."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from eval.sql.engines.setup import engine_name
from services.nl_database_service import NLDatabaseService

_BACKEND = Path(__file__).resolve().parents[3]
_CODE = ("eval", "services")
_VERSION_SQL = {"sqlite": "SELECT sqlite_version()", "duckdb": "SELECT version()", "postgresql": "SHOW server_version"}


@cache
def harness_digest() -> str:
    """SHA-256 (first 16) of every Python file of the harness and the service, tests left out, by path and bytes."""
    digest = hashlib.sha256()
    for top in _CODE:
        for path in sorted((_BACKEND / top).rglob("*.py")):
            relative = path.relative_to(_BACKEND)
            if "tests" in relative.parts:
                continue
            digest.update(f"{relative.as_posix()}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def engine_version(service: NLDatabaseService, url: str) -> str:
    """The version the database itself reports (``sqlite_version()``, DuckDB's ``version()``, PostgreSQL's
    ``server_version``), asked through the read-only service like any query; ``unknown`` where it cannot say."""
    sql = _VERSION_SQL.get(engine_name(url))
    if sql is None:
        return "unknown"
    result = service.run_readonly(sql, url)
    if not result.ok or not result.rows:
        return "unknown"
    return str(result.rows[0][0])


def shard_setup(**settings: Any) -> dict[str, Any]:
    """The setup a shard stamps: the harness's digest and the given settings, keys sorted."""
    return dict(sorted({"harness": harness_digest(), **settings}.items()))
