"""The read-only guard's word lists (``services/readonly/guard_words.py``) and its statement splitter: the
compatibility constants, every dangerous keyword rejected, each list documented, statements counted per
dialect. The decision table is ``test_guard.py``."""

from __future__ import annotations

import ast
import inspect

import pytest
from sqlglot.dialects.dialect import Dialect

from services.readonly import guard as sql_guard
from services.readonly import guard_words as sql_guard_words
from services.readonly.guard import (
    _DANGEROUS_KEYWORDS,
    _SAFE_SQL_PREFIXES,
    validate_readonly_sql,
)
from tests.readonly.test_guard import ALLOWED


def test_compatibility_constants():
    assert isinstance(_SAFE_SQL_PREFIXES, tuple) and all(p.isupper() for p in _SAFE_SQL_PREFIXES)
    assert isinstance(_DANGEROUS_KEYWORDS, frozenset)
    assert {
        "INSERT",
        "UPDATE",
        "DELETE",
        "MERGE",
        "REPLACE",
        "UPSERT",
        "CREATE",
        "DROP",
        "ALTER",
        "TRUNCATE",
        "GRANT",
        "REVOKE",
        "ATTACH",
        "DETACH",
        "VACUUM",
        "COPY",
        "BEGIN",
        "COMMIT",
        "SET",
        "CALL",
        "EXEC",
    } <= _DANGEROUS_KEYWORDS
    assert not set(_SAFE_SQL_PREFIXES) & _DANGEROUS_KEYWORDS
    # Every allowed SQLite read starts with one of the documented prefixes (or a parenthesis).
    for case in ALLOWED:
        if case.dialect == "sqlite":
            word = Dialect.get_or_raise("sqlite").tokenize(case.sql)[0].text.upper()
            assert word in _SAFE_SQL_PREFIXES or word == "(", case.id


@pytest.mark.parametrize("keyword", sorted(_DANGEROUS_KEYWORDS))
def test_every_dangerous_keyword_starting_a_statement_is_rejected(keyword):
    verdict = validate_readonly_sql(f"{keyword} orders")
    assert not verdict.allowed
    assert verdict.code != "ok"


@pytest.mark.parametrize(
    "name", ["_SAFE_SQL_PREFIXES", "_DANGEROUS_KEYWORDS", "GUARD_CODES", "SIDE_EFFECT_FUNCTIONS", "SQLITE_READ_PRAGMAS"]
)
def test_constants_carry_a_docstring(name):
    module = ast.parse(inspect.getsource(sql_guard_words))
    body = module.body
    for i, node in enumerate(body):
        targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            doc = body[i + 1]
            assert isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
            assert len(doc.value.value) > 40
            return
    pytest.fail(f"{name} is not assigned at module level")


@pytest.mark.parametrize(
    "sql, dialect, expected",
    [
        ("SELECT 1", "postgres", 1),
        ("SELECT 1;", "postgres", 1),
        ("SELECT ';'; DROP TABLE t;", "postgres", 2),
        ("SET TRANSACTION READ WRITE; DELETE FROM t; COMMIT", "postgres", 3),
        ("SELECT 1 /* ; */ -- ;", "postgres", 1),
        ("SELECT $$;$$", "postgres", 1),
        ("SELECT 'a\\'; DROP TABLE t; -- '", "mysql", 1),
        ("-- nothing", "sqlite", 0),
        ("SELECT 'unterminated", "postgres", None),
        ("SELECT 1", "no-such-dialect", None),
    ],
    ids=[
        "one",
        "trailing-semicolon",
        "string-semicolon",
        "script",
        "comments",
        "dollar-quote",
        "mysql-backslash",
        "comment-only",
        "untokenizable",
        "unknown-dialect",
    ],
)
def test_statement_count(sql, dialect, expected):
    # The executor's one-statement rule for servers: a split only, no policy.
    assert sql_guard.statement_count(sql, dialect) == expected
