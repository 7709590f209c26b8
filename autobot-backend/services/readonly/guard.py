"""The read-only guard: decide whether one piece of SQL is a single, harmless read.

The guard classifies SQL the way the engine will see it: sqlglot's tokenizer for the
dialect splits statements and separates code from comments, strings and quoted identifiers,
and sqlglot's parser builds the tree that is checked. No regex ever runs over the raw text,
so ``SELECT 'please delete me'``, ``SELECT "drop" FROM t``, ``updated_at`` or
``REPLACE(name, 'a', 'b')`` are reads, and ``SELECT 1; DROP TABLE x`` is not.

Policy (spec section 12): exactly one statement, which is one of

* a query: ``SELECT``, ``WITH ... SELECT``, a set operation of selects, ``VALUES``;
* ``EXPLAIN`` (``EXPLAIN QUERY PLAN``, ``EXPLAIN ANALYZE``, options) of such a query;
* the engine's read-only introspection: an allow-listed ``PRAGMA`` on SQLite (no ``=``),
  ``SHOW ...`` and ``DESCRIBE table`` on other engines.

Inside a query, the whole tree is walked: a data-modifying CTE, ``SELECT ... INTO``, a locking
read (``FOR UPDATE``/``FOR SHARE``/``LOCK IN SHARE MODE``), ``NEXT VALUE FOR``, a call of a
function that reaches outside the database (server files, network, settings, sessions: the tables
per engine in :mod:`services.readonly.guard_functions`) or a read of a catalog of credentials
(``pg_shadow``) or, on DuckDB, of a file named as a table (``FROM 'data.csv'``) rejects it.
Anything sqlglot cannot parse, or parses into a node not positively recognised as a read
(``exp.Command`` is sqlglot's catch-all for syntax it does not model), is rejected: the guard
fails closed.

Stray semicolons are not statements: ``SELECT 1;`` (and ``SELECT 1;;``) is allowed.

Known limitation: a user-defined function that writes (a PL/pgSQL function, a MySQL stored
function) looks like any other function call. The executor's read-only transaction is the
defence there; the guard only knows the deny-list.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType  # type: ignore[attr-defined]  # sqlglot 30 re-exports them from tokenizer_core

from services.readonly.guard_functions import engine_of
from services.readonly.guard_tree import label as _label
from services.readonly.guard_tree import show_violation, tree_violation
from services.readonly.guard_words import _DANGEROUS_KEYWORDS as _DANGEROUS_KEYWORDS  # the guard's names (spec 12)
from services.readonly.guard_words import (
    _EXPLAIN_OPTION_WORDS,
    _KEYWORD_CODES,
    _NODE_CODES,
    _QUOTED,
    _SHOW_TOKENS,
    GUARD_CODES,
    QUERY_ONLY_HINT,
    SIDE_EFFECT_FUNCTIONS,
    SQLITE_READ_PRAGMAS,
    SQLITE_READ_PRAGMAS_WITH_ARGUMENT,
)
from services.readonly.guard_words import _SAFE_SQL_PREFIXES as _SAFE_SQL_PREFIXES
from services.readonly.parsed import split_statements, statements

__all__ = [
    "GUARD_CODES",
    "MAX_SQL_BYTES",
    "SIDE_EFFECT_FUNCTIONS",
    "SQLITE_READ_PRAGMAS",
    "SQLITE_READ_PRAGMAS_WITH_ARGUMENT",
    "GuardVerdict",
    "statement_count",
    "validate_readonly_sql",
]


@dataclass(frozen=True)
class GuardVerdict:
    """The guard's decision on one piece of SQL."""

    allowed: bool
    reason: str
    """``"read-only SELECT"`` (or the kind of read) when allowed; when rejected, a sentence saying
    what was found and what to send instead."""
    code: str
    """Machine-readable outcome, one of :data:`GUARD_CODES`."""


_QUERY_ONLY_HINT = QUERY_ONLY_HINT

MAX_SQL_BYTES = 100_000
"""The longest SQL (UTF-8 bytes) the guard will read: far above any real query (the corpus's longest
is under 2 KB), far below what makes parsing the attack (50 MB took 7.6 GB and 155 s)."""


