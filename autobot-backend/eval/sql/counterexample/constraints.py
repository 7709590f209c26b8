"""Only possible data: a neighbour keeps every declared constraint and every rule its fixture states.

Two rules are kept by repair, because an edit cannot help breaking them: ids numbered in the order of a date
(:class:`~eval.sql.fixtures.rules.Ordered`: a cloned or moved row takes its place, the rows after it and the
references to them renumbered) and lines numbered from 1 (:class:`~eval.sql.fixtures.rules.Numbered`). Every
other rule, and the declared NOT NULL, PRIMARY KEY, UNIQUE and FOREIGN KEY constraints, is checked on the rows
the neighbour changed: a neighbour that breaks one is refused, and counted. A constraint the graded database
itself breaks (some Spider databases hold orphans) is held only on the rows an edit touched. ``CHECK``
constraints are the engine's to refuse, when the neighbour is written.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from typing import Any

from eval.sql.counterexample.data import Values, Working, has_null, key_of, without_null
from eval.sql.counterexample.edits import delete_closure
from eval.sql.counterexample.schema import Table
from eval.sql.counterexample.values import comparable
from eval.sql.fixtures.rules import HasRows, Implies, NotBefore, Numbered, OneOf, Ordered, RefersBack, Rule, Within


def _col(w: Working, table: str, column: str) -> tuple[Table, int] | None:
    t = w.schema.tables.get(table)
    index = None if t is None else t.index(column)
    return None if t is None or index is None else (t, index)


def repair(w: Working, rules: Sequence[Rule]) -> None:
    """Delete a row left without the rows it must have (an order whose every line is gone goes with them), then
    renumber what the rules number: ids in the order of their date, lines from 1 within their order."""
    for rule in rules:
        if isinstance(rule, HasRows):
            _drop_empty(w, rule)
    for rule in rules:
        if isinstance(rule, Ordered) and rule.table in w.touched:
            _renumber(w, rule)
        elif isinstance(rule, Numbered) and rule.table in w.touched:
            _number_lines(w, rule)


def _renumber(w: Working, rule: Ordered) -> None:
    """Give the rows an edit added or moved their place in the order of ``by``; the rows between shift, and so
    do the references to them. The base keeps the rule, so its other rows are in order already."""
    key, by = _col(w, rule.table, rule.key), _col(w, rule.table, rule.by)
    if key is None or by is None:
        return
    k, b = key[1], by[1]
    rows, base = w.rows(rule.table), w.base.rows[rule.table]
    moved = [
        r
        for r in w.touched[rule.table]
        if r in rows and (r not in base or (rows[r][k], rows[r][b]) != (base[r][k], base[r][b]))
    ]
    if not moved:
        return
    order = w.base.ordered(rule.table, k, b)
    if order is None:  # the base does not keep the rule itself: nothing to keep
        return
    still = set(moved)
    stable = [r for r in order if r in rows and r not in still]
    places = [_sortable(rows[r][b]) for r in stable]
    try:
        moved.sort(key=lambda r: (_sortable(rows[r][b]), rows[r][k]))
        merged: list[int] = []
        at = 0
        for r in moved:
            to = bisect_right(places, _sortable(rows[r][b]), lo=at)
            merged += stable[at:to]
            merged.append(r)
            at = to
        merged += stable[at:]
        keys = sorted(v[k] for v in rows.values())
    except TypeError:
        return
    mapping = {rows[r][k]: new for r, new in zip(merged, keys) if rows[r][k] != new}
    if not mapping:
        return
    w.put_many(rule.table, {r: _with(rows[r], k, mapping[rows[r][k]]) for r in merged if rows[r][k] in mapping})
    for fk in w.schema.children(rule.table):
        if fk.parent_columns != (k,):
            continue
        (c,) = fk.columns
        child = w.rows(fk.child)
        hits = w.having(fk.child, fk.columns, mapping)
        w.put_many(fk.child, {r: _with(child[r], c, mapping[child[r][c]]) for r in hits if child[r][c] in mapping})


def _sortable(value: Any) -> tuple[bool, Any]:
    return (value is None, comparable(value, value))


def _with(values: Values, column: int, value: Any) -> Values:
    changed = list(values)
    changed[column] = value
    return tuple(changed)


def _drop_empty(w: Working, rule: HasRows) -> None:
    if not ({rule.parent, rule.child} & (set(w.touched) | set(w.removed))):
        return
    empty = _empty_parents(w, rule)
    if empty:
        delete_closure(w, rule.parent, empty)


def _empty_parents(w: Working, rule: HasRows) -> list[int]:
    """The rows of ``rule.parent`` that may have lost their last row of ``rule.child`` and have: new or changed
    parents, and those a deleted or changed child named (worked out once per write: repair and check both ask)."""
    found: list[int] = w.worked_out(f"empty of {rule.child}", rule.parent, lambda: _find_empty_parents(w, rule))
    return found


def _find_empty_parents(w: Working, rule: HasRows) -> list[int]:
    fk = next((f for f in w.schema.parents(rule.child) if f.parent == rule.parent), None)
    if fk is None:
        return []
    child_key, parent_key = key_of(fk.columns), key_of(fk.parent_columns)
    parents, children = w.rows(rule.parent), w.rows(rule.child)
    before = w.base.rows[rule.child]
    suspects = {parent_key(v) for _, v in w.changed(rule.parent)}
    suspects.update(map(child_key, map(before.__getitem__, w.removed.get(rule.child, ()))))
    suspects.update(child_key(before[r]) for r in w.touched.get(rule.child, ()) if r in before)
    alive = w.having(rule.parent, fk.parent_columns, suspects)
    named = {child_key(children[r]) for r in w.having(rule.child, fk.columns, {parent_key(parents[r]) for r in alive})}
    return [r for r in alive if parent_key(parents[r]) not in named]


def _number_lines(w: Working, rule: Numbered) -> None:
    found = _col(w, rule.table, rule.column)
    within = [_col(w, rule.table, c) for c in rule.within]
    if found is None or any(x is None for x in within):
        return
    c = found[1]
    groups = tuple(x[1] for x in within if x is not None)
    get = key_of(groups)
    rows = w.rows(rule.table)
    touched = {get(rows[r]) for r in w.touched[rule.table] if r in rows}
    touched |= {get(w.base.rows[rule.table][r]) for r in w.removed.get(rule.table, ())}
    members: dict[Any, list[int]] = {}
    for r in w.having(rule.table, groups, touched):
        members.setdefault(get(rows[r]), []).append(r)
    for group_rows in members.values():
        group_rows.sort(key=lambda r: (rows[r][c] is None, rows[r][c]))
        for n, r in enumerate(group_rows, 1):
            if rows[r][c] != n:
                values = list(rows[r])
                values[c] = n
                w.put(rule.table, r, tuple(values))


def violation(w: Working, rules: Sequence[Rule]) -> str | None:
    """The first constraint or stated rule the neighbour breaks, named; None when it keeps them all."""
    for table in w.schema.tables:
        if table not in w.touched and table not in w.removed:
            continue
        found = _declared(w, table)
        if found:
            return found
    for rule in rules:
        found = _stated(w, rule)
        if found:
            return found
    return None


def _declared(w: Working, table: str) -> str | None:
    t = w.schema.tables[table]
    changed = w.changed(table)
    required = [c for c, column in enumerate(t.columns) if not column.nullable]
    for _, values in changed:
        for c in required:
            if values[c] is None:
                return f"NOT NULL: {table}.{t.columns[c].name}"
    if changed:
        for columns in (t.key, *t.unique):
            if not columns:
                continue
            get = key_of(columns)
            keys = [get(v) for _, v in changed]
            keys = [k for k in keys if columns == t.key or not has_null(k, columns)]
            rows = w.rows(table)
            holders = Counter(get(rows[r]) for r in w.having(table, columns, keys))
            if any(n > 1 for n in holders.values()):
                names = ", ".join(t.columns[c].name for c in columns)
                return f"{'PRIMARY KEY' if columns == t.key else 'UNIQUE'}: {table}({names})"
    for fk in w.schema.parents(table):
        get, parent_get = key_of(fk.columns), key_of(fk.parent_columns)
        needed = without_null((get(v) for _, v in changed), fk.columns)
        parents = w.rows(fk.parent)
        present = {parent_get(parents[r]) for r in w.having(fk.parent, fk.parent_columns, needed)}
        if needed - present:
            return f"FOREIGN KEY: {table} -> {fk.parent}"
    return _orphaned(w, table)


def _orphaned(w: Working, table: str) -> str | None:
    """A referenced value that a changed or deleted row of ``table`` held and no row holds now, while a row still
    refers to it: a parent's key set to another value (or NULL) orphans the rows that referred to the old one. Deleted
    rows count too: a delete takes the rows that refer to a key as it is then, so a key changed and then deleted
    leaves the referrers of its old value behind."""
    base, rows = w.base.rows[table], w.rows(table)
    before = [base[r] for r in (*w.touched.get(table, ()), *w.removed.get(table, ())) if r in base]
    if not before:
        return None
    for fk in w.schema.children(table):
        get = key_of(fk.parent_columns)
        held = without_null(map(get, before), fk.parent_columns)
        lost = held - {get(rows[r]) for r in w.having(table, fk.parent_columns, held)}
        if lost and w.having(fk.child, fk.columns, lost):
            return f"FOREIGN KEY: {fk.child} -> {table}"
    return None


def _changed_values(w: Working, table: str, column: str, *also: str) -> list[tuple[Values, int]]:
    """The values of the rows whose ``column`` (or one of ``also``) the neighbour set, with the column's position."""
    found = _col(w, table, column)
    if found is None:
        return []
    others = [x[1] for x in (_col(w, table, a) for a in also) if x is not None]
    return [(v, found[1]) for _, v in w.changed_in(table, (found[1], *others))]


