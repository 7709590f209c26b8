"""Whether Spider's own parser can read a query: the grammar of ``process_sql.py`` (Spider's repository and the
test-suite grader; its tokenizer is nltk's ``word_tokenize``), written here to tell where it stops, never to
build a structure (the structure EM compares is :mod:`eval.sql.grading.spider_sql`'s, read with sqlglot).

The official ``evaluation.py`` scores a prediction this parser cannot read as not matching and stops on a gold
it cannot read, so ``--exact-match official`` needs the parser's verdict on both. What it cannot read is
general, not a list of cases; the grammar below decides it:

* **Tokens.** Quotes (``'`` and ``"`` alike) pair up from the left into string values (an odd count fails);
  the rest splits on white space and on ``( ) [ ] { } < > * ; @ # $ % & ? !``, backticks, ``--``, runs of
  dots, a comma or colon not followed by a digit (``9,10`` stays one token), and a full stop that ends the
  text; ``cannot``, ``gonna``... split in two as nltk's contractions; everything else sticks together
  (``a=b`` is one token). Tokens are lower-cased; ``!=``, ``>=``, ``<=`` are joined back, ``<>`` is not.
* **Aliases.** ``X AS Y`` anywhere makes ``Y`` a name for ``X``; a table of the schema may not be one.
* **FROM.** Tables joined by ``JOIN`` (nothing before it: no INNER, LEFT, comma), each optionally ``AS
  alias``, ON conditions, or a parenthesised subquery *first* (one after JOIN fails, and so does an alias
  after it). The first ``from`` token of the text from the query's start is the FROM, wherever it is.
* **Columns** are ``*``, ``alias.column`` (the column must exist in that table), or a bare name of a column
  of the FROM tables; with an aggregate (``max min count sum avg``) in parentheses, optionally DISTINCT; a
  value unit is one column unit or two joined by ``+ - * /``, optionally in parentheses.
* **Conditions**: a value unit, optional NOT, one of ``= > < >= <= != in like is between exists not``, then
  a value: a subquery, a string, a number, or a column unit read from the tokens up to the next ``,``,
  ``)``, ``and``, clause keyword, ``join``, ``on`` or ``as`` (so ``IS NULL`` fails: ``null`` is no
  column; ``IN (1, 2)`` fails: a parenthesised value closes after one). No parentheses around conditions.
* SELECT items are value units with an optional aggregate before them, separated by commas, up to the next
  clause keyword (so ``AS name`` fails: ``as`` is read as a column); GROUP BY column units, ORDER BY value
  units with ``asc``/``desc``, LIMIT and one token; then one INTERSECT / UNION / EXCEPT and a query.
  Whatever follows a complete top-level query is ignored.

The prediction is read as ``evaluation.py`` reads it: every ``value`` in its text replaced by ``1`` first
(the script's placeholder rule), the gold as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_CLAUSES = frozenset({"select", "from", "where", "group", "order", "limit", "intersect", "union", "except"})
_JOIN_WORDS = frozenset({"join", "on", "as"})
_CONDITION_OPS = frozenset({"not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists"})
_ARITHMETIC = frozenset({"none", "-", "+", "*", "/"})
_AGGREGATES = frozenset({"none", "max", "min", "count", "sum", "avg"})
_SET_OPS = ("intersect", "union", "except")
_JOIN_KINDS = frozenset({"inner", "left", "right", "full", "outer", "cross", "natural"})

_SPLIT = re.compile(
    r"(`+|[«“‘„»”’]|[;@#$%&?!*\[\](){}<>]|--|[\u2012-\u2015]|\.{2,})",
)
_COMMA = re.compile(r"([:,])(\D|$)")
"""A comma or colon splits off unless a digit follows; the character after it is not looked at again (``,,``
splits the first comma only), as nltk's substitution consumes it."""
_FINAL_STOP = re.compile(r"(?<=[^.])\.(?=[\])}>\s]*$)")
_CONTRACTIONS = re.compile(r"(?i)\b(?:(can)(not)|(gim)(me)|(gon)(na)|(got)(ta)|(lem)(me))\b|\b(wan)(na)(?=\s)")


@dataclass(frozen=True)
class Unreadable:
    """Where Spider's parser stops on a query: the token it met and why it cannot go on."""

    token: str
    why: str

    def __str__(self) -> str:
        return self.why