def too_long(sql: str, max_bytes: int) -> GuardVerdict | None:
    """The verdict on SQL over ``max_bytes``, decided without reading it (fail closed), or None."""
    if len(sql) <= max_bytes // 4:  # at most 4 UTF-8 bytes a character: short enough without encoding
        return None
    size = len(sql.encode("utf-8", "surrogatepass"))
    if size <= max_bytes:
        return None
    return GuardVerdict(
        False,
        f"The SQL is {size:,} bytes, over the guard's limit of {max_bytes:,}; it was not parsed. " + _QUERY_ONLY_HINT,
        "too_long",
    )


class _Reject(Exception):
    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.verdict = GuardVerdict(False, reason, code)


def validate_readonly_sql(sql: str, dialect: str = "sqlite", *, max_bytes: int = MAX_SQL_BYTES) -> GuardVerdict:
    """Classify ``sql`` as one read-only statement of ``dialect``, or say why not.

    Example:
        >>> validate_readonly_sql("SELECT REPLACE(name, 'a', 'b') FROM customers").allowed
        True
        >>> validate_readonly_sql("SELECT 1; DROP TABLE orders").code
        'multiple_statements'

    Args:
        sql: the statement as it would be sent to the engine.
        dialect: sqlglot dialect name (``sqlite``, ``postgres``, ``mysql``, ...).
        max_bytes: longer SQL is rejected (``too_long``) before it is tokenized.

    Returns:
        A :class:`GuardVerdict`; never raises for any string input.
    """
    if not isinstance(sql, str) or not sql.strip():
        return GuardVerdict(False, "The SQL is empty. " + _QUERY_ONLY_HINT, "empty")
    longer = too_long(sql, max_bytes)
    if longer is not None:
        return longer
    try:
        engine = Dialect.get_or_raise(dialect)
    except (ValueError, SqlglotError):
        return GuardVerdict(
            False,
            f"Unknown SQL dialect {dialect!r}; use a sqlglot dialect name such as 'sqlite', 'postgres' or 'mysql'.",
            "dialect",
        )
    try:
        reason, _kind = _classify(sql, engine)
    except _Reject as rejected:
        return rejected.verdict
    except Exception as e:
        return GuardVerdict(
            False, f"The guard could not classify this SQL ({type(e).__name__}). " + _QUERY_ONLY_HINT, "unparseable"
        )
    return GuardVerdict(True, reason, "ok")


def statement_count(sql: str, dialect: str = "sqlite") -> int | None:
    """How many statements ``dialect``'s tokenizer finds in ``sql``; ``None`` if it cannot tokenize it.

    Only the split, no policy: the executor uses it to run exactly one statement per call on
    drivers that would otherwise run a whole script (psycopg2, psycopg's simple protocol).

    Example:
        >>> statement_count("SELECT ';'; DROP TABLE t;", "postgres")
        2
    """
    try:
        return len(split_statements(Dialect.get_or_raise(dialect).tokenize(sql)))
    except Exception:
        return None


def _validate_readonly_sql(sql: str) -> bool:
    """Compatibility form of :func:`validate_readonly_sql` (SQLite dialect): just the decision."""
    return validate_readonly_sql(sql).allowed


def _classify(sql: str, engine: Dialect) -> tuple[str, str]:
    """Return (reason, kind) for an allowed statement; raise :class:`_Reject` otherwise."""
    tokens = _tokenize(sql, engine)
    statements = split_statements(tokens)
    if not statements:
        raise _Reject("empty", "The SQL holds only comments or semicolons, no statement. " + _QUERY_ONLY_HINT)
    if len(statements) > 1:
        raise _Reject(
            "multiple_statements",
            f"Found {len(statements)} statements; only one statement may run "
            "at a time. Remove everything after the first statement.",
        )
    if _is_sqlite(engine):
        _sqlite_single_statement(sql, engine)
    stmt = statements[0]
    first = _word(stmt[0])
    if first == "EXPLAIN":
        return _explain(sql[stmt[0].end + 1 :], engine)
    if first == "PRAGMA":
        return _pragma(stmt, engine)
    if first == "SHOW" and not _is_sqlite(engine):
        return _show(sql[stmt[0].end + 1 :], engine)
    return _statement(stmt, sql, engine)


