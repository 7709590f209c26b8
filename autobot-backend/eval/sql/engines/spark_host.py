"""Fixtures on Spark SQL: each rotation a Spark database holding a copy of its verified SQLite build.

A fixture is built the way every engine builds it, through its own SQLAlchemy builder, but on SQLite
(from the on-disk cache when a verified copy is there), where every guarantee is checked; its tables
are then copied into a Spark database of their own (``eval_<run>_<fixture>_s<seed>``), column by column
with Spark's nearest type (:func:`spark_type`) and the rows as literals sqlglot writes in Spark's
dialect, in a few multi-row ``INSERT`` statements per table. Building through pyhive's own DDL and
row-at-a-time inserts would not do: Spark has no primary or foreign keys, no CHECK constraints, and each
``INSERT`` is a Spark job (a second or two on two cores, whatever its size).

On a server the harness started itself (``files``: a folder the server reads), no job runs at all: each
table is written as a JSON Lines file and declared over it (``CREATE TABLE ... USING json LOCATION``, its
columns typed as above, ``mode FAILFAST`` so a value that does not read as its type fails the build
instead of becoming NULL). That is a catalog entry, milliseconds, where copying took 2-3 s a table.
So the rows on Spark are the SQLite build's rows, value for value (the cross-engine self-check shows
the answers agree); the guarantees were checked on SQLite, not again on Spark.

The host builds in a session opened writable (:data:`~eval.sql.engines.spark_server.WRITABLE_SESSION`); on the
throwaway server every other session, the answers' included, may only read (the server's check rule).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlglot import exp

from eval.sql.engines.spark_server import WRITABLE_SESSION
from eval.sql.fixtures import seeded as fx
from eval.sql.fixtures.seeded import Fixture, FixtureError
from eval.sql.model.kinds import type_kind
from services.redaction import redact_url

__all__ = ["ROWS_PER_INSERT", "SparkHost", "spark_type"]

ROWS_PER_INSERT = 2000
"""Rows per ``INSERT ... VALUES`` statement: few Spark jobs, statements of a few hundred kilobytes."""


def spark_type(column_type: sa.types.TypeEngine[Any]) -> str:
    """Spark's type for a column of the SQLite build, by what its values are.

    Integers are ``BIGINT`` (SQLite's are 64-bit), money and other numerics ``DECIMAL(p,s)`` as declared
    (``DECIMAL(38,10)`` when undeclared), reals ``DOUBLE``, dates ``DATE``, date-times ``TIMESTAMP``,
    booleans ``BOOLEAN``, everything else ``STRING``.
    """
    kind = type_kind(column_type)
    if kind == "decimal":
        numeric = cast("sa.Numeric[Any]", column_type)
        precision, scale = numeric.precision, numeric.scale
        return f"DECIMAL({precision},{scale or 0})" if precision else "DECIMAL(38,10)"
    return _SPARK_TYPES.get(kind, "STRING")


_SPARK_TYPES: dict[str | None, str] = {
    "bool": "BOOLEAN",
    "int": "BIGINT",
    "real": "DOUBLE",
    "datetime": "TIMESTAMP",
    "date": "DATE",
}
"""Spark's type for each kind but ``decimal`` (declared precision); any other (text, none) is ``STRING``."""


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _literal(value: object) -> str:
    return exp.convert(value).sql(dialect="spark")


def _json_value(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Decimal)):
        return str(value)  # a JSON number Spark reads into DECIMAL exactly, digit for digit
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return json.dumps(value.isoformat())
    return json.dumps(str(value))


def _write_json_lines(path: Path, names: list[str], rows: Sequence[Sequence[Any]]) -> None:
    keys = [json.dumps(name) + ":" for name in names]
    path.parent.mkdir(parents=True, exist_ok=False)
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write("{" + ",".join(k + _json_value(v) for k, v in zip(keys, row)) + "}\n")


