"""One parse of each statement per process, shared by the guard, the self-check's lints and the composition.

A run reads the same reference many times: the guard before every execution, the ordering lints
(:mod:`eval.sql.oracle.lints`, ``peers``, ``inner``), the corpus's composition tags. sqlglot's parse of a
typical reference costs a millisecond or more; a copy of its tree a tenth of that, a shared reference
nothing. The tree kept is the guard's: the statement's tokens (the dialect's tokenizer, semicolons as
separators) through the dialect's parser with ``ErrorLevel.RAISE``. A failed parse is kept too, and
raised again; SQL nested past sqlglot's recursive parser (some 50 parentheses, 5,000 in a hostile answer)
is a parse error like any other, never a ``RecursionError`` in its consumers.

Shared trees are read-only. sqlglot's trees are mutable, and a node put into another tree is
re-parented, so a consumer that changes a tree, or builds a new one from its nodes, takes ``.copy()``
first (every consumer does: ``test_parsed.py`` checks that a run leaves the shared trees as parsed).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError
from sqlglot.tokens import Token, TokenType  # type: ignore[attr-defined]  # sqlglot 30 re-exports them from tokenizer_core

__all__ = ["MAX_TREES", "clear", "double_quoted_strings", "split_statements", "statement_tree", "statements"]

MAX_TREES = 4096
"""Parses kept (the oldest dropped first): a corpus's references and its answers' SQL many times over,
a few MiB of trees."""

_Key = tuple[str, Dialect]
_kept: OrderedDict[_Key, list[exp.Expr] | SqlglotError] = OrderedDict()
_lock = threading.Lock()


def statements(tokens: Sequence[Token], sql: str, engine: Dialect) -> list[exp.Expr]:
    """The guard's parse of ``sql``, one statement whose tokens are ``tokens``: the trees the parser gives
    (``None`` dropped), kept per (``sql``, dialect). Raises the parser's :class:`SqlglotError`."""
    return _shared((sql, engine), lambda: _parse(tokens, sql, engine))


def statement_tree(sql: str, dialect: str | Dialect) -> exp.Expr:
    """The one statement of ``sql`` as the guard parses it (read-only: copy before changing it).

    Raises:
        SqlglotError: it does not tokenize or parse, or is not exactly one statement.
    """
    engine = dialect if isinstance(dialect, Dialect) else _dialect(dialect)

    def parse() -> list[exp.Expr]:
        split = split_statements(engine.tokenize(sql))
        if len(split) != 1:
            raise ParseError(f"expected one statement, found {len(split)}")
        return _parse(split[0], sql, engine)

    trees = _shared((sql, engine), parse)
    if len(trees) != 1:
        raise ParseError(f"expected one statement, found {len(trees)}")
    return trees[0]


def double_quoted_strings(tree: exp.Expr, columns: Iterable[str]) -> None:
    """SQLite's reading of a double-quoted word, applied to ``tree`` in place: a double-quoted name that resolves
    to no column is a string literal (SQLite's documented fallback, kept for compatibility; Spider's golds
    write ``country = "France"``), where sqlglot reads an identifier. Each unqualified double-quoted column
    that names none of ``columns`` (every column of the database) nor an output alias of the query becomes
    the string it spells. Call it on a copy, before anything lower-cases identifiers."""
    known = {c.lower() for c in columns} | {a.alias.lower() for a in tree.find_all(exp.Alias)}
    for column in list(tree.find_all(exp.Column)):
        word = column.this
        if not column.table and isinstance(word, exp.Identifier) and word.quoted and word.name.lower() not in known:
            column.replace(exp.Literal.string(word.name))


@lru_cache(maxsize=64)
def _dialect(name: str) -> Dialect:
    """sqlglot builds a new dialect object on every lookup by name; one per name serves every parse."""
    return Dialect.get_or_raise(name)


def clear() -> None:
    """Forget every kept parse (tests)."""
    with _lock:
        _kept.clear()


def _parse(tokens: Sequence[Token], sql: str, engine: Dialect) -> list[exp.Expr]:
    return [e for e in engine.parser(error_level=ErrorLevel.RAISE).parse(list(tokens), sql) if e is not None]


def split_statements(tokens: Sequence[Token]) -> list[list[Token]]:
    """``tokens`` cut at each semicolon into statements, empty ones dropped (the guard counts them so too)."""
    out: list[list[Token]] = [[]]
    for tok in tokens:
        if tok.token_type == TokenType.SEMICOLON:
            out.append([])
        else:
            out[-1].append(tok)
    return [s for s in out if s]


def _shared(key: _Key, compute: Callable[[], list[exp.Expr]]) -> list[exp.Expr]:
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
    if found is None:
        try:
            found = compute()
        except SqlglotError as exc:
            found = exc
        except RecursionError:  # nested deeper than sqlglot's recursive parser reaches: no tree, a parse error
            found = ParseError("nested too deeply to parse (Python's recursion limit)")
        with _lock:
            _kept[key] = found
            while len(_kept) > MAX_TREES:
                _kept.popitem(last=False)
    if isinstance(found, SqlglotError):
        raise found.with_traceback(None)  # kept: each raise starts its own traceback, never chains the last
    return found
