"""The guard's walk over a parsed query, and over DuckDB's ``SHOW`` names: what makes either more than a read.

Each check returns ``(code, reason)`` for the first thing found, or None; :mod:`services.readonly.guard`
turns that into its verdict. Every node of the tree is visited (subqueries, CTEs, set operations,
lateral joins, function arguments), so nesting hides nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp
from sqlglot.tokens import Token, TokenType  # type: ignore[attr-defined]  # sqlglot 30 re-exports them from tokenizer_core

from services.readonly.guard_functions import FILES, declined_function, declined_table
from services.readonly.guard_words import _NODE_CODES, QUERY_ONLY_HINT

MAX_SHOWN_NAME = 80
"""The most characters of a declined name a reason quotes: a name is the query's own text, of any length."""

Violation = tuple[str, str]
"""``(code, reason)``: a :data:`~services.readonly.guard_words.GUARD_CODES` code and the sentence saying why."""


def tree_violation(tree: exp.Expr, engine: str) -> Violation | None:
    """The first node of ``tree`` that is not part of a read on ``engine`` (``duckdb``, ``postgres``, ...)."""
    for node in tree.walk():
        for node_type, code in _NODE_CODES:
            if isinstance(node, node_type):
                return code, _node_reason(node, code)
        if isinstance(node, (exp.Func, exp.Dot)):
            for name in function_names(node):
                why = declined_function(name, engine)
                if why is not None:
                    return (
                        "side_effect_function",
                        f"The query calls {_shown(name)}(), which {why}; a read may not. Remove the call.",
                    )
        elif isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):  # not a table function
            parts = [p.name for p in node.parts]
            why = declined_table(parts, engine)
            if why is not None:
                return (
                    "restricted_table",
                    f"The query reads {_shown('.'.join(parts))!r}, which {why}; a read may not. "
                    "Read the database's own tables instead.",
                )
    return None


def show_violation(tokens: Sequence[Token], engine: str) -> Violation | None:
    """On DuckDB, ``SHOW name`` describes ``name``, reading it as a file when it looks like one (``SHOW data.csv``)."""
    if engine != "duckdb":
        return None
    names: list[list[str]] = []
    after_dot = False
    for tok in tokens:
        if tok.token_type == TokenType.DOT:
            after_dot = True
            continue
        if tok.token_type == TokenType.STRING:  # a string is a file name to DuckDB, whatever it holds
            names.append(["", tok.text])
        elif after_dot and names:
            names[-1].append(tok.text)
        else:
            names.append([tok.text])
        after_dot = False
    for parts in names:
        why = declined_table(parts, engine) or (FILES if parts[0] == "" else None)
        if why is not None:
            shown = ".".join(p for p in parts if p)
            return (
                "restricted_table",
                f"SHOW {_shown(shown)!r}: DuckDB reads that name as a file, which {why}; SHOW a table by its name.",
            )
    return None


def function_names(node: exp.Func | exp.Dot) -> list[str]:
    """The called name as written, or every name sqlglot gives the function class it parsed the call into;
    for a qualified call (a :class:`~sqlglot.exp.Dot`), ``package.name`` (Oracle's ``utl_http.request``)."""
    if isinstance(node, exp.Dot):
        if not isinstance(node.expression, exp.Anonymous):
            return []
        qualifier = node.this.expression if isinstance(node.this, exp.Dot) else node.this
        return [f"{qualifier.name}.{node.expression.name}".lower()]
    if isinstance(node, exp.Anonymous):
        return [node.name.lower()]
    return [n.lower() for n in type(node).sql_names()] or [type(node).key]


def label(code: str) -> str:
    """A rejection code as an adjective: ``ddl`` -> ``schema-changing``."""
    return {
        "write": "data-changing",
        "ddl": "schema-changing",
        "maintenance": "maintenance",
        "attach": "database-attaching",
        "copy": "file-copying",
        "transaction": "transaction-control",
        "session": "session-control",
        "call": "procedure-call",
        "pragma": "PRAGMA",
        "select_into": "SELECT INTO",
        "locking_read": "locking",
        "side_effect_function": "side-effecting",
    }.get(code, "non-read")


def _node_reason(node: exp.Expr, code: str) -> str:
    if code == "write":
        return (
            f"The query contains a {type(node).__name__.upper()} (a data-modifying CTE or subquery); "
            "reads may not change data. " + QUERY_ONLY_HINT
        )
    if code == "select_into":
        return "SELECT ... INTO creates a table, a file or variables; select the rows without INTO."
    if code == "locking_read":
        return "The query takes row locks (FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE); remove the locking clause."
    if code == "side_effect_function":
        return "NEXT VALUE FOR advances a sequence; reads may not change sequences."
    if code == "unrecognised":
        return "Part of the query uses syntax the guard cannot verify as a read. " + QUERY_ONLY_HINT
    return f"The query contains a {label(code)} clause ({type(node).__name__}). " + QUERY_ONLY_HINT


def _shown(name: str) -> str:
    return name if len(name) <= MAX_SHOWN_NAME else name[: MAX_SHOWN_NAME - 3] + "..."
