"""Check every reference answer of the blind set on seeds 0, 1 and 2 of its schema.

Run from ``autobot-backend/``::

    ../.venv/bin/python -m tests.data.embedded_blind.check            # exit 0 when the set is sound
    ../.venv/bin/python -m tests.data.embedded_blind.check --db-dir D # also keep the SQLite files in D

What a reference must satisfy on every seed, so a grader that compares rows can trust it:

* it runs, and returns rows (a scalar: exactly one row, one column, neither NULL nor 0);
* no number in it is non-zero yet rounds to 0.00 (the grader compares at two decimals);
* its answer is not the same on every seed (a hard-coded answer would pass the grader's rotations);
* an ``ordered`` question ends in ``ORDER BY`` whose keys have no ties in the returned rows;
* every ``ORDER BY ... LIMIT`` (at any depth) has no tie across its cut-off, so "top three" is
  three rows whatever the engine's tie order;
* every order-sensitive window (``ROW_NUMBER``, ``LAG``, ``LEAD``, ``FIRST_VALUE``...) has no
  duplicate (partition, order key), so its rows do not depend on an arbitrary tie order;

and across the set: no two questions near-duplicates (rapidfuzz ``token_sort_ratio`` >= 85
after lowercasing and stripping punctuation), and the sizes the brief asks for.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from pathlib import Path

import sqlalchemy as sa
import sqlglot
from rapidfuzz import fuzz, utils
from sqlglot import exp

from eval.sql import fixtures
from tests.data.embedded_blind import schema_saas
from tests.data.embedded_blind.blindset import HERE, SCHEMAS, BlindSetError, Question, load_set
from tests.test_embedded_schemas import build_clinic, build_library

SEEDS = (0, 1, 2)
NEAR_DUPLICATE = 85
DECIMALS = 2
_WITH = "with_" if "with_" in exp.Select.arg_types else "with"  # the key is "with_" in newer sqlglot
ORDER_SENSITIVE = (exp.RowNumber, exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)

BUILDERS: dict[str, Callable[[sa.Engine, int], None]] = {
    "retail": lambda engine, seed: fixtures.build(engine, "retail", seed),
    "retail_24m": lambda engine, seed: fixtures.build(engine, "retail_24m", seed),
    "library": build_library,
    "clinic": build_clinic,
    "saas": schema_saas.build,
}

MINIMUMS: dict[tuple[tuple[str, ...], str], int] = {
    (("retail", "retail_24m"), "tune"): 80, (("retail", "retail_24m"), "holdout"): 40,
    **{((s,), "tune"): 20 for s in ("library", "clinic", "saas")},
    **{((s,), "holdout"): 12 for s in ("library", "clinic", "saas")},
}
MIN_REFUSALS_PER_FILE = 3

Engines = dict[tuple[str, int], sa.Engine]


def build_engines(schemas: Iterable[str], db_dir: Path | None = None,
                  builders: Mapping[str, Callable[[sa.Engine, int], None]] | None = None) -> Engines:
    """One engine per (schema, seed): in memory, or SQLite files in ``db_dir`` when given."""
    builders = BUILDERS if builders is None else builders
    engines: Engines = {}
    for schema in schemas:
        for seed in SEEDS:
            if db_dir is None:
                engine = sa.create_engine("sqlite://")
            else:
                path = Path(db_dir) / f"{schema}-seed{seed}.sqlite"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.unlink(missing_ok=True)
                engine = sa.create_engine(fixtures.sqlite_url(path))
            builders[schema](engine, seed)
            engines[schema, seed] = engine
    return engines


def run(engine: sa.Engine, sql: str) -> list[tuple]:
    with engine.connect() as conn:
        return [tuple(row) for row in conn.exec_driver_sql(sql).fetchall()]


def _norm(value: object) -> object:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, Decimal)):
        return round(float(value), DECIMALS) + 0.0
    return value


def _key(value: object) -> object:
    """An ORDER BY / window key for tie detection: exact, but blind to float noise in the last digits."""
    if isinstance(value, (float, Decimal)):
        return round(float(value), 9) + 0.0
    return value


def normalise(rows: list[tuple], ordered: bool) -> tuple:
    """Rows as the grader sees them: numbers at two decimals, order ignored unless ``ordered``."""
    out = [tuple(_norm(v) for v in row) for row in rows]
    return tuple(out) if ordered else tuple(sorted(out, key=repr))


def value_problems(q: Question, rows: list[tuple]) -> list[str]:
    """Empty answers, a malformed scalar, numbers that vanish at two decimals."""
    if not rows:
        return ["returns no rows; ask something with a non-empty answer"]
    problems = []
    if q.shape == "scalar":
        if len(rows) != 1 or len(rows[0]) != 1:
            problems.append(f"shape is scalar but the reference returns {len(rows)} row(s) of "
                            f"{len(rows[0])} column(s)")
        elif rows[0][0] is None:
            problems.append("the scalar answer is NULL")
        elif isinstance(rows[0][0], (int, float, Decimal)) and rows[0][0] == 0:
            problems.append("the scalar answer is 0, which SQL that matches nothing would also give")
    for row in rows:
        for v in row:
            if isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) and v != 0 \
                    and round(float(v), DECIMALS) == 0:
                problems.append(f"value {v!r} rounds to zero at {DECIMALS} decimals; scale it (e.g. a percentage)")
                return problems
    return problems


def _order_keys(select: exp.Select) -> list[exp.Expression]:
    """The ORDER BY keys of ``select`` as expressions that can be projected (aliases and ordinals resolved)."""
    by_alias = {p.alias: p.this for p in select.expressions if isinstance(p, exp.Alias)}
    keys = []
    for ordered in select.args["order"].expressions:
        key = ordered.this
        if isinstance(key, exp.Literal) and key.is_int:
            key = select.expressions[int(key.name) - 1]
            key = key.this if isinstance(key, exp.Alias) else key
        elif isinstance(key, exp.Column) and not key.table and key.name in by_alias:
            key = by_alias[key.name]
        keys.append(key.copy())
    return keys


def _standalone(node: exp.Select, root: exp.Expression) -> exp.Select:
    """``node`` as a query of its own, with the root's CTEs attached so their names resolve."""
    query = node.copy()
    if node is not root and root.args.get(_WITH) and not query.args.get(_WITH):
        query.set(_WITH, root.args[_WITH].copy())
    return query