class _Stop(Exception):
    def __init__(self, token: str, why: str):
        super().__init__(why)
        self.unreadable = Unreadable(token, why)


def tokens(sql: str) -> list[str]:
    """The query as Spider's tokenizer splits it (see the module docstring); :class:`_Stop` on an odd quote."""
    text = sql.replace("'", '"')
    quotes = [i for i, ch in enumerate(text) if ch == '"']
    if len(quotes) % 2:
        raise _Stop('"', "an odd number of quotes: its tokenizer pairs every quote with the next")
    values: dict[str, str] = {}
    for a, b in reversed(list(zip(quotes[::2], quotes[1::2]))):
        key = f"__val_{a}_{b}__"
        values[key] = text[a : b + 1]
        text = text[:a] + key + text[b + 1 :]
    text = _FINAL_STOP.sub(" . ", _SPLIT.sub(r" \1 ", _COMMA.sub(r" \1 \2", text)))
    text = _CONTRACTIONS.sub(lambda m: " " + " ".join(g for g in m.groups() if g) + " ", text)
    out = [values.get(t.lower(), t.lower()) for t in text.split()]
    joined: list[str] = []
    for t in out:
        if t == "=" and joined and joined[-1] in ("!", ">", "<"):
            joined[-1] += "="
        else:
            joined.append(t)
    return joined


def unreadable(sql: str, columns: Mapping[str, Sequence[str]], prediction: bool = True) -> Unreadable | None:
    """Why Spider's parser cannot read ``sql`` over a schema of ``columns`` (table -> its columns, lower-case),
    or None when it can. ``prediction``: read it as ``evaluation.py`` reads a prediction (``value`` -> ``1``)."""
    try:
        toks = tokens(sql.replace("value", "1") if prediction else sql)
        _Parser(toks, columns).query(0)
    except _Stop as stop:
        return stop.unreadable
    except RecursionError:
        return Unreadable("", "nested deeper than this reader follows")
    return None


def _quoted(tok: str) -> bool:
    return '"' in tok or tok.startswith("`")


