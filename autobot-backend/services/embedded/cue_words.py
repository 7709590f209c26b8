"""The word tables and phrase patterns the cue scanner (:mod:`.cues`) reads with: time units, period
comparisons, sort phrases, comparatives and superlatives, idioms. General English and analytic
vocabulary only."""

from __future__ import annotations

import re

from services.embedded.lexicon import CALENDAR_UNITS, stem
from services.embedded.vocabulary import MAX_WORDS, MIN_WORDS, SUPERLATIVE_HINTS

UNIT_WORDS = {**CALENDAR_UNITS, "decade": "decade", "decades": "decade"}
SAME_PERIOD = re.compile(
    r"\b(?:same\s+(?:day|week|month|quarter|period)\s+(?:of\s+|in\s+)?(?:the\s+)?(?:previous|prior|last|preceding)"
    r"\s+year|(?:a|one|the)\s+year\s+(?:earlier|before|ago|prior)|(?:previous|prior|last|preceding)\s+year's)\b"
)
DOWN = {
    stem(w)
    for w in (
        "drop",
        "decrease",
        "decline",
        "fall",
        "fell",
        "shrink",
        "shrank",
        "loss",
        "lose",
        "dip",
        "slump",
        "worst",
    )
}
HOW_MUCH_MORE = re.compile(
    r"\bhow\s+(?:much|many)\s+(?:more|less|fewer|higher|lower|bigger|smaller)\b"
    r"(?=.*\bthan\b)"
)
BY_HOW_MUCH = re.compile(r"\bby\s+how\s+(?:much|many)\b")
AGAINST_PREVIOUS = re.compile(
    r"\b(?:against|versus|vs|compared\s+(?:with|to)|relative\s+to)\s+(?:the\s+)?(?:(?:previous|prior|preceding|last)"
    r"\s+(?:day|week|month|quarter|year)|(?:day|week|month|quarter|year)\s+before)\b"
)
HIGH = {
    "highest",
    "largest",
    "biggest",
    "most",
    "greatest",
    "newest",
    "latest",
    "busiest",
    "heaviest",
    "longest",
    "richest",
    "strongest",
}
SORT_PHRASE = re.compile(
    r"\b(?:from\s+(?:the\s+)?)?(highest|largest|biggest|most|greatest|lowest|smallest|least|fewest|newest|latest|"
    r"oldest|earliest)\s+to\s+(?:the\s+)?(lowest|smallest|least|fewest|highest|largest|biggest|most|greatest|oldest|"
    r"earliest|newest|latest)\b|\b(descending|ascending)\b|\bin\s+(desc|asc)\w*\s+order\b"
    r"|\b(highest|largest|biggest|most|greatest|best|top|lowest|smallest|least|fewest|worst|newest|latest|oldest|"
    r"earliest|cheapest|busiest|quietest|heaviest|lightest|longest|shortest|richest|poorest|strongest|weakest)"
    r"\s+(?:(?:day|week|month|quarter|year|period|one|value|amount|figure)s?\s+)?first\b"
    r"|\bin\s+(chronological|date|time|calendar|day|week|month|quarter|year|period|term)\s+order\b"
    r"|\b(chronologically|chronological(?=\s+order))\b",
    re.I,
)
SPLIT_COMPARATIVE = {
    "more": ">",
    "fewer": "<",
    "less": "<",
    "higher": ">",
    "lower": "<",
    "bigger": ">",
    "larger": ">",
    "smaller": "<",
}
ORDINAL_RANKS = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}
IDIOMS = {
    ("account", "for"),
    ("accounts", "for"),
    ("accounted", "for"),
    ("make", "up"),
    ("makes", "up"),
    ("made", "up"),
    ("take", "place"),
    ("took", "place"),
    ("takes", "place"),
}
AGAINST = {"compared", "compare", "vs", "versus", "than", "from", "to", "with", "over", "against", "on"}
GRAIN_LEAD = {"per", "by", "each", "every", "a", "an", "for", "over", "which", "what"}
COMPARATIVES = {
    "more": True,
    "higher": True,
    "bigger": True,
    "larger": True,
    "greater": True,
    "fewer": False,
    "less": False,
    "lower": False,
    "smaller": False,
}
SUPERLATIVES = (MAX_WORDS | MIN_WORDS | set(SUPERLATIVE_HINTS) | set(COMPARATIVES)) - {"top", "bottom", "overall"}