def _stated(w: Working, rule: Rule) -> str | None:
    if isinstance(rule, Within):
        for values, c in _changed_values(w, rule.table, rule.column):
            if outside(rule, values[c]):
                return f"{rule.table}.{rule.column} outside {rule.low}..{rule.high}"
    elif isinstance(rule, OneOf):
        cols = [_col(w, rule.table, c) for c in rule.columns]
        if all(cols):
            for _, values in w.changed_in(rule.table, [c[1] for c in cols if c]):
                if tuple(values[c[1]] for c in cols if c) not in rule.values:
                    return f"{rule.table}.{'/'.join(rule.columns)}: a value the data never holds"
    elif isinstance(rule, Implies):
        then = _col(w, rule.table, rule.then)
        for values, c in _changed_values(w, rule.table, rule.column, rule.then):
            if then is not None and values[c] in rule.when and (values[then[1]] is None) != rule.null:
                return f"{rule.table}: {rule.column} {values[c]!r} with {rule.then} {'set' if rule.null else 'NULL'}"
    elif isinstance(rule, NotBefore):
        return _not_before(w, rule)
    elif isinstance(rule, RefersBack):
        return _refers_back(w, rule)
    elif isinstance(rule, HasRows):
        return _has_rows(w, rule)
    return None


def outside(rule: Within, value: Any) -> bool:
    """Whether ``value`` (not NULL) lies outside the rule's range, or cannot be compared with its bounds."""
    bound = rule.low if rule.low is not None else rule.high
    v = comparable(value, bound)
    return value is not None and (
        v is None or (rule.low is not None and v < rule.low) or (rule.high is not None and v > rule.high)
    )