def _int_arg(node: exp.Select, arg: str) -> int:
    part = node.args.get(arg)
    if part is None:
        return 0
    value = part.expression if isinstance(part, (exp.Limit, exp.Offset)) else part
    return int(value.name)


def order_problems(q: Question, engine: sa.Engine, tree: exp.Expression) -> list[str]:
    """Ties in ORDER BY keys (ordered answers), across LIMIT cut-offs, and in order-sensitive windows."""
    problems = []
    if q.ordered and not (isinstance(tree, exp.Select) and tree.args.get("order")):
        problems.append("ordered: true but the outer query has no ORDER BY")
    for node in tree.find_all(exp.Select):
        if node.args.get("order") and (node is tree and q.ordered or node.args.get("limit")):
            problems += _cutoff_problems(q, engine, node, tree)
        for window in node.find_all(exp.Window):
            if isinstance(window.this, ORDER_SENSITIVE) and window.find_ancestor(exp.Select) is node:
                problems += _window_problems(engine, node, tree, window)
    return problems


def _cutoff_problems(q: Question, engine: sa.Engine, node: exp.Select, root: exp.Expression) -> list[str]:
    keys = _order_keys(node)
    limit, offset = _int_arg(node, "limit"), _int_arg(node, "offset")
    query = _standalone(node, root)
    query.set("limit", None)
    query.set("offset", None)
    query = query.select(*(k.as_(f"__k{i}") for i, k in enumerate(keys)))
    try:
        rows = run(engine, query.sql(dialect="sqlite"))
    except sa.exc.DBAPIError as exc:
        return [f"cannot check the ORDER BY of {node.sql(dialect='sqlite')[:60]!r} on its own ({exc.orig}); "
                "avoid correlated ORDER BY ... LIMIT"]
    key_rows = [tuple(_key(v) for v in row[-len(keys):]) for row in rows]
    window = key_rows[offset:offset + limit] if limit else key_rows[offset:]
    problems = []
    if node is root and q.ordered:
        ties = [k for k, n in Counter(window).items() if n > 1]
        if ties:
            problems.append(f"ordered answer has ties in its ORDER BY key {ties[0]}; order by something unique")
    edges = ([offset - 1] if offset else []) + ([offset + limit - 1] if limit else [])
    for i in edges:
        if 0 <= i < len(key_rows) - 1 and key_rows[i] == key_rows[i + 1]:
            problems.append(f"LIMIT/OFFSET cut-off falls inside a tie on key {key_rows[i]} "
                            f"(rows {i + 1} and {i + 2}); change N or the question")
    return problems


def _window_problems(engine: sa.Engine, node: exp.Select, root: exp.Expression, window: exp.Window) -> list[str]:
    order = window.args.get("order")
    if order is None:
        return [f"{window.this.key} without ORDER BY depends on an arbitrary row order"]
    keys = [p.copy() for p in window.args.get("partition_by") or []] + [o.this.copy() for o in order.expressions]
    query = _standalone(node, root)
    query.set("expressions", [k.as_(f"__k{i}") for i, k in enumerate(keys)])
    query.set("order", None)
    query.set("limit", None)
    query.set("offset", None)
    query.set("distinct", None)
    rows = [tuple(_key(v) for v in row) for row in run(engine, query.sql(dialect="sqlite"))]
    dupes = [k for k, n in Counter(rows).items() if n > 1]
    if dupes:
        return [f"{window.this.key} over (partition, order key) {dupes[0]} has ties; its result is arbitrary"]
    return []


