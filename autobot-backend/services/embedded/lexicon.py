"""Words: tokenizing a question, reducing words to comparable stems, numbers and month names, and
spelling out analysts' shorthand. The general analytic vocabulary is :mod:`.vocabulary`.

Stems are for comparison only: the question's words and the schema's names go through the same
:func:`stem`, so "shipped", "shipping" and ``shipped_date`` meet at ``ship``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from services.embedded.english import CARDINALS


@dataclass(frozen=True)
class Token:
    text: str
    """As written (values are matched case-sensitively against the data)."""
    low: str
    stem: str
    kind: str
    """``word``, ``number``, ``quoted`` or ``punct``."""
    start: int
    end: int


_TOKEN_RE = re.compile(
    r"""(?P<quoted>"[^"]+"|'[^']+'(?=[\s,.?!;:)]|$)|\u201c[^\u201d]+\u201d)"""
    r"|(?P<code>\d{4}-[A-Za-z]+\b)"
    r"|(?P<iso>\d{4}-\d{2}(?:-\d{2})?(?![\d-]))"
    r"|(?P<number>\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?(?:k\b)?)"
    r"|(?P<word>[A-Za-z][A-Za-z0-9_]*(?:['\u2019][a-z]+)?(?:-[A-Za-z0-9]+)*)"
    r"|(?P<punct>[^\sA-Za-z0-9])"
)


def tokenize(text: str) -> list[Token]:
    """Split a question into tokens; hyphenated words stay whole ("month-over-month").

    Example:
        >>> [t.stem for t in tokenize("Orders shipped in 2024?")]
        ['order', 'ship', 'in', '2024', '?']
    """
    out: list[Token] = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup or "punct"
        raw = m.group(0)
        if kind == "quoted":
            inner = raw[1:-1]
            out.append(Token(inner, inner.lower(), inner.lower(), "quoted", m.start(), m.end()))
        elif kind == "code":
            out.append(Token(raw, raw.lower(), raw.lower(), "word", m.start(), m.end()))  # "2023-fall": one name
        elif kind in ("number", "iso"):
            out.append(Token(raw, raw.lower(), raw.lower(), "number", m.start(), m.end()))
        elif kind == "word":
            low = raw.lower().replace("\u2019", "'")
            if low.endswith("'s"):
                low = low[:-2]
            out.append(Token(raw, low, stem(low), "word", m.start(), m.end()))
        else:
            out.append(Token(raw, raw, raw, "punct", m.start(), m.end()))
    return out


def parse_number(token: Token) -> float | None:
    """``$1,200`` -> 1200.0, ``5k`` -> 5000.0, ``12%`` -> 12.0; a number word -> its value."""
    if token.kind == "word":
        return float(NUMBER_WORDS[token.low]) if token.low in NUMBER_WORDS else None
    if token.kind != "number":
        return None
    raw = token.low.lstrip("$").rstrip("%").replace(",", "")
    scale = 1000.0 if raw.endswith("k") else 1.0
    try:
        return float(raw.rstrip("k")) * scale
    except ValueError:
        return None


def whole_number(token: Token) -> int:
    """The whole number of a token known to be a number or a number word ("5", "five")."""
    value = parse_number(token)
    assert value is not None, token
    return int(value)