class _Parser:
    def __init__(self, toks: list[str], columns: Mapping[str, Sequence[str]]):
        self.toks = toks
        self.columns = {t: set(cs) for t, cs in columns.items()}
        self.names = {"*"} | set(self.columns) | {f"{t}.{c}" for t, cs in self.columns.items() for c in cs}
        self.aliases: dict[str, str] = {}
        for i, t in enumerate(toks):
            if t == "as":
                if i + 1 >= len(toks):
                    raise _Stop(t, "AS ends the query")
                self.aliases[toks[i + 1]] = toks[i - 1]
        clash = next((t for t in self.columns if t in self.aliases), None)
        if clash is not None:
            raise _Stop(clash, f"`{clash}` is a table's name and also an alias given with AS")
        self.aliases |= {t: t for t in self.columns}
        self.before = ""
        """The token before this parser's first one (a value read from a slice: see :meth:`_sliced`)."""

    def at(self, i: int) -> str:
        if i >= len(self.toks):
            raise _Stop("", "the query ends where its grammar expects more")
        return self.toks[i]

    def has(self, i: int, *words: str) -> bool:
        return i < len(self.toks) and self.toks[i] in words

    def expect(self, i: int, word: str, where: str) -> int:
        if self.at(i) != word:
            raise _Stop(self.toks[i], f"`{self.toks[i]}` {where}, where its grammar expects `{word}`")
        return i + 1

    def query(self, start: int) -> int:
        block = self.at(start) == "("
        i, tables = self.from_(start)
        self.select(start + 1 if block else start, tables)
        i = self.where(i, tables)
        i = self.group_by(i, tables)
        i = self.condition(i + 1, tables) if self.has(i, "having") else i
        i = self.order_by(i, tables)
        i = i + 2 if self.has(i, "limit") else i
        while self.has(i, ";"):
            i += 1
        if block:
            i = self.expect(i, ")", "closes a subquery")
        while self.has(i, ";"):
            i += 1
        if self.has(i, *_SET_OPS):
            i = self.query(i + 1)
        return i

    def from_(self, start: int) -> tuple[int, list[str]]:
        if "from" not in self.toks[start:]:
            raise _Stop("", "no FROM clause")
        i = self.toks.index("from", start) + 1
        tables: list[str] = []
        units = 0
        while i < len(self.toks):
            block = self.at(i) == "("
            i += block
            if self.at(i) == "select":
                i = self.query(i)
            else:
                after_join = self.has(i, "join")
                i += after_join
                i, table = self.table(i, after_join or not units)
                tables.append(table)
            units += 1
            if self.has(i, "on"):
                i = self.condition(i + 1, tables)
            if block:
                i = self.expect(i, ")", "follows a FROM subquery")
            if i < len(self.toks) and (self.toks[i] in _CLAUSES or self.toks[i] in (")", ";")):
                break
        return i, tables

    def table(self, i: int, expected: bool) -> tuple[int, str]:
        tok = self.at(i)
        name = self.aliases.get(tok)
        if name is None or name not in self.names:
            raise _Stop(tok, _table_hint(tok, expected))
        return (i + 3 if self.has(i + 1, "as") else i + 1), name

    def select(self, i: int, tables: list[str]) -> None:
        i = self.expect(i, "select", "begins a query")
        i += self.has(i, "distinct")
        while i < len(self.toks) and self.toks[i] not in _CLAUSES:
            i += self.toks[i] in _AGGREGATES
            i = self.val_unit(i, tables)
            i += self.has(i, ",")

    def val_unit(self, i: int, tables: list[str]) -> int:
        block = self.at(i) == "("
        i = self.col_unit(i + block, tables)
        if self.has(i, *_ARITHMETIC):
            i = self.col_unit(i + 1, tables)
        if block and self.at(i) in _CONDITION_OPS:
            raise _Stop(self.toks[i], "a condition in parentheses: its grammar has none around conditions")
        return self.expect(i, ")", "in a parenthesised expression") if block else i

    def col_unit(self, i: int, tables: list[str]) -> int:
        block = self.at(i) == "("
        i += block
        if self.at(i) in _AGGREGATES:
            if not self.has(i + 1, "("):
                raise _Stop(self.toks[i], f"`{self.toks[i]}` without `(` after it")
            i += 2
            i += self.at(i) == "distinct"
            i = self.column(i, tables)
            if not self.has(i, ")"):
                tok = self.toks[i] if i < len(self.toks) else ""
                raise _Stop(
                    tok,
                    "an aggregate as a compared value: it reads a column, a number, a string or a subquery there"
                    if self.before
                    else f"`{tok}` in an aggregate, whose argument is one column",
                )
            return i + 1
        i += self.at(i) == "distinct"
        i = self.column(i, tables)
        return self.expect(i, ")", "in a parenthesised column") if block else i

    def column(self, i: int, tables: list[str]) -> int:
        tok = self.at(i)
        if tok == "*":
            return i + 1
        if "." in tok:
            parts = tok.split(".")
            table = self.aliases.get(parts[0]) if len(parts) == 2 else None
            if table is None or f"{table}.{parts[1]}" not in self.names:
                raise _Stop(tok, _qualified_hint(tok, parts, table))
            return i + 1
        if not tables:
            raise _Stop(tok, f"`{tok}` needs a FROM table to belong to, and its FROM names none")
        for name in tables:
            if name not in self.columns:
                raise _Stop(name, f"`{name}` is not a table")
            if tok in self.columns[name]:
                return i + 1
        raise _Stop(tok, _column_hint(tok, self.toks[i - 1] if i else self.before, tables))

    def value(self, i: int, tables: list[str]) -> int:
        start = i
        block = self.at(i) == "("
        i += block
        tok = self.at(i)
        if tok == "select":
            i = self.query(i)
        elif '"' in tok:
            i += 1
        else:
            try:
                float(tok)
                i += 1
            except ValueError:
                end = i
                while end < len(self.toks) and not _ends_value(self.toks[end]):
                    end += 1
                _Parser.col_unit(self._sliced(start, end), 0, tables)
                i = end
        if block and not self.has(i, ")"):
            tok = self.toks[i] if i < len(self.toks) else ""
            raise _Stop(tok, _value_hint(tok))
        return i + block

    def _sliced(self, start: int, end: int) -> _Parser:
        """The parser over ``toks[start:end]`` only: a column value is read from that slice, as Spider's is."""
        part = object.__new__(_Parser)
        part.__dict__ |= self.__dict__ | {"toks": self.toks[start:end], "before": self.toks[start - 1]}
        return part

    def condition(self, i: int, tables: list[str]) -> int:
        while i < len(self.toks):
            i = self.val_unit(i, tables)
            i += self.at(i) == "not"
            if not self.has(i, *_CONDITION_OPS):
                tok = self.toks[i] if i < len(self.toks) else ""
                raise _Stop(tok, f"`{tok}` where its grammar expects a comparison operator")
            op = self.toks[i]
            i = self.value(i + 1, tables)
            if op == "between":
                i = self.value(self.expect(i, "and", "in BETWEEN"), tables)
            if i < len(self.toks) and (
                self.toks[i] in _CLAUSES or self.toks[i] in (")", ";") or self.toks[i] in _JOIN_WORDS
            ):
                break
            i += self.has(i, "and", "or")
        return i

    def where(self, i: int, tables: list[str]) -> int:
        return self.condition(i + 1, tables) if self.has(i, "where") else i

    def group_by(self, i: int, tables: list[str]) -> int:
        if not self.has(i, "group"):
            return i
        i = self.expect(i + 1, "by", "after GROUP")
        while i < len(self.toks) and not (self.toks[i] in _CLAUSES or self.toks[i] in (")", ";")):
            i = self.col_unit(i, tables)
            if not self.has(i, ","):
                break
            i += 1
        return i

    def order_by(self, i: int, tables: list[str]) -> int:
        if not self.has(i, "order"):
            return i
        i = self.expect(i + 1, "by", "after ORDER")
        while i < len(self.toks) and not (self.toks[i] in _CLAUSES or self.toks[i] in (")", ";")):
            i = self.val_unit(i, tables)
            i += self.has(i, "asc", "desc")
            if not self.has(i, ","):
                break
            i += 1
        return i