def check_question(q: Question, engines: Engines) -> list[str]:
    """Every problem with ``q``'s reference on every seed, as ``seed N: ...`` lines."""
    problems: list[str] = []
    answers = {}
    try:
        tree = sqlglot.parse_one(q.sql, read="sqlite")
    except sqlglot.errors.ParseError as exc:
        return [f"the reference does not parse: {exc}"]
    for seed in SEEDS:
        engine = engines[q.schema, seed]
        try:
            rows = run(engine, q.sql)
        except sa.exc.DBAPIError as exc:
            problems.append(f"seed {seed}: the reference fails: {exc.orig}")
            continue
        problems += [f"seed {seed}: {p}" for p in value_problems(q, rows)]
        problems += [f"seed {seed}: {p}" for p in order_problems(q, engine, tree)]
        answers[seed] = normalise(rows, q.ordered)
    if len(answers) == len(SEEDS) and len(set(answers.values())) == 1:
        problems.append(f"seeds {', '.join(map(str, SEEDS))} all give the same answer; a hard-coded answer "
                        "would pass: ask something whose answer depends on the data")
    return problems


def near_duplicates(questions: list[Question], threshold: int = NEAR_DUPLICATE) -> list[str]:
    """Pairs of questions whose wording is too close (token_sort_ratio >= threshold)."""
    texts = [utils.default_process(q.question) for q in questions]
    problems = []
    for i, a in enumerate(texts):
        for j in range(i + 1, len(texts)):
            score = fuzz.token_sort_ratio(a, texts[j], score_cutoff=threshold)
            if score:
                problems.append(f"{questions[i].id} and {questions[j].id} are near-duplicates "
                                f"(token_sort_ratio {score:.0f})")
    return problems


def size_problems(questions: list[Question]) -> list[str]:
    """The brief's minimum counts of answerable questions, and refusals in every file."""
    answerable = Counter((q.schema, q.split) for q in questions if q.answerable)
    problems = []
    for (schemas, split), minimum in MINIMUMS.items():
        have = sum(answerable[s, split] for s in schemas)
        if have < minimum:
            problems.append(f"{'+'.join(schemas)} {split}: {have} answerable questions, the brief asks for {minimum}")
    refusals = Counter((q.schema, q.split) for q in questions if not q.answerable)
    files = {(q.schema, q.split) for q in questions}
    for schema, split in sorted(files):
        if refusals[schema, split] < MIN_REFUSALS_PER_FILE:
            problems.append(f"{schema}_{split}.yaml: {refusals[schema, split]} must-refuse cases, "
                            f"at least {MIN_REFUSALS_PER_FILE} wanted")
    return problems


def check_set(questions: list[Question], engines: Engines) -> list[str]:
    """Every problem in the set, each line naming the file and question it concerns."""
    problems = size_problems(questions) + near_duplicates(questions)
    for q in questions:
        if q.answerable:
            problems += [f"{q.path.name}: {q.id}: {p}" for p in check_question(q, engines)]
    return problems


def overlap_with(questions: list[Question], others: list[Question], threshold: int = NEAR_DUPLICATE) -> list[str]:
    """Questions that near-duplicate any of ``others`` (an earlier set's); names only ``questions``' ids,
    so a later set's writer can check against the earlier sets without reading them."""
    theirs = [utils.default_process(q.question) for q in others]
    problems = []
    for q in questions:
        mine = utils.default_process(q.question)
        best = max((fuzz.token_sort_ratio(mine, t) for t in theirs), default=0)
        if best >= threshold:
            problems.append(f"{q.path.name}: {q.id}: a near-duplicate of a question in an earlier blind set "
                            f"(token_sort_ratio {best:.0f}); reword it or ask something else")
    return problems


def run_check(argv: list[str] | None, description: str, directory: Path,
              load: Callable[[Path], list[Question]],
              check: Callable[[list[Question], Engines, list[Question]], list[str]],
              build: Callable[[Iterable[str], Path | None], Engines], schemas: tuple[str, ...],
              others: Callable[[], list[Question]] = list) -> int:
    """A blind set's checker command: 0 sound, 1 problems (each printed), 2 a file that will not load."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=directory, help="folder holding the YAML files")
    parser.add_argument("--db-dir", type=Path, help="also keep the SQLite databases here")
    args = parser.parse_args(argv)
    try:
        questions = load(args.dir)
        earlier = others()
    except BlindSetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    engines = build(sorted({q.schema for q in questions}, key=schemas.index), args.db_dir)
    try:
        problems = check(questions, engines, earlier)
    finally:
        for engine in engines.values():
            engine.dispose()
    tally = Counter((q.path.name, q.expect) for q in questions)
    for name in sorted({q.path.name for q in questions}):
        print(f"{name:28} {tally[name, 'answer']:4} answerable {tally[name, 'refuse']:3} refuse")
    for line in problems:
        print(f"PROBLEM {line}")
    print(f"{len(questions)} questions, {len(problems)} problem(s)")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    return run_check(argv, __doc__, HERE, load_set, lambda questions, engines, _: check_set(questions, engines),
                     build_engines, SCHEMAS)


if __name__ == "__main__":
    sys.exit(main())
