"""The engine a run's fixtures are built on and its answers graded on: SQLite, PostgreSQL, DuckDB or Spark SQL.

A :class:`FixtureHost` builds every rotation of a fixture on its engine, through the fixture's own
SQLAlchemy builder (so the same seed is the same rows everywhere, and the fixture's guarantees are
checked in SQL on that engine), and returns one SQLAlchemy URL per rotation for the read-only
executor. :func:`fixture_host` opens the host of an engine and takes down what it made:

* ``sqlite`` (the default): one file per rotation, from the on-disk fixture cache when a verified
  copy is there (:mod:`eval.sql.fixtures.cache`).
* ``duckdb``: one file per rotation in the run's temporary folder, through duckdb-engine, from the
  same on-disk cache (keyed by the DuckDB versions instead of SQLite's).
* ``postgresql``: one schema per rotation (``eval_<run>_<fixture>_s<seed>``), in the database at
  ``--fixture-url`` (its role must be allowed to create schemas there; they are dropped at the end),
  or, when none is given, on a throwaway server started the way the tests start theirs
  (:mod:`eval.sql.engines.pg_server`), where the answers run as a role that may only SELECT. Each rotation's
  URL sets ``search_path`` to its schema.
* ``spark``: one Spark database per rotation, a copy of the rotation's verified SQLite build
  (:mod:`eval.sql.engines.spark_host`), on the Spark Thrift server at ``--fixture-url`` (a ``spark://``
  URL whose user may create databases; they are dropped at the end) or on a throwaway server
  (:mod:`eval.sql.engines.spark_server`).

Engine names are SQLAlchemy's (``postgresql``, not sqlglot's ``postgres``); :func:`engine_name`
gives the name of the engine behind a URL, the name reports, baselines and records carry.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import sqlalchemy as sa

from eval.core import interrupt
from eval.core.errors import HarnessError, UsageError
from eval.sql.fixtures import cache as fixture_cache
from eval.sql.fixtures import seeded as fx
from eval.sql.fixtures.seeded import Fixture, FixtureError
from eval.sql.model.defaults import DEFAULT_ENGINE, ENGINES
from services.redaction import redact_url

__all__ = [
    "EngineUnavailable",
    "FixtureHost",
    "build_all",
    "chosen_engine",
    "engine_name",
    "fixture_host",
]


class EngineUnavailable(HarnessError):
    """The engine asked for cannot be used on this machine (not installed, not reachable)."""


def engine_name(url: str) -> str:
    """The SQLAlchemy backend name of ``url`` (``sqlite``, ``postgresql``, ``duckdb``, ...)."""
    return sa.engine.make_url(url).get_backend_name()


def chosen_engine(engine: str | None, fixture_url: str | None, db_url: str | None) -> str:
    """The engine of a run from ``--engine``, ``--fixture-url`` and ``--db-url``, checked before anything is built.

    Raises:
        UsageError: an unknown engine; ``--engine`` or ``--fixture-url`` with ``--db-url`` (that database is
            the engine); ``--fixture-url`` without ``--engine postgresql`` or ``--engine spark``.
    """
    if db_url and (engine is not None or fixture_url is not None):
        raise UsageError(
            "--db-url runs on your own database, on its own engine: --engine and --fixture-url are for the fixtures"
        )
    chosen = engine or DEFAULT_ENGINE
    if chosen not in ENGINES:
        raise UsageError(f"unknown engine {chosen!r}; choose one of {', '.join(ENGINES)}")
    if fixture_url is not None and chosen not in SERVERS:
        raise UsageError(
            "--fixture-url is the PostgreSQL database or Spark server to build the fixtures in: "
            "add --engine postgresql or --engine spark"
        )
    if fixture_url is not None:
        check_fixture_url(fixture_url, chosen)
    return chosen


SERVERS = {
    "postgresql": "postgresql://user:password@host:port/database",
    "spark": "spark://user@host:port/database",
}
"""The engines a run can build its fixtures on at ``--fixture-url``, with the URL each expects."""


def check_fixture_url(fixture_url: str, engine: str = "postgresql") -> None:
    """``--fixture-url`` is a URL of ``engine`` (PostgreSQL or Spark); one that does not parse is refused without
    its text (nothing marks which part of it is the password)."""
    expected = SERVERS[engine]
    try:
        backend = engine_name(fixture_url)
    except (sa.exc.ArgumentError, ValueError, TypeError):
        raise UsageError(
            "--fixture-url does not parse as a SQLAlchemy URL (its value is not shown: it may hold a password); "
            f"expected {expected}"
        ) from None
    if backend != engine:
        kind = "PostgreSQL" if engine == "postgresql" else "Spark"
        raise UsageError(f"--fixture-url {redact_url(fixture_url)}: not a {kind} URL (expected {expected})")


class FixtureHost(Protocol):
    """Where one run's fixtures live."""

    engine: str
    """SQLAlchemy backend name."""

    def build_rotations(self, fixture: Fixture, seed: int, rotations: int) -> list[str]:
        """Build rotations ``0..rotations-1`` (seeds from ``fixture.base_seed + seed``); their URLs in order."""
        ...


