"""What Spider's exact-set-match needs to know of a database: its tables' columns and its foreign-key sets
(Spider's ``kmap``), read from the database's own schema rather than ``tables.json``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SpiderSchema:
    """What column resolution needs of a database: its tables' columns and its foreign-key sets."""

    columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Table -> its columns, in order, lower-case."""
    keys: Mapping[str, str] = field(default_factory=dict)
    """``table.column`` -> the first member of its foreign-key set (columns in no foreign key are absent)."""

    @classmethod
    def of(cls, tables: Iterable[tuple[str, Iterable[str], Iterable[tuple[str, str, str]]]]) -> SpiderSchema:
        """From ``(table, columns, foreign keys as (column, referred table, referred column))``."""
        columns: dict[str, tuple[str, ...]] = {}
        links: list[tuple[str, str]] = []
        for name, cols, fks in tables:
            columns[name.lower()] = tuple(c.lower() for c in cols)
            links += [(f"{name}.{c}".lower(), f"{rt}.{rc}".lower()) for c, rt, rc in fks]
        order = {f"{t}.{c}": i for i, (t, c) in enumerate((t, c) for t, cs in columns.items() for c in cs)}
        sets: list[set[str]] = []
        for a, b in links:  # Spider's build_foreign_key_map: a key joins the first set holding either end
            found = next((s for s in sets if a in s or b in s), None)
            if found is None:
                sets.append(found := set())
            found |= {a, b}
        keys: dict[str, str] = {}
        for members in sets:
            first = min(members, key=lambda m: (order.get(m, len(order)), m))
            keys |= dict.fromkeys(members, first)
        return cls(columns, keys)
