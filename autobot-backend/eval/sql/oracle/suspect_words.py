"""A question's words as the suspect checks read them (:mod:`eval.sql.oracle.suspect_columns`,
:mod:`eval.sql.oracle.suspect_literals`): where a schema name or a stored value is named in the question.

Matching is deliberately narrow, since a finding must rest on clear evidence: a question word names an
identifier's word when the two are equal once plural and verb endings are off (``capacities`` and
``capacity``), when the identifier's word of three letters or more begins the question's (``num`` in
``number``, ``indep`` in ``independence``), or when both are long words at most one slip apart by
rapidfuzz's ratio (``airilne`` for ``airline``). No synonyms: ``gender`` does not name ``sex``, so a
question that words a column differently finds nothing, rather than something wrong.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

FUZZY_MIN = 85.0
"""rapidfuzz ratio at or above which two long words are one word misspelt."""
FUZZY_LENGTH = 6
"""Shortest word compared by ratio: shorter ones differ in too few letters to tell a slip from another word."""
PREFIX_LENGTH = 3
"""Shortest identifier word read as an abbreviation of a question word it begins."""

FILLER = frozenset({"of", "the", "a", "an", "in", "by", "to", "for", "and", "or", "is", "at", "on", "with"})
"""Words of an identifier that name nothing on their own (``Num_of_Staff``)."""

_TOKEN = re.compile(r"[A-Za-z0-9]+|,|;")
_QUOTED = re.compile(r"""(?<![A-Za-z0-9])(['"\u2018\u201c])(.+?)(['"\u2019\u201d])(?![A-Za-z0-9])""")


@dataclass(frozen=True)
class Words:
    """A question split into words (lower case) and separators, with where it quotes a value."""

    text: str
    tokens: tuple[str, ...]
    """Lower-case words, ``,`` and ``;``, in order."""
    raw: tuple[str, ...]
    """The same words as the question spells them."""
    quoted: tuple[str, ...]
    """Every stretch of the question between quotes, lower case (``'Brig'`` -> ``brig``)."""
    cased: bool
    """The question starts with a capital: its writer minds case, so a word it writes in lower case is not
    a name."""
    joined: dict[str, list[int]] = field(default_factory=dict, compare=False, repr=False)
    """The stem of each two neighbouring words run together -> where the pair starts."""
    _spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict, compare=False, repr=False)

    def spans(self, word: str) -> list[tuple[int, int]]:
        """Where the question names ``word`` (an identifier's word), by :func:`same_word`: one question word,
        or two that the identifier runs together (``pet type`` for ``pettype``)."""
        known = self._spans.get(word)
        if known is not None:
            return known
        found = [(i, i) for i, t in enumerate(self.tokens) if same_word(t, word)]
        found += [(i, i + 1) for i in self.joined.get(stem(word.lower()), ())]
        self._spans[word] = sorted(found)
        return self._spans[word]


def words(question: str) -> Words:
    raw = tuple(_TOKEN.findall(question))
    quoted = tuple(m.group(2).strip().lower() for m in _QUOTED.finditer(question))
    first = next((ch for ch in question if ch.isalpha()), "")
    tokens = tuple(t.lower() for t in raw)
    joined: dict[str, list[int]] = {}
    for i, (a, b) in enumerate(itertools.pairwise(tokens)):
        if a.isalpha() and b.isalpha():
            joined.setdefault(stem(a + b), []).append(i)
    return Words(question, tokens, raw, quoted, first.isupper(), joined)


@lru_cache(maxsize=8192)
def split_name(name: str) -> tuple[str, ...]:
    """An identifier's words, lower case, fillers out: ``Num_of_Staff`` -> (num, staff); ``IndepYear`` ->
    (indep, year); a name of fillers alone keeps them."""
    spaced = re.sub(r"([a-z])([A-Z])|([A-Z])([A-Z][a-z])", lambda m: " ".join(g for g in m.groups() if g), name)
    parts = [p.lower() for p in re.split(r"[^A-Za-z0-9]+", spaced) if p]
    content = tuple(p for p in parts if p not in FILLER)
    return content or tuple(parts)


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """Plural and verb endings off: ``capacities`` -> ``capacity``, ``directed`` -> ``direct``,
    ``opening`` -> ``open``; a word of three letters or fewer, or with digits, as it is."""
    w = word.lower()
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    for end in ("ing", "ed"):
        if w.endswith(end) and len(w) - len(end) >= 4:
            w = w[: -len(end)]
            return w[:-1] if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls" else w
    if w.endswith(("sses", "ches", "shes", "xes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


@lru_cache(maxsize=65536)
def same_word(question_word: str, name_word: str) -> bool:
    """``question_word`` names ``name_word`` (an identifier's word): equal stems, an abbreviation, or a slip."""
    if question_word == name_word:
        return True
    if not question_word.isalnum() or not name_word.isalnum():
        return False
    q, n = stem(question_word), stem(name_word)
    if q == n:
        return True
    if len(n) >= PREFIX_LENGTH and n.isalpha() and q.startswith(n):
        return True  # num -> number, indep -> independence, open -> opening
    short = min(len(q), len(n))
    return short >= FUZZY_LENGTH and fuzz.ratio(q, n) >= FUZZY_MIN


def is_plural_of(question_word: str, word: str) -> bool:
    """``question_word`` is ``word`` with a plural ending (``republics`` of ``republic``)."""
    q, w = question_word.lower(), word.lower()
    return q != w and q in (w + "s", w + "es", (w[:-1] + "ies") if w.endswith("y") else "")
