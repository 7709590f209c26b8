"""Ordered means asked: an ``ordered: true`` question must say in its text what order it wants.

The grader marks the right rows in another order ``wrong``, so a question that asks for no order
("What was revenue in each month of 2024?") fails an answer that a reader would call right. The
built-in corpus states its order in every ordered question (a test holds it to this); for a user's
corpus, an ordered question whose text has none of the phrases below is a warning of the run, not
an error: the phrases are a heuristic, and the corpus is the user's to word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from eval.sql.corpus.questions import Question

ORDER_PHRASES = re.compile(
    r"""\b(?:
        in\s+(?:date|time|chronological|calendar|alphabetical|ascending|descending|reverse|rank|numerical
              |increasing|decreasing)\s+order          # in date order
      | (?:sort|sorted|rank|ranked|ascending|descending|chronologically)
      | ordered\s+(?:by|from)                          # ordered by revenue ("ordered" alone is buying)
      | order\s+(?:them\s+|it\s+)?by                   # order them by revenue
      | \w+est\s+(?:\w+\s+)?first                      # biggest first, oldest quarter first, best first
      | most\s+recent\s+first
      | from\s+(?:the\s+)?\w+est\s+to\s+(?:the\s+)?\w+est   # from highest to lowest
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
"""Words that state an order; an ordered question's text must match."""


def states_order(text: str) -> bool:
    return ORDER_PHRASES.search(text) is not None


def unstated_orders(questions: Iterable[Question]) -> list[str]:
    """A warning for each ``ordered: true`` question whose text names no order, with what to do."""
    return [
        f"{q.source}:{q.line}: {q.id}: ordered: true, but the question does not say in what order (no phrase "
        "like 'in date order' or 'biggest first'); an answer with the right rows in another order is wrong, "
        "so say the order in the question, or drop ordered: true"
        for q in questions
        if q.ordered and q.expect == "answer" and not states_order(q.question)
    ]
