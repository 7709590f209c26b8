"""The one map between SQLAlchemy's and sqlglot's names of a SQL dialect (``postgresql`` is sqlglot's
``postgres``, ``mssql`` its ``tsql``; sqlglot reads MariaDB as MySQL)."""

from __future__ import annotations

SQLALCHEMY_TO_SQLGLOT = {"postgresql": "postgres", "mssql": "tsql", "mariadb": "mysql"}
SQLGLOT_TO_SQLALCHEMY = {v: k for k, v in SQLALCHEMY_TO_SQLGLOT.items() if k != "mariadb"}


def sqlglot_name(dialect: str) -> str:
    """sqlglot's name of a dialect given by either name (``postgresql`` -> ``postgres``)."""
    return SQLALCHEMY_TO_SQLGLOT.get(dialect, dialect)


def sqlalchemy_name(dialect: str) -> str:
    """SQLAlchemy's name of a dialect given by either name (``postgres`` -> ``postgresql``)."""
    return SQLGLOT_TO_SQLALCHEMY.get(dialect, dialect)
