"""What a schema's comments say, in stems: a comment's content words and most specific word pairs,
the state a NULL stands for ("NULL while employed"), the event a date column dates ("Date the ticket
was resolved"), values explained in words ("'returned' (shipped and sent back)"), and what one row of a
table is ("One row per scheduled departure")."""

from __future__ import annotations

import re
from itertools import pairwise

from services.embedded.lexicon import stem, stems_of, tokenize
from services.embedded.vocabulary import GENERAL_WORDS
from services.schema_context import SchemaContext


def content_stems(text: str) -> frozenset[str]:
    first = re.split(r"(?<=[.;])\s|\[", text or "", maxsplit=1)[0]
    return frozenset(
        t.stem for t in tokenize(first) if t.kind == "word" and t.low not in GENERAL_WORDS and len(t.low) > 2
    )


_NULL_PHRASE = re.compile(r"\bnull\b[^.;\]]*?\b(while|when|if|for|until|unless|before|as long as)\s+([^.;,\]]+)", re.I)


_NEGATORS = ("not", "no", "never", "nobody", "none", "nothing", "yet")


STATE_WORDS = frozenset(
    """active open current ongoing live valid pending outstanding enabled available inactive
closed unpaid paid resolved unresolved""".split()
)
"""States a row is in; a comment that says NULL means one of them ("NULL while it is active") defines it."""


_EVENT = re.compile(r"\b(?:was|were|is|are|gets|got|get|been)\s+(?:first\s+|last\s+|actually\s+)?([a-z]+)", re.I)


def event_words(comment: str) -> frozenset[str]:
    """The verb a date column's comment dates ("Date the ticket was *resolved*")."""
    m = _EVENT.search(re.split(r"(?<=[.;])\s|\[", comment or "", maxsplit=1)[0])
    if m is None or m.group(1).lower() in GENERAL_WORDS or len(m.group(1)) < 4:
        return frozenset()
    return frozenset({stem(m.group(1).lower())})


def null_meaning(comment: str) -> dict[str, frozenset[str]]:
    """What the NULL state means, read from the comment: "NULL while employed" (NULL = employed),
    "NULL until shipped" / "NULL when not referred" (NULL = not shipped / not referred)."""
    null_means: set[str] = set()
    set_means: set[str] = set()
    for m in _NULL_PHRASE.finditer(comment or ""):
        clause = re.split(r"\b(?:who|which|that)\b", m.group(2), maxsplit=1)[-1]
        clause = re.split(r"\b(?:is|are|was|were|be)\b", clause)[-1]  # "unless the invoice is paid": paid
        words = [t for t in tokenize(clause) if t.kind == "word"]  # "for a customer who is still with us"
        negated = any(t.low in _NEGATORS for t in words) or m.group(1).lower() in ("until", "unless", "before")
        content = {
            t.stem
            for t in words
            if (t.low not in GENERAL_WORDS or t.low in STATE_WORDS) and t.low not in _NEGATORS and len(t.low) > 2
        }
        for s in list(content):
            if s.startswith("un") and len(s) > 4:  # "NULL when uninsured": insured is the other state
                (null_means if negated else set_means).add(s[2:])
        (set_means if negated else null_means).update(content)
    return {"null_means": frozenset(null_means), "set_means": frozenset(set_means)}


def comment_pairs(text: str) -> list[tuple[str, str]]:
    """Adjacent word pairs of a comment's first clause ("list price"), its most specific phrases."""
    first = re.split(r"(?<=[.;,:(])\s|\[", text or "", maxsplit=1)[0]
    words = [t for t in tokenize(first) if t.kind == "word"]
    return [
        (a.stem, b.stem)
        for a, b in pairwise(words)
        if len(a.low) > 2
        and len(b.low) > 2
        and b.low not in GENERAL_WORDS
        and (a.low not in GENERAL_WORDS or a.low in ("list", "unit", "total"))
    ]


_GLOSS = re.compile(r"'([^']+)'\s*\(([^)]*)\)")


def value_glosses(comment: str | None, values: tuple[str, ...]) -> list[tuple[str, tuple[str, str]]]:
    """``'returned' (shipped and sent back)``: the comment explains a value in words, so each pair of
    adjacent content words of the gloss ("sent back") names that value."""
    out = []
    for value, gloss in _GLOSS.findall(comment or ""):
        if value not in values:
            continue
        words = [t for t in tokenize(gloss) if t.kind == "word"]
        out += [
            (value, (a.stem, b.stem))
            for a, b in pairwise(words)
            if a.low not in _FUNCTION_WORDS and b.low not in _FUNCTION_WORDS
        ]
    return out


_FUNCTION_WORDS = frozenset("a an the of to in on at for from by with and or this that is are was be it its as".split())


def comment_words(text: str) -> frozenset[str]:
    first = re.split(r"(?<=[.;])\s|\[", text or "", maxsplit=1)[0]
    return frozenset(t.stem for t in tokenize(first) if t.kind == "word" and t.low not in _FUNCTION_WORDS)


_ROW_PER = re.compile(
    r"\b(?:(?:one\s+)?(?:row|record|entry)\s+(?:per|for\s+(?:each|every|one))|"
    r"^(?:unique\s+)?(?:identifier|id)\s+(?:of|for)\s+(?:the|one|a|an|each))\s+([a-z]+(?:'s)?)(?:\s+([a-z]+))?",
    re.I,
)


def row_noun(comment: str | None) -> str | None:
    """What one row is, from the table's comment ("One row per scheduled departure") or its key's
    ("Identifier of one scheduled departure"): the head noun, past a participle before it."""
    m = _ROW_PER.search(comment or "")
    if m is None:
        return None
    first, second = m.group(1).lower(), (m.group(2) or "").lower()
    head = (
        second if (first.endswith("ed") or first.endswith("'s")) and second and second not in _FUNCTION_WORDS else first
    )  # "one scheduled departure", "one member's booking"
    return None if head in GENERAL_WORDS or head in _FUNCTION_WORDS else stem(head)


def comment_vocabulary(schema: SchemaContext) -> frozenset[str]:
    comments = [info.comment for info in schema.tables] + [c.comment for info in schema.tables for c in info.columns]
    names = [s for info in schema.tables for c in info.columns for s in stems_of(c.name)]
    return frozenset(
        t.stem
        for text in comments
        for t in tokenize(re.sub(r"\[[^\]]*\]", " ", text or ""))
        if t.kind == "word" and len(t.low) > 1
    ) | frozenset(names)


def comment_head(text: str) -> str | None:
    """The first content word of a comment: usually the noun the column measures ("Units ...")."""
    for t in tokenize(text or ""):
        if t.kind == "word" and t.low not in GENERAL_WORDS and len(t.low) > 2:
            return t.stem
    return None