def _tokenize(sql: str, engine: Dialect) -> list[Token]:
    try:
        tokens = engine.tokenize(sql)
    except SqlglotError as e:
        raise _Reject(
            "unparseable", f"Could not read this as {_name(engine)} SQL ({_first_line(e)}). " + _QUERY_ONLY_HINT
        ) from None
    for tok in tokens:
        for comment in tok.comments:
            if comment.lstrip().startswith(("!", "M!")):
                raise _Reject(
                    "executable_comment",
                    "The SQL contains an executable comment (/*! ... */), which MySQL runs as code. Remove it.",
                )
    return tokens


def _sqlite_single_statement(sql: str, engine: Dialect) -> None:
    """Ask SQLite's own tokenizer where statements end, in case it disagrees with sqlglot's."""
    for i, ch in enumerate(sql):
        if ch != ";" or not sqlite3.complete_statement(sql[: i + 1]):
            continue
        try:
            rest = engine.tokenize(sql[i + 1 :])
        except SqlglotError:
            rest = None
        if rest is None or any(t.token_type != TokenType.SEMICOLON for t in rest):
            raise _Reject(
                "multiple_statements",
                f"SQLite ends a statement at character {i + 1}, and more SQL "
                "follows; only one statement may run at a time.",
            )
        return


def _statement(stmt: list[Token], sql: str, engine: Dialect) -> tuple[str, str]:
    keyword = _word(stmt[0])
    try:
        parsed = statements(stmt, sql, engine)  # one parse per (SQL, dialect), shared with the lints
    except SqlglotError as e:
        if keyword in _KEYWORD_CODES:
            raise _keyword_reject(keyword) from None
        raise _Reject(
            "unparseable", f"Could not parse this as {_name(engine)} SQL ({_first_line(e)}). " + _QUERY_ONLY_HINT
        ) from None
    if len(parsed) != 1:
        raise _Reject("unrecognised", "The SQL did not parse into exactly one statement. " + _QUERY_ONLY_HINT)
    tree = parsed[0]
    if isinstance(tree, exp.Describe):
        return _describe(tree, engine)
    if not isinstance(tree, (exp.Query, exp.Values)):
        if keyword in _KEYWORD_CODES:
            raise _keyword_reject(keyword)
        for node_type, code in _NODE_CODES:
            if isinstance(tree, node_type):
                raise _Reject(
                    code, f"{keyword} is a {_label(code)} statement; this service runs reads only. " + _QUERY_ONLY_HINT
                )
        raise _Reject(
            "unrecognised",
            f"This is not a SQL query (sqlglot reads it as a bare "
            f"{type(tree).__name__} expression). " + _QUERY_ONLY_HINT,
        )
    _check_tree(tree, engine)
    return "read-only SELECT", "query"


def _check_tree(tree: exp.Expr, engine: Dialect) -> None:
    found = tree_violation(tree, _engine(engine))
    if found is not None:
        raise _Reject(*found)


def _explain(rest: str, engine: Dialect) -> tuple[str, str]:
    tokens = _tokenize(rest, engine)
    i = 0
    if tokens and tokens[0].token_type == TokenType.L_PAREN:  # PostgreSQL: EXPLAIN (ANALYZE, BUFFERS) ...
        while i < len(tokens) and tokens[i].token_type != TokenType.R_PAREN:
            if tokens[i].token_type not in (TokenType.L_PAREN, TokenType.COMMA) and not _is_option(tokens[i]):
                raise _Reject(
                    "explain", "Unrecognised EXPLAIN option; use EXPLAIN or EXPLAIN QUERY PLAN followed by a SELECT."
                )
            i += 1
        i += 1
    while i < len(tokens) and (_word(tokens[i]) in _EXPLAIN_OPTION_WORDS or tokens[i].token_type == TokenType.EQ):
        i += 1
    if i >= len(tokens):
        raise _Reject("explain", "EXPLAIN needs a query after it. " + _QUERY_ONLY_HINT)
    try:
        _reason, kind = _classify(rest[tokens[i].start :], engine)
    except _Reject as inner:
        raise _Reject(inner.verdict.code, "EXPLAIN is allowed only of a read. " + inner.verdict.reason) from None
    if kind != "query":
        raise _Reject("explain", "EXPLAIN is allowed only of a query (SELECT, WITH ... SELECT).")
    return "read-only EXPLAIN of a query", "explain"


