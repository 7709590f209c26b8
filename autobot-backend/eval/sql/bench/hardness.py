"""Spider's hardness (easy / medium / hard / extra) of a gold query, by the rules of Spider's evaluator.

Spider ships no difficulty label: its evaluator (``evaluation.py`` of Spider and of the test-suite
grader, ``Evaluator.eval_hardness``) computes one from the gold SQL, and a Spider user expects the
results broken down by it. The same counts are taken here from sqlglot's tree of the gold, not from
Spider's own parser:

* component 1: WHERE, GROUP BY, ORDER BY, LIMIT present (one each), one per table joined beyond the
  first (``JOIN`` or a comma), one per ``OR`` and one per ``LIKE`` in the ON, WHERE and HAVING conditions;
* component 2: one per subquery that is an operand of an ON, WHERE or HAVING condition, and one when the
  query is an INTERSECT, UNION or EXCEPT;
* others: one each for more than one aggregate, more than one selected column, more than one WHERE
  condition, more than one GROUP BY column.

Then: easy when c1 <= 1, others == 0, c2 == 0; medium when (others <= 2, c1 <= 1, c2 == 0) or (c1 <= 2,
others < 2, c2 == 0); hard when (others > 2, c1 <= 2, c2 == 0) or (2 < c1 <= 3, others <= 2, c2 == 0) or
(c1 <= 1, others == 0, c2 <= 1); extra otherwise.

Quirks of the published code kept, because they decide labels Spider users compare with:

* only the first SELECT of an INTERSECT / UNION / EXCEPT is counted (Spider's parser hangs the rest, and
  an ORDER BY or LIMIT after it, under the set operation), and a chain of them counts once;
* subqueries in FROM add a table, not a component 2, and nothing inside any subquery is counted;
* the aggregate count reads a WHERE condition's NOT as an aggregate (``count_agg`` looks at the first
  field of the condition, which is its NOT flag), and every HAVING condition with NOT and every AND / OR
  between HAVING conditions likewise (``count_agg`` is given the connectors too, and a string is never
  "no aggregate");
* an aggregate counts in SELECT when the column expression starts with one (``max(a) - min(a)`` is
  one), in ORDER BY and GROUP BY per operand of at most one arithmetic operator.

A gold query sqlglot cannot read has no hardness (None): its question is left out of the breakdown. The
tree is the read-only guard's parse (:func:`services.readonly.parsed.statement_tree`), kept per process: the
import reads each gold once for its hardness, its order and the self-check that follows.
"""

from __future__ import annotations

from typing import Literal

from sqlglot import exp
from sqlglot.errors import SqlglotError

from services.readonly.parsed import statement_tree

Hardness = Literal["easy", "medium", "hard", "extra"]
LEVELS: tuple[Hardness, ...] = ("easy", "medium", "hard", "extra")
_AGGREGATES = (exp.Max, exp.Min, exp.Count, exp.Sum, exp.Avg)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div)


def spider_hardness(sql: str) -> Hardness | None:
    """The gold's hardness under Spider's rules; None when sqlglot cannot read it as one query."""
    try:
        tree = statement_tree(sql, "sqlite")
    except SqlglotError:
        return None
    if not isinstance(tree, exp.Query):
        return None
    return level(*counts(tree))


def level(c1: int, c2: int, others: int) -> Hardness:
    """``eval_hardness``: the three counts to a label."""
    if c1 <= 1 and others == 0 and c2 == 0:
        return "easy"
    if (others <= 2 and c1 <= 1 and c2 == 0) or (c1 <= 2 and others < 2 and c2 == 0):
        return "medium"
    if (
        (others > 2 and c1 <= 2 and c2 == 0)
        or (2 < c1 <= 3 and others <= 2 and c2 == 0)
        or (c1 <= 1 and others == 0 and c2 <= 1)
    ):
        return "hard"
    return "extra"


