"""Ordered means asked: whether a question's words state the order of its rows.

The grader marks the right rows in another order ``wrong``, so a question that asks for no order
("What was revenue in each month of 2024?") fails an answer that a reader would call right. The
built-in corpus states its order in every ordered question (a test holds it to this); on a user's
corpus an ordered question whose text has none of the phrases below is a lint (``unstated order``,
:mod:`eval.sql.corpus.lints`), not an error: the phrases are a heuristic, and the corpus is the
user's to word.

The phrases come in families, each read from real questions (Spider's dev set: ``test_order_words.py``
holds 40 of them, both ways): an order named after ``in`` ("in date order", "in month order", "in
reverse alphabetical order", "in the order of birth date"); a verb of ordering ("sort", "sorted by",
"order the results by", "ranked by", "arrange them by"); a direction ("ascending", "descending",
"alphabetically", "chronologically"); what comes first ("newest first", "most recent first"); a range
of values ("from highest to lowest", "from high to low", "oldest to newest", "A-Z"); and a listing by
date or time ("by date", "by air date"), unless grouped or broken down by it. Words that only look like
one are not read as one: "rank" as a noun ("the average rank of winners"), "ordered" as bought ("how
many customers ordered twice"), "in order to", "in each order", "the first name of the oldest player"
(a superlative picks rows; it says nothing of their order).
"""

from __future__ import annotations

import re

_DIRECTION = (
    r"(?:high|low|old|new|young|early|late|big|small|large|long|short|great|cheap|expensive|recent|top|bottom|best"
    r"|worst|first|last|most|least|a|z)(?:est|er)?"
)
"""A word that can open or close a range of values: "from high to low", "from the oldest to the youngest"."""
_IN_ORDER = (
    r"\w+ical|date|time|calendar|ascending|descending|increasing|decreasing|reversed?|rank(?:ing)?|month|year|day"
    r"|week|quarter|period|hour|id|name|size|age|value|price|score|length|numeric|lexicographic|same|natural"
)
"""What an order named after ``in`` may be made of: "in date order", "in reverse alphabetical order"."""
_SUPERLATIVE = r"(?:\w+est|(?:most|least)\s+\w+)"
_DETERMINER = r"(?:the|them|it|these|those|their|its|the\s+\w+|all(?:\s+the)?\s+\w+|each\s+\w+)"

ORDER_PHRASES = re.compile(
    rf"""\b(?:
        in\s+(?:the\s+|their\s+|its\s+)?order\s+of                        # in the order of birth date
      | in\s+(?:the\s+|their\s+|its\s+)?(?:(?:{_IN_ORDER})\s+){{1,3}}order  # in date order, in reverse alphabetical
      | sort(?:s|ed|ing)?(?!\s+of\b)                                      # sort, sorted by (not 'what sort of')
      | (?:ascending|descending)(?:ly)?
      | (?:chronologic|alphabetic|lexicographic|numeric)(?:al)?ly        # alphabetically
      | (?:chronological|alphabetical|lexicographical)                   # an alphabetical list
      | ordered\s+(?:by|from)                                             # ordered by ("ordered" alone is buying)
      | order(?:ing)?\s+(?:{_DETERMINER}\s+)?by                           # order the results by
      | rank(?:ed|ing)?\s+(?:{_DETERMINER}\s+)?(?:by|from)                # rank the stores by, ranked by
      | rank\s+(?:the|them|it|these|those|all|each|every)                 # rank the product categories ...
      | arrang(?:e|ed|ing)\s+(?:{_DETERMINER}\s+)?(?:by|in|from)          # arranged by date
      | {_SUPERLATIVE}\s+(?:\w+\s+)?first(?!\s+names?\b)                  # newest first, most recent first
      | from\s+(?:the\s+)?{_DIRECTION}\s+to\s+(?:the\s+)?{_DIRECTION}     # from high to low, from A to Z
      | {_SUPERLATIVE}\s+to\s+(?:the\s+)?{_SUPERLATIVE}                   # highest to lowest, oldest to newest
      | a\s*-\s*z | z\s*-\s*a                                             # A-Z
      | (?<!group\s)(?<!grouped\s)(?<!down\s)(?<!split\s)                 # by date, by air date (not grouped by
        by\s+(?!the\s+time\b)(?:the\s+|their\s+|its\s+)?(?:\w+\s+)?(?:date|time|timestamp)s?  # it, nor 'by the time')
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
"""Words that state an order; an ordered question's text must match."""


def states_order(text: str) -> bool:
    """Whether ``text`` says in what order its rows come (a heuristic: see the module docstring)."""
    return ORDER_PHRASES.search(text) is not None