def _is_option(tok: Token) -> bool:
    return tok.token_type in (TokenType.VAR, TokenType.NUMBER, TokenType.TRUE, TokenType.FALSE) or _word(tok).isalpha()


def _pragma(stmt: list[Token], engine: Dialect) -> tuple[str, str]:
    allowed = ", ".join(sorted(SQLITE_READ_PRAGMAS_WITH_ARGUMENT))
    if not _is_sqlite(engine):
        raise _Reject("pragma", "PRAGMA is SQLite-only; use this engine's catalog views instead.")
    if any(t.token_type == TokenType.EQ for t in stmt):
        raise _Reject(
            "pragma", f"PRAGMA with '=' changes a setting; only read-only PRAGMAs are allowed (e.g. {allowed})."
        )
    body = stmt[1:]
    if len(body) >= 3 and body[1].token_type == TokenType.DOT:
        body = body[2:]  # schema-qualified: PRAGMA main.table_info(t)
    if not body or not body[0].text.replace("_", "").isalnum():
        raise _Reject("pragma", "Could not read the PRAGMA name; write PRAGMA name or PRAGMA name(argument).")
    name, args = body[0].text.lower(), body[1:]
    if not args and name in SQLITE_READ_PRAGMAS:
        return f"read-only PRAGMA {name}", "pragma"
    argument_ok = (
        len(args) in (3, 4)
        and args[0].token_type == TokenType.L_PAREN
        and args[-1].token_type == TokenType.R_PAREN
        and all(
            t.token_type in (TokenType.VAR, TokenType.IDENTIFIER, TokenType.STRING, TokenType.NUMBER, TokenType.DASH)
            for t in args[1:-1]
        )
    )
    if argument_ok and name in SQLITE_READ_PRAGMAS_WITH_ARGUMENT:
        return f"read-only PRAGMA {name}", "pragma"
    if argument_ok and name in SQLITE_READ_PRAGMAS:
        raise _Reject("pragma", f"PRAGMA {name}(value) sets {name}; use the bare 'PRAGMA {name}' to read it.")
    raise _Reject("pragma", f"PRAGMA {name} is not on the read-only allow-list; allowed with an argument: {allowed}.")


def _show(rest: str, engine: Dialect) -> tuple[str, str]:
    tokens = [t for t in _tokenize(rest, engine)]
    while tokens and tokens[-1].token_type == TokenType.SEMICOLON:
        tokens.pop()
    if not tokens:
        raise _Reject("unrecognised", "SHOW needs something to show (e.g. SHOW TABLES).")
    for tok in tokens:
        if tok.token_type not in _SHOW_TOKENS and not _word(tok).isalpha():
            raise _Reject(
                "unrecognised",
                f"SHOW with {tok.text!r} is not a plain introspection statement; "
                "use SHOW with names only (e.g. SHOW TABLES, SHOW COLUMNS FROM t).",
            )
    found = show_violation(tokens, _engine(engine))
    if found is not None:
        raise _Reject(*found)
    return "read-only SHOW", "show"


def _describe(tree: exp.Describe, engine: Dialect) -> tuple[str, str]:
    if _is_sqlite(engine) or not isinstance(tree.this, exp.Table) or tree.args.get("kind"):
        raise _Reject(
            "unrecognised", "Only DESCRIBE <table> is allowed as introspection here; use EXPLAIN for a query plan."
        )
    _check_tree(tree.this, engine)
    return "read-only DESCRIBE", "describe"


def _keyword_reject(keyword: str) -> _Reject:
    code = _KEYWORD_CODES[keyword]
    return _Reject(code, f"{keyword} is a {_label(code)} statement; this service runs reads only. " + _QUERY_ONLY_HINT)


def _word(tok: Token) -> str:
    return "" if tok.token_type in _QUOTED else tok.text.upper()


def _is_sqlite(engine: Dialect) -> bool:
    return _name(engine) == "sqlite"


def _engine(engine: Dialect) -> str:
    return engine_of([cls.__name__.lower() for cls in type(engine).__mro__])


def _name(engine: Dialect) -> str:
    return type(engine).__name__.lower()


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