_IRREGULAR = {
    "people": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    "bought": "buy",
    "sold": "sell",
    "spent": "spend",
    "made": "make",
    "written": "write",
    "wrote": "write",
    "lent": "lend",
    "paid": "pay",
    "born": "birth",
    "gave": "give",
    "given": "give",
    "took": "take",
    "taken": "take",
    "came": "come",
    "brought": "bring",
    "held": "hold",
    "kept": "keep",
    "sent": "send",
    "won": "win",
    "lost": "lose",
    "seen": "see",
    "saw": "see",
    "ran": "run",
    "data": "data",
    "series": "series",
    "news": "news",
    "status": "status",
    "analysis": "analysis",
    "bus": "bus",
    "plus": "plus",
    "address": "address",
    "was": "be",
    "were": "be",
    "is": "be",
    "are": "be",
    "been": "be",
    "has": "have",
    "had": "have",
    "does": "do",
    "did": "do",
    "done": "do",
    "this": "this",
    "its": "its",
    "us": "us",
    "his": "his",
    "signups": "signup",
    "signup": "signup",
    "media": "medium",
    "criteria": "criterion",
    "month": "month",
    "months": "month",
}
_DOUBLE_OK = frozenset("lsz")
_VOWELS = frozenset("aeiouy")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stemmer: plural and verb endings off, consistently for question and schema.

    Example:
        >>> [stem(w) for w in ["categories", "shipped", "referred", "ordering", "prices", "boxes"]]
        ['category', 'ship', 'refer', 'order', 'pric', 'box']
    """
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if "-" in w:
        return "-".join(stem(p) for p in w.split("-"))
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses") or w.endswith(("ches", "shes", "xes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ment") and len(w) > 7:
        w = w[:-4]  # shipment -> ship, payment -> pay
    if w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ed") and len(w) > 4:
        w = _undouble(w[:-2])
    elif w.endswith("ing") and len(w) > 5:
        w = _undouble(w[:-3])
    if w.endswith("e") and len(w) > 3 and not w.endswith(("ee", "ie")):
        w = w[:-1]
    return w


def _undouble(w: str) -> str:
    if len(w) > 2 and w[-1] == w[-2] and w[-1] not in _VOWELS and w[-1] not in _DOUBLE_OK:
        return w[:-1]
    if len(w) > 5 and w.endswith("ll") and w[-3] in _VOWELS and w[-4] not in _VOWELS:
        return w[:-1]  # cancelled -> cancel, labelled -> label
    return w


def split_identifier(name: str) -> list[str]:
    """``order_items`` -> ['order', 'items']; ``signupDate`` -> ['signup', 'date']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [p.lower() for p in re.split(r"[^A-Za-z0-9]+", spaced) if p]


def stems_of(text: str) -> tuple[str, ...]:
    return tuple(stem(p) for p in split_identifier(text))


NUMBER_WORDS = {**CARDINALS, "a": 1, "single": 1}
"""Tokens read as a number (``a single order``): the cardinals, and the article and ``single`` as one."""

CALENDAR_UNITS = {
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "quarter": "quarter",
    "quarters": "quarter",
    "year": "year",
    "years": "year",
}
"""A calendar unit's words, singular and plural -> the unit; readers add their own (a decade, a date)."""

MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9

_MONTH_NAMES = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_ABBREVIATIONS = [
    (re.compile(r"\baov\b", re.I), "average order value"),
    (re.compile(r"\b(?:ytd|year[- ]to[- ]date)\b", re.I), "this year"),
    (re.compile(r"\b(?:qtd|quarter[- ]to[- ]date)\b", re.I), "this quarter"),
    (re.compile(r"\b(?:mtd|month[- ]to[- ]date)\b", re.I), "this month"),
    (re.compile(r"#\s*of\b|\bno\.\s*of\b", re.I), "number of"),
    # "December 1st", "the 3rd of March": a day of the month is a number
    (re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b(?=\s+(?:of\s+)?(?:" + _MONTH_NAMES + r")\b)", re.I), r"\1"),
    (re.compile(r"\b(" + _MONTH_NAMES + r")\s+(\d{1,2})(?:st|nd|rd|th)\b", re.I), r"\1 \2"),
    # "the biggest-spending customer": a superlative and the verb that names the measure
    (
        re.compile(
            r"\b(biggest|highest|largest|lowest|smallest|heaviest|lightest)-(spending|earning|paying|grossing|"
            r"ordering|buying)\b",
            re.I,
        ),
        r"\1 \2",
    ),
    # "the 2010s": the ten years of a decade
    (re.compile(r"\b(?:the\s+)?((?:19|20)\d)0'?s\b", re.I), r"between \g<1>0 and \g<1>9"),
    (re.compile(r"\bavg\.", re.I), "average"),
    # an example of a label's format is not a period to filter on: "(like 2024-Q1)", "2023-Q1 style"
    (
        re.compile(
            r"\(?\b(?:like|e\.g\.?|eg|such\s+as|for\s+example|say)[\s,]+\d{4}-?Q[1-4]\b\)?"
            r"|\(?\b\d{4}-Q[1-4](?:\s*(?:etc\.?|style|format|and\s+so\s+on))\)?"
            r"|\(?\b\d{4}-Q[1-4]\s*,\s*\d{4}-Q[1-4]\s*(?:,\s*\.\.\.|etc\.?)\)?",
            re.I,
        ),
        " ",
    ),
]


def expand(text: str) -> str:
    """Spell out analysts' shorthand ("AOV", "YTD", "# of") before reading the question."""
    for pattern, words in _ABBREVIATIONS:
        text = pattern.sub(words, text)
    return text
