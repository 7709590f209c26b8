"""The lints of a corpus's questions (:mod:`eval.sql.model.lints`): drafts, near-duplicates, unstated orders.

* ``draft``: written by ``python -m eval.sql.init`` and not yet checked by a person (never asked).
* ``near-duplicate``: two questions whose texts score at least
  :data:`~eval.sql.corpus.composition.NEAR_DUPLICATE_THRESHOLD` (rapidfuzz ``token_sort_ratio``): one
  question asked twice counts twice. One lint on each question that has an earlier twin, naming the closest
  (the first of equals) and counting the others: a question asked n times has n - 1 lints, not a lint per pair
  (n(n - 1)/2: 333k rows for a corpus of 10,000 built from 148 questions).
* ``unstated order``: ``ordered: true`` on a question whose words state no order
  (:mod:`eval.sql.corpus.order_words`), where the reference returns more than one row (the order of one
  row cannot be wrong: "which customer spent the most?" needs no "biggest first"). Not on a question whose
  ``ordered`` follows its reference's ORDER BY by convention (``ordered_from: sql``, written by
  ``bench_import``): there ``ordered: true`` is the benchmark's rule, not a claim the words make.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from eval.sql.corpus.composition import NEAR_DUPLICATE_THRESHOLD, earlier_twins
from eval.sql.corpus.order_words import states_order
from eval.sql.corpus.questions import Question
from eval.sql.model.lints import DRAFT, NEAR_DUPLICATE, UNSTATED_ORDER, Lint

TWINS_NAMED = 5
"""Other earlier twins of a near-duplicate named in its detail (the rest counted)."""
DRAFT_DETAIL = "check and edit it, then remove `draft: true`"
UNSTATED_ORDER_DETAIL = (
    "ordered: true, but the question does not say in what order (no phrase like 'in date order' or 'biggest "
    "first'); an answer with the right rows in another order is wrong, so say the order in the question, or drop "
    "ordered: true"
)


def where(q: Question) -> str:
    return f"{q.source}:{q.line}"


def corpus_lints(questions: Sequence[Question], one_row: Collection[str] = ()) -> list[Lint]:
    """Every lint of ``questions``, in corpus order (a question's own before a later one's).

    ``one_row``: ids of questions whose reference returned at most one row on every database it ran on (the
    self-check's results), which an unstated order cannot mislead."""
    index = {q.id: i for i, q in enumerate(questions)}
    found: list[tuple[int, Lint]] = []
    for i, q in enumerate(questions):
        if q.draft:
            found.append((i, Lint(q.id, DRAFT, DRAFT_DETAIL, where(q))))
        if unstated_order(q) and q.id not in one_row:
            found.append((i, Lint(q.id, UNSTATED_ORDER, UNSTATED_ORDER_DETAIL, where(q))))
    for second, (earlier, count) in earlier_twins(questions, keep=TWINS_NAMED + 1).items():
        (first, score), more = earlier[0], [qid for qid, _ in earlier[1:]]
        a, b = questions[index[first]], questions[index[second]]
        others = (
            f"; and {count - 1} more earlier: {', '.join(repr(m) for m in more)}"
            + (", ..." if count - 1 > TWINS_NAMED else "")
            if count > 1
            else ""
        )
        detail = (
            f"nearly the same text as {a.id!r} ({where(a)}; similarity {score:.0f}, threshold "
            f"{NEAR_DUPLICATE_THRESHOLD:.0f}){others}: one question asked twice counts twice; ask something else or "
            "delete one"
        )
        found.append((index[second], Lint(b.id, NEAR_DUPLICATE, detail, where(b))))
    return [lint for _, lint in sorted(found, key=lambda item: item[0])]


def unstated_order(q: Question) -> bool:
    """``ordered: true`` claimed by the question's words (not by a benchmark's convention), which state none."""
    return q.ordered and q.expect == "answer" and q.ordered_from == "question" and not states_order(q.question)