def _before(a: Any, b: Any) -> bool:
    x, y = comparable(a, a), comparable(b, a)
    return x is not None and y is not None and y > x


def _not_before(w: Working, rule: NotBefore) -> str | None:
    col = _col(w, rule.table, rule.column)
    if col is None:
        return None
    c = col[1]
    if rule.via is None:
        other = _col(w, rule.table, rule.other)
        for values, _ in _changed_values(w, rule.table, rule.column, rule.other):
            if other is not None and _before(values[c], values[other[1]]):
                return f"{rule.table}.{rule.column} before its {rule.other}"
        return None
    via = _col(w, rule.table, rule.via)
    fk = next((f for f in w.schema.parents(rule.table) if via is not None and f.columns == (via[1],)), None)
    other = None if fk is None else _col(w, fk.parent, rule.other)
    if fk is None or other is None or via is None:
        return None
    parent_key = fk.parent_columns[0]
    # The rows to look at: those whose date or reference changed, and those whose parent's date changed.
    rows = w.rows(rule.table)
    looked = {r for r, _ in w.changed_in(rule.table, (c, via[1]))}
    moved = [v[parent_key] for _, v in w.changed_in(fk.parent, (other[1],))]
    looked.update(w.having(rule.table, fk.columns, moved))
    named = {rows[r][via[1]] for r in looked if r in rows}
    parents = w.rows(fk.parent)
    by_key = {parents[r][parent_key]: parents[r][other[1]] for r in w.having(fk.parent, (parent_key,), named)}
    for r in looked:
        found = rows.get(r)
        if found is not None and found[via[1]] in by_key and _before(found[c], by_key[found[via[1]]]):
            return f"{rule.table}.{rule.column} before its {fk.parent}'s {rule.other}"
    return None


def _refers_back(w: Working, rule: RefersBack) -> str | None:
    col, key = _col(w, rule.table, rule.column), _col(w, rule.table, rule.key)
    if col is None or key is None or rule.table not in w.touched:
        return None
    for _, values in w.changed(rule.table):
        named = values[col[1]]
        if named is not None and not named < values[key[1]]:
            return f"{rule.table}.{rule.column} names a later row"
    return None


def _has_rows(w: Working, rule: HasRows) -> str | None:
    if not ({rule.parent, rule.child} & (set(w.touched) | set(w.removed))):
        return None
    return f"a row of {rule.parent} without a row of {rule.child}" if _empty_parents(w, rule) else None
