"""SQLAlchemy's ``spark://`` dialect: pyhive's Hive dialect, corrected where Spark's Thrift server answers differently.

``spark://user@host:port/database`` reaches a Spark Thrift server (``HiveThriftServer2``) through pyhive.
Its name is ``spark`` (sqlglot's too), so reports, baselines and the guard all see Spark, not Hive. It is
registered as an entry point of the project (``sqlalchemy.dialects`` in pyproject.toml), so any process of
an installed checkout resolves the URL. A server that cannot be reached is an ``OperationalError``, as on
other engines. Spark's ``SHOW TABLES`` returns (namespace, table, is temporary)
where Hive returns the table alone, so pyhive lists the namespace as every table's name; the catalog reads
here take the right column, and a table's existence is read from that list, not from an error's wording.
"""

from __future__ import annotations

from typing import Any

from pyhive.sqlalchemy_hive import HiveDialect
from sqlalchemy import text

__all__ = ["SparkDialect"]


class SparkDialect(HiveDialect):  # type: ignore[misc]
    """pyhive's dialect for Spark SQL; see the module docstring."""

    name = "spark"
    supports_statement_cache = False

    @classmethod
    def import_dbapi(cls) -> Any:
        from pyhive import hive

        return hive

    def connect(self, *cargs: Any, **cparams: Any) -> Any:
        """pyhive's connection; a server that cannot be reached is the DB-API's OperationalError (pyhive lets
        Thrift's transport error through, which SQLAlchemy would not recognise as the database's)."""
        from pyhive import hive
        from thrift.transport.TTransport import TTransportException

        try:
            return super().connect(*cargs, **cparams)
        except TTransportException as exc:
            raise hive.OperationalError(str(exc)) from None

    def _quoted_in(self, schema: str | None) -> str:
        return "" if not schema else " IN " + self.identifier_preparer.quote_identifier(schema)

    def get_table_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        """Persistent tables and views of ``schema`` (or the current one), temporary views left out."""
        rows = connection.execute(text("SHOW TABLES" + self._quoted_in(schema))).fetchall()
        views = set(self.get_view_names(connection, schema))
        return [str(row[1]) for row in rows if not row[2] and str(row[1]) not in views]

    def get_view_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        rows = connection.execute(text("SHOW VIEWS" + self._quoted_in(schema))).fetchall()
        return [str(row[1]) for row in rows if not row[2]]

    def has_table(self, connection: Any, table_name: str, schema: str | None = None, **kw: Any) -> bool:
        rows = connection.execute(text("SHOW TABLES" + self._quoted_in(schema))).fetchall()
        return any(str(row[1]).lower() == table_name.lower() for row in rows)

    def get_pk_constraint(self, connection: Any, table_name: str, schema: str | None = None, **kw: Any) -> Any:
        return {"constrained_columns": [], "name": None}  # Spark declares no keys

    def get_unique_constraints(self, connection: Any, table_name: str, schema: str | None = None, **kw: Any) -> Any:
        return []

    def get_indexes(self, connection: Any, table_name: str, schema: str | None = None, **kw: Any) -> Any:
        return []
