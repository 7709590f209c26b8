"""Terms a column comment defines: "A flight is *delayed* when delay_minutes is more than 15", "An
enrollment is *passed* when it is completed with a grade of at least 1.0". The question says the
term; the answer tests what the comment says it means: a comparison of a column with a number,
and values of the table's columns the definition names.
"""

from __future__ import annotations

import re

from services.embedded.lexicon import parse_number, tokenize
from services.embedded.vocabulary import COMPARATORS

_DEFINITION = re.compile(
    r"\b(?:an?|the)\s+[a-z_]+\s+(?:is|counts\s+as)\s+([a-z]+)\s+(?:when|if|once)\s+([^.;\]]+)", re.I
)


def defined_terms(index) -> dict[str, tuple[tuple, ...]]:
    """The term as written -> its conditions, from every column comment of the schema."""
    out: dict[str, tuple[tuple, ...]] = {}
    for table in index.tables.values():
        for column in table.columns.values():
            for m in _DEFINITION.finditer(column.comment):
                conditions = _conditions(table, column, m.group(2))
                if conditions:
                    out.setdefault(m.group(1).lower(), conditions)
    return out


def _conditions(table, column, clause: str) -> tuple[tuple, ...]:
    tokens = tokenize(clause)
    lows = [t.low for t in tokens]
    if any(w in ("not", "no", "never", "or") for w in lows):
        return ()  # a negated or alternative definition: not read
    out: list[tuple] = []
    named = [c for c in table.columns.values() if re.search(rf"\b{re.escape(c.name)}\b", clause, re.I)]
    for i in range(len(lows)):
        for words, op in COMPARATORS:
            if tuple(lows[i : i + len(words)]) != words or i + len(words) >= len(tokens):
                continue
            number = tokens[i + len(words)]
            if number.kind != "number":
                continue
            before = [c for c in named if c.measurable] or ([column] if column.measurable else [])
            if before:
                out.append(("cmp", table.name, before[0].name, op, parse_number(number)))
    said = set(lows)
    for c in table.columns.values():
        for value in c.values:
            if c.kind == "text" and value.lower() in said:
                out.append(("eq", table.name, c.name, value))
    return tuple(out) if any(k[0] == "cmp" for k in out) else ()
