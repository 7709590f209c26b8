"""What a corpus is made of, measured from its reference SQL (spec 4.2), and near-duplicate questions.

Tags of an answerable question, from the parse tree of its reference query (SQLite, sqlglot):

* ``join``: the query contains a join (any kind, a self-join included).
* ``window_or_cte``: it contains a window function (``OVER``) or a common table expression.
* ``ordered``: the question declares ``ordered: true`` and its outermost query has an ``ORDER BY``.
* ``period_comparison``: on a fixture with a period history (``retail_24m``), the query compares
  periods with each other, in one of three ways:

  1. ``LAG``/``LEAD`` over an ordered window, in a query that groups by a *period expression*;
  2. a self-join of period aggregates: one ``SELECT`` reads the same CTE twice (or more), and
     that CTE groups by a period expression;
  3. arithmetic across periods: a subtraction or division whose two operands filter on
     different periods (different literals compared with a date column or a period expression),
     e.g. ``SUM(CASE WHEN <2024> ...) - SUM(CASE WHEN <2023> ...)`` or ``(SELECT ... <Q4 2024>) -
     (SELECT ... <Q4 2023>)``.

  A *period expression* is a ``DATE`` column of the schema, or a non-aggregate expression over
  one (``strftime('%Y-%m', order_date)``); ``GROUP BY 1`` and ``GROUP BY alias`` are resolved to
  the projection they name.

A reference that does not parse gets no tags (the self-check reports it when it fails to run).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import sqlalchemy as sa
import sqlglot
from rapidfuzz import fuzz, process, utils
from sqlglot import exp

from eval.sql.corpus.questions import Corpus, Question
from eval.sql.fixtures.schema import TABLES
from services.readonly.parsed import statement_tree

TAGS = ("join", "window_or_cte", "period_comparison", "ordered")
PERIOD_FIXTURES = frozenset({"retail_24m"})
DATE_COLUMNS = frozenset(c.name for t in TABLES for c in t.columns if isinstance(c.type, sa.Date))

# token_sort_ratio on lower-cased, punctuation-free text: word order does not matter, so a
# question reworded by moving its clauses ("In 2024, how many ..." / "How many ... in 2024?")
# scores ~100, and one word swapped in a ten-word question (~10% of characters) still scores
# over 85. Distinct questions in one domain share vocabulary ("revenue", "orders", "2024") and
# score 40-75; 85 sits above that with a margin and below every rewording we want to catch
# (see test_composition.py for both sides).
NEAR_DUPLICATE_THRESHOLD = 85.0

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def parse_reference(question: Question) -> exp.Expr | None:
    if not question.sql:
        return None
    try:
        tree = statement_tree(question.sql, "sqlite")
    except sqlglot.errors.SqlglotError:
        return None
    return tree


def composition(question: Question) -> set[str]:
    """The composition tags of ``question`` (empty for refusals and unparseable references)."""
    tree = parse_reference(question) if question.expect == "answer" else None
    if tree is None:
        return set()
    tags = set()
    kinds = {type(node) for node in tree.walk()}  # one walk, where a find per tag walked a tree without it whole
    if any(issubclass(k, exp.Join) for k in kinds):
        tags.add("join")
    if any(issubclass(k, (exp.Window, exp.CTE)) for k in kinds):
        tags.add("window_or_cte")
    if question.ordered and tree.args.get("order"):
        tags.add("ordered")
    if question.fixture in PERIOD_FIXTURES and is_period_comparison(tree):
        tags.add("period_comparison")
    return tags


def corpus_composition(corpus: Corpus) -> dict[str, int]:
    """Counts the gate holds a corpus to: answerable, must_refuse, controls, one per tag, and one per
    refusal-battery stratum (``refuse:<stratum>``, ``control:<stratum>``) so no arm can quietly thin out."""
    counts = Counter({tag: 0 for tag in TAGS})
    for q in corpus.questions:
        counts.update(composition(q))
        if q.expect == "refuse":
            counts[f"refuse:{q.stratum}"] += 1
        elif q.stratum.startswith("control_"):
            counts[f"control:{q.stratum}"] += 1
    answerable = [q for q in corpus.questions if q.expect == "answer"]
    return {
        "answerable": len(answerable),
        "must_refuse": corpus.size - len(answerable),
        "controls": sum(q.stratum.startswith("control_") for q in answerable),
        **dict(sorted(counts.items())),
    }


def is_date_derived(node: exp.Expr) -> bool:
    return not node.find(exp.AggFunc) and any(c.name in DATE_COLUMNS for c in _columns(node))


def _columns(node: exp.Expr) -> Iterable[exp.Column]:
    return [node] if isinstance(node, exp.Column) else node.find_all(exp.Column)


def _group_keys(select: exp.Select) -> list[exp.Expr]:
    group = select.args.get("group")
    if not group:
        return []
    projections = select.expressions
    aliases = {p.alias: p.this for p in projections if isinstance(p, exp.Alias)}
    keys = []
    for key in group.expressions:
        if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(projections):
            key = projections[int(key.this) - 1]
        elif isinstance(key, exp.Column) and not key.table and key.name in aliases:
            key = aliases[key.name]
        keys.append(key.this if isinstance(key, exp.Alias) else key)
    return keys


def groups_by_period(node: exp.Expr) -> bool:
    return any(is_date_derived(k) for s in node.find_all(exp.Select) for k in _group_keys(s))


def _period_literals(node: exp.Expr) -> frozenset[str]:
    """String literals that ``node`` compares with a date column or period expression."""
    found: set[str] = set()
    for pred in node.find_all(*_COMPARISONS, exp.Between, exp.In):
        subject = pred.this
        others = (
            [pred.expression]
            if isinstance(pred, _COMPARISONS)
            else [pred.args.get("low"), pred.args.get("high")]
            if isinstance(pred, exp.Between)
            else pred.expressions
        )
        if isinstance(pred, _COMPARISONS) and not is_date_derived(subject) and is_date_derived(pred.expression):
            subject, others = pred.expression, [pred.this]
        if subject is not None and is_date_derived(subject):
            found |= {
                lit.this
                for o in others
                if o is not None
                for lit in ([o] if isinstance(o, exp.Literal) else o.find_all(exp.Literal))
                if lit.is_string
            }
    return frozenset(found)


def _lag_over_periods(tree: exp.Expr) -> bool:
    lagged = any(isinstance(w.this, (exp.Lag, exp.Lead)) and w.args.get("order") for w in tree.find_all(exp.Window))
    return lagged and groups_by_period(tree)


def _self_join_of_periods(tree: exp.Expr) -> bool:
    period_ctes = {cte.alias for cte in tree.find_all(exp.CTE) if groups_by_period(cte.this)}
    for select in tree.find_all(exp.Select):
        from_ = select.args.get("from_") or select.args.get("from")  # renamed in sqlglot 26
        sources = [from_.this] if from_ else []
        sources += [j.this for j in select.args.get("joins") or []]
        names = Counter(s.name for s in sources if isinstance(s, exp.Table) and s.name in period_ctes)
        if any(n >= 2 for n in names.values()):
            return True
    return False


def _arithmetic_across_periods(tree: exp.Expr) -> bool:
    for node in tree.find_all(exp.Sub, exp.Div):
        left, right = _period_literals(node.this), _period_literals(node.expression)
        if left and right and left != right:
            return True
    return False


def is_period_comparison(tree: exp.Expr) -> bool:
    return _lag_over_periods(tree) or _self_join_of_periods(tree) or _arithmetic_across_periods(tree)


def near_duplicates(
    questions: Iterable[Question], threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> list[tuple[str, str, float]]:
    """Pairs of question ids whose texts score at least ``threshold`` (token_sort_ratio), highest first, then in
    corpus order (the earlier question's, then the later one's): :func:`earlier_twins`, listed whole."""
    qs = list(questions)
    at = {q.id: i for i, q in enumerate(qs)}
    pairs = [
        (first, second, score)
        for second, (earlier, _) in earlier_twins(qs, threshold, keep=len(qs)).items()
        for first, score in earlier
    ]
    return sorted(pairs, key=lambda p: (-p[2], at[p[0]], at[p[1]]))


def earlier_twins(
    questions: Sequence[Question], threshold: float = NEAR_DUPLICATE_THRESHOLD, *, keep: int = 6
) -> dict[str, tuple[list[tuple[str, float]], int]]:
    """Question id -> its first ``keep`` earlier near-duplicates (id, score), highest score first and then in corpus
    order, and how many it has. The score is rapidfuzz's token_sort_ratio: the ratio of the two texts with their
    words sorted (each text's words sorted once here, each distinct text compared with the ones after it in one
    call into rapidfuzz's C loop: a run lints every corpus it grades).

    Compared once per distinct text, not once per question: a corpus that repeats its questions
    (a benchmark's paraphrases, a corpus built from copies) compares its distinct texts, and each question takes
    the earlier questions of every text near its own, merged in order and counted, never listed whole (a question
    asked n times has n - 1 earlier twins: listed, n(n - 1)/2 of them)."""
    words = [" ".join(sorted(utils.default_process(q.question).split())) for q in questions]
    members: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        members.setdefault(w, []).append(i)
    distinct = list(members)
    near: dict[str, list[tuple[str, float]]] = {w: [(w, 100.0)] for w in distinct}
    for a, w in enumerate(distinct):
        later = process.extract(
            w, distinct[a + 1 :], scorer=fuzz.ratio, processor=None, score_cutoff=threshold, limit=None
        )
        for v, score, _ in later:
            if score:
                near[w].append((v, score))
                near[v].append((w, score))
    out: dict[str, tuple[list[tuple[str, float]], int]] = {}
    for i, q in enumerate(questions):
        runs = [(score, members[v], bisect.bisect_left(members[v], i)) for v, score in near[words[i]]]
        count = sum(before for _, _, before in runs)
        if count:
            merged = heapq.merge(*(_ranked(score, at[:before]) for score, at, before in runs if before))
            out[q.id] = ([(questions[j].id, -negative) for negative, j in itertools.islice(merged, keep)], count)
    return out


def _ranked(score: float, earlier: list[int]) -> Iterator[tuple[float, int]]:
    """One text's earlier questions as the merge ranks them: the higher score first, then corpus order."""
    return ((-score, j) for j in earlier)