# Complexity (radon E or F), kept as one function: it follows Spider's count_component1, count_component2 and
# count_others, one branch per counted part.
def counts(tree: exp.Query) -> tuple[int, int, int]:
    """(component 1, component 2, others) of a query, counted as Spider counts them."""
    set_operation = 0
    while isinstance(tree, exp.SetOperation):  # the first SELECT; the rest is one nested query to Spider
        set_operation = 1
        tree = tree.this
    while isinstance(tree, exp.Subquery):
        tree = tree.this
    if not isinstance(tree, exp.Select):
        return 0, set_operation, 0
    on = [j.args["on"] for j in tree.args.get("joins") or [] if j.args.get("on") is not None]
    where, having = _clause(tree, "where"), _clause(tree, "having")
    conditions = [c for part in (*on, where, having) if part is not None for c in _leaves(part)]
    group = list(tree.args["group"].expressions) if tree.args.get("group") else []
    order = list(tree.args["order"].expressions) if tree.args.get("order") else []
    source = tree.args.get("from_") or tree.args.get("from")
    tables = (1 if source is not None else 0) + len(tree.args.get("joins") or [])

    c1 = sum(1 for part in (where, group, order, tree.args.get("limit")) if part)
    c1 += max(tables - 1, 0)
    c1 += sum(_ors(part) for part in (*on, where, having) if part is not None)
    c1 += sum(1 for c in conditions if isinstance(_positive(c), exp.Like))

    c2 = set_operation + sum(_subqueries(c) for c in conditions)

    where_leaves = _leaves(where) if where is not None else []
    having_leaves = _leaves(having) if having is not None else []
    aggregates = sum(_starts_with_aggregate(e) for e in tree.expressions)
    aggregates += sum(1 for c in where_leaves if _negated(c))  # count_agg on a condition reads its NOT flag
    aggregates += sum(_operand_aggregates(e) for e in group)
    aggregates += sum(_operand_aggregates(o.this if isinstance(o, exp.Ordered) else o) for o in order)
    aggregates += sum(1 for c in having_leaves if _negated(c)) + max(len(having_leaves) - 1, 0)
    others = int(aggregates > 1) + int(len(tree.expressions) > 1) + int(len(where_leaves) > 1) + int(len(group) > 1)
    return c1, c2, others


def _clause(tree: exp.Select, key: str) -> exp.Expression | None:
    node = tree.args.get(key)
    return node.this if node is not None else None


def _unparen(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _leaves(node: exp.Expression) -> list[exp.Expression]:
    """The conditions joined by AND / OR, flattened as Spider's parser lists them."""
    node = _unparen(node)
    if isinstance(node, exp.Connector):
        return _leaves(node.this) + _leaves(node.expression)
    return [node]


def _ors(node: exp.Expression) -> int:
    node = _unparen(node)
    if isinstance(node, exp.Connector):
        return int(isinstance(node, exp.Or)) + _ors(node.this) + _ors(node.expression)
    return 0


def _negated(condition: exp.Expression) -> bool:
    return isinstance(condition, exp.Not) or bool(condition.args.get("negate"))


def _positive(condition: exp.Expression) -> exp.Expression:
    return _unparen(condition.this) if isinstance(condition, exp.Not) else condition


def _subqueries(condition: exp.Expression) -> int:
    """Subqueries among the condition's operands (Spider's ``val1`` and ``val2``), not inside them."""
    node = _positive(condition)
    if isinstance(node, exp.Exists):
        return 1
    operands = [v for k, v in node.args.items() if k in ("this", "expression", "query", "low", "high")]
    return sum(1 for v in operands if isinstance(v, exp.Subquery | exp.Query))


def _starts_with_aggregate(column: exp.Expression) -> int:
    node = column.this if isinstance(column, exp.Alias) else column
    while isinstance(node, (*_ARITHMETIC, exp.Paren)):
        node = node.this
    return int(isinstance(node, _AGGREGATES))


def _operand_aggregates(node: exp.Expression) -> int:
    node = _unparen(node)
    if isinstance(node, _ARITHMETIC):
        return int(isinstance(_unparen(node.this), _AGGREGATES)) + int(
            isinstance(_unparen(node.expression), _AGGREGATES)
        )
    return int(isinstance(node, _AGGREGATES))