def _seeds(fixture: Fixture, seed: int, rotations: int) -> range:
    if rotations < 1:
        raise FixtureError(f"rotations must be at least 1, got {rotations}")
    return range(fixture.base_seed + seed, fixture.base_seed + seed + rotations)


class SQLiteHost:
    engine = "sqlite"

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir

    def build_rotations(self, fixture: Fixture, seed: int, rotations: int) -> list[str]:
        return fx.build_rotations(fixture, self.workdir, seed=seed, rotations=rotations)


class DuckDBHost:
    engine = "duckdb"

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir

    def build_rotations(self, fixture: Fixture, seed: int, rotations: int) -> list[str]:
        sources = fixture_cache.source_digest(fixture.sources) if fixture.sources else None
        urls = []
        for s in _seeds(fixture, seed, rotations):
            path = self.workdir / f"{fixture.name}-seed{s}.duckdb"

            def write(target: Path, s: int = s) -> None:
                _write_duckdb(target, fixture, s)

            if sources is None:
                write(path)
            else:
                fixture_cache.materialise(path, fixture.name, s, sources, write, engine="duckdb")
            urls.append(sa.URL.create("duckdb", database=str(path)).render_as_string(hide_password=False))
        return urls


def _write_duckdb(path: Path, fixture: Fixture, seed: int) -> None:
    """A new DuckDB file at ``path`` holding ``fixture`` at ``seed``; a failed build leaves no file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    engine = sa.create_engine(sa.URL.create("duckdb", database=str(path)))
    try:
        fixture.build(engine, seed)
    except BaseException:
        engine.dispose()
        path.unlink(missing_ok=True)  # a half-built database is never mistaken for one
        raise
    # Closed before the executor opens it read-only: DuckDB refuses one file open two ways at once.
    engine.dispose()


class PostgresHost:
    """Rotations as schemas of one database; ``reader``: grant a SELECT-only role and grade as it."""

    engine = "postgresql"

    def __init__(self, owner_url: str, reader: tuple[str, str] | None = None) -> None:
        self.owner_url = sa.engine.make_url(owner_url)
        self.reader = reader
        """(role, URL) of a role that may only read: it is granted each schema and the answers run as it."""
        self.run_id = secrets.token_hex(3)
        self.schemas: list[str] = []
        self._admin = sa.create_engine(self.owner_url)

    def _schema_url(self, url: sa.URL, schema: str) -> str:
        options = f"-csearch_path={schema}"
        return url.update_query_dict({"options": options}).render_as_string(hide_password=False)

    def build_rotations(self, fixture: Fixture, seed: int, rotations: int) -> list[str]:
        urls = []
        for s in _seeds(fixture, seed, rotations):
            schema = re.sub(r"[^a-z0-9_]", "_", f"eval_{self.run_id}_{fixture.name}_s{s}".lower())[:63]
            self._execute(f'CREATE SCHEMA "{schema}"', "create a schema")
            self.schemas.append(schema)
            engine = sa.create_engine(self._schema_url(self.owner_url, schema))
            try:
                fixture.build(engine, s)
            finally:
                engine.dispose()
            if self.reader is not None:
                role, reader_url = self.reader
                self._execute(f'GRANT USAGE ON SCHEMA "{schema}" TO {role}', "grant the reader")
                self._execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO {role}', "grant the reader")
                urls.append(self._schema_url(sa.engine.make_url(reader_url), schema))
            else:
                urls.append(self._schema_url(self.owner_url, schema))
        return urls

    def _execute(self, sql: str, what: str) -> None:
        try:
            with self._admin.begin() as conn:
                conn.exec_driver_sql(sql)
        except sa.exc.SQLAlchemyError as exc:
            detail = " ".join(str(getattr(exc, "orig", None) or exc).split())
            raise FixtureError(
                f"cannot {what} in the PostgreSQL database {redact_url(str(self.owner_url))} ({detail}); "
                "--fixture-url needs a role that may create schemas there, or leave it out to use a "
                "throwaway server"
            ) from None

    def close(self) -> None:
        """Drop every schema this host made, then its connections."""
        try:
            for schema in reversed(self.schemas):
                self._execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE', "drop a schema")
        finally:
            self.dispose()

    def dispose(self) -> None:
        """Close its connections, dropping nothing (a throwaway server goes whole)."""
        self._admin.dispose()


@contextmanager
def fixture_host(engine: str, workdir: Path, fixture_url: str | None = None) -> Iterator[FixtureHost]:
    """The host of ``engine`` for one run; what it built is taken down on exit.

    Raises:
        UsageError: an unknown engine, or ``fixture_url`` for an engine that is not a server.
        EngineUnavailable: PostgreSQL or Spark without ``fixture_url`` on a machine without their server.
    """
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if fixture_url is not None and engine not in SERVERS:
        raise UsageError(
            f"--fixture-url names a PostgreSQL database or a Spark server; the {engine} fixtures are files of the run"
        )
    if engine == "sqlite":
        yield SQLiteHost(workdir)
    elif engine == "duckdb":
        _require_duckdb()
        yield DuckDBHost(workdir)
    elif engine == "spark":
        with _spark_host(workdir, fixture_url) as spark:
            yield spark
    elif fixture_url is not None:
        check_fixture_url(fixture_url)
        host = PostgresHost(fixture_url)
        try:
            yield host
        finally:
            host.close()
    else:
        with _throwaway_server() as host:
            yield host


def _require_duckdb() -> None:
    try:
        import duckdb_engine  # noqa: F401
    except ImportError:
        raise EngineUnavailable(
            "--engine duckdb needs DuckDB and its SQLAlchemy dialect: pip install duckdb duckdb-engine "
            "(make eval installs them)"
        ) from None


@contextmanager
def _throwaway_server() -> Iterator[PostgresHost]:
    from eval.sql.engines import pg_server

    try:
        with interrupt.held():  # started whole: a signal waits for it (seconds), then the server is stopped
            server = pg_server.start()
    except pg_server.PgUnavailable as exc:
        raise EngineUnavailable(
            f"--engine postgresql without --fixture-url starts a throwaway PostgreSQL server, but {exc}"
        ) from None
    except pg_server.PgServerError as exc:
        raise EngineUnavailable(f"--engine postgresql: the throwaway server did not start: {exc}") from None
    try:
        interrupt.raise_if_requested()
        db = server.create_database("eval_fixtures")
        host = PostgresHost(db.owner_url, reader=(server.READER, db.reader_url))
        try:
            yield host
        finally:
            host.dispose()
    finally:
        server.stop()


@contextmanager
def _spark_host(workdir: Path, fixture_url: str | None) -> Iterator[FixtureHost]:
    from eval.sql.engines import spark_server
    from eval.sql.engines.spark_host import SparkHost

    if fixture_url is not None:
        check_fixture_url(fixture_url, "spark")
        host = SparkHost(fixture_url, workdir)
        try:
            yield host
        finally:
            host.close()
        return
    try:
        with interrupt.held():  # started whole: a signal waits for it, then the server is stopped
            server = spark_server.start()
    except spark_server.SparkUnavailable as exc:
        raise EngineUnavailable(
            f"--engine spark without --fixture-url starts a throwaway Spark server, but {exc}"
        ) from None
    except spark_server.SparkServerError as exc:
        raise EngineUnavailable(f"--engine spark: the throwaway server did not start: {exc}") from None
    try:
        interrupt.raise_if_requested()
        spark = SparkHost(server.url(), workdir, files=server.root / "fixtures")
        try:
            yield spark
        finally:
            spark.dispose()
    finally:
        server.stop()


def build_all(
    host: FixtureHost, fixtures: Sequence[Fixture], seed: int, rotations: int, progress: Callable[[str], None] | None
) -> dict[str | None, list[str]]:
    """Every rotation of every fixture on ``host``: fixture name -> URLs, rotation 0 first."""
    out: dict[str | None, list[str]] = {}
    for fixture in fixtures:
        if progress is not None:
            progress(f"building {fixture.name} on {host.engine}")
        out[fixture.name] = host.build_rotations(fixture, seed, rotations)
    return out