def _ends_value(tok: str) -> bool:
    return tok in (",", ")", "and") or tok in _CLAUSES or tok in _JOIN_WORDS


def _table_hint(tok: str, expected: bool) -> str:
    if tok in _JOIN_KINDS:
        return f"`{tok.upper()} JOIN`: its FROM reads JOIN alone (no INNER, LEFT, OUTER, CROSS)"
    if tok == ",":
        return "a comma between FROM tables: its FROM reads JOIN alone"
    if tok == "(":
        return "a subquery after JOIN: its FROM reads a subquery only first, without an alias"
    if _quoted(tok):
        return f"a quoted name ({tok}): it reads names unquoted"
    if tok == "as" and not expected:
        return "an alias after a FROM subquery: it reads none there"
    if not expected:
        return f"`{tok}` after a table: a table alias needs AS, and tables are joined by JOIN"
    return f"`{tok}` is not a table of the database (nor an alias given with AS)"


def _qualified_hint(tok: str, parts: list[str], table: str | None) -> str:
    if len(parts) != 2 or not parts[1]:
        return f"`{tok}` is not a column it can read (a name with one dot: table.column)"
    if table is None:
        return f"`{parts[0]}` in `{tok}` is not a table or an alias given with AS"
    return f"`{tok}`: the table {table} has no column {parts[1]}"


def _column_hint(tok: str, before: str, tables: list[str]) -> str:
    if tok == "as":
        return "an alias with AS in SELECT: it reads aliases of tables only"
    if tok in ("null", "not") and before in ("is", "not"):
        return "IS NULL / IS NOT NULL: the value after IS must be a string, a number or a column"
    if tok == ">" and before == "<":
        return "`<>`: its inequality is !="
    if _quoted(tok) or tok == "[":
        return f"a quoted name ({tok}): it reads names unquoted"
    if tok in _CONDITION_OPS or tok in _CLAUSES or not re.fullmatch(r"\w+", tok):
        return f"`{tok}` where its grammar expects a column"
    return f"`{tok}` is not a column of {', '.join(tables)}"


def _value_hint(tok: str) -> str:
    if tok == ",":
        return "a list of values in parentheses (IN (a, b)): it reads one value or a subquery there"
    return f"`{tok}` in a parenthesised value, where its grammar expects `)`"