class SparkHost:
    """Rotations as Spark databases on the server at ``owner_url``; ``reader_url``: where the answers run.

    Args:
        owner_url: a ``spark://`` URL whose user may create databases (the fixtures are built as it).
        workdir: the run's temporary folder, for the SQLite builds.
        reader_url: the URL the answers run through (the same server); default: ``owner_url``.
    """

    engine = "spark"

    def __init__(self, owner_url: str, workdir: Path, reader_url: str | None = None, files: Path | None = None) -> None:
        self.files = files
        """A folder the server reads: the tables are JSON files there instead of copies (see the module docstring)."""
        self.owner_url = sa.engine.make_url(owner_url)
        self.reader_url = sa.engine.make_url(reader_url or owner_url)
        self.workdir = workdir
        self.run_id = secrets.token_hex(3)
        self.databases: list[str] = []
        # A writable session: on the throwaway server every other session may only read (spark_server.READ_ONLY_SOURCE).
        self._admin = sa.create_engine(
            self.owner_url, poolclass=sa.pool.NullPool, connect_args={"configuration": dict(WRITABLE_SESSION)}
        )

    def build_rotations(self, fixture: Fixture, seed: int, rotations: int) -> list[str]:
        urls = []
        sqlite_urls = fx.build_rotations(fixture, self.workdir, seed=seed, rotations=rotations)
        for s, sqlite_url in zip(range(fixture.base_seed + seed, fixture.base_seed + seed + rotations), sqlite_urls):
            database = re.sub(r"[^a-z0-9_]", "_", f"eval_{self.run_id}_{fixture.name}_s{s}".lower())
            self._execute([f"CREATE DATABASE {_quote(database)}"], "create a database")
            self.databases.append(database)
            self._copy(sqlite_url, database)
            urls.append(self.reader_url.set(database=database).render_as_string(hide_password=False))
        return urls

    def _copy(self, sqlite_url: str, database: str) -> None:
        source = sa.create_engine(sqlite_url)
        try:
            tables = sa.MetaData()
            tables.reflect(source)
            with source.connect() as conn:
                for table in tables.sorted_tables:
                    target = f"{_quote(database)}.{_quote(table.name)}"
                    columns = ", ".join(f"{_quote(c.name)} {spark_type(c.type)}" for c in table.columns)
                    rows = conn.execute(sa.select(table)).fetchall()
                    if self.files is not None:
                        folder = self.files / database / table.name
                        _write_json_lines(folder / "part-0.json", [c.name for c in table.columns], rows)
                        location = exp.Literal.string(str(folder)).sql(dialect="spark")
                        declare = f"CREATE TABLE {target} ({columns}) USING json OPTIONS (mode 'FAILFAST')"
                        self._execute([f"{declare} LOCATION {location}"], f"declare table {table.name} on")
                        continue
                    statements = [f"CREATE TABLE {target} ({columns}) USING parquet"]
                    for start in range(0, len(rows), ROWS_PER_INSERT):
                        values = ", ".join(
                            "(" + ", ".join(_literal(v) for v in row) + ")"
                            for row in rows[start : start + ROWS_PER_INSERT]
                        )
                        statements.append(f"INSERT INTO {target} VALUES {values}")
                    self._execute(statements, f"copy table {table.name} into")
        finally:
            source.dispose()

    def _execute(self, statements: list[str], what: str) -> None:
        try:
            with self._admin.connect() as conn:
                for sql in statements:
                    conn.exec_driver_sql(sql)
        except sa.exc.SQLAlchemyError as exc:
            detail = " ".join(str(getattr(exc, "orig", None) or exc).split())[:500]
            raise FixtureError(
                f"cannot {what} the Spark server {redact_url(str(self.owner_url))} ({detail}); "
                "--fixture-url needs a user that may create databases there, or leave it out to use a "
                "throwaway server"
            ) from None

    def close(self) -> None:
        """Drop every database this host made, then its connections."""
        try:
            for database in reversed(self.databases):
                self._execute([f"DROP DATABASE IF EXISTS {_quote(database)} CASCADE"], "drop a database on")
        finally:
            self.dispose()

    def dispose(self) -> None:
        """Close its connections, dropping nothing (a throwaway server goes whole)."""
        self._admin.dispose()
