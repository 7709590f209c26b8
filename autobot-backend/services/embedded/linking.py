"""Schema linking: which spans of the question name which tables, columns, values and metrics.

Spans of up to four words are looked up by stems in the schema index (names, parts of names,
comments, sampled values), then through general synonyms, nationality adjectives, shared
prefixes ("insured" / "insurance") and, for misspellings, rapidfuzz. Overlapping candidates are
settled greedily, longest and most direct first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from services.embedded.index import Concept, SchemaIndex
from services.embedded.lexicon import Token, stem, tokenize
from services.embedded.vocabulary import COMPARATORS, DEMONYMS, GENERAL_STEMS, GENERAL_WORDS, SYNONYMS, VALUE_ALIASES

_SYN = {stem(k): tuple(stem(v) for v in vs) for k, vs in SYNONYMS.items()}
_COMPARATOR_FIRST = {words[0] for words, _ in COMPARATORS}
_FUZZY_CUTOFF = 88.0
_PREFIX = 5


@dataclass(frozen=True)
class Link:
    start: int
    end: int
    """Token span ``[start, end)``."""
    concepts: tuple[Concept, ...]
    """What the span can mean, best first; several when a name is shared (``name``, ``price``)."""
    score: float
    via: str = "name"
    """``name``, ``synonym``, ``value``, ``prefix``, ``fuzzy``, ``comment`` or ``literal``."""
    negated: bool = False
    """The word carried its own negation ("uninsured", "unshipped")."""

    @property
    def kind(self) -> str:
        return self.concepts[0].kind

    @property
    def best(self) -> Concept:
        return self.concepts[0]

    def tables(self) -> set[str]:
        return {c.table for c in self.concepts if c.table}


@dataclass
class Linked:
    tokens: list[Token]
    links: list[Link]
    unlinked: list[int] = field(default_factory=list)
    """Indices of content words that name nothing in the schema and are not general vocabulary."""

    def link_at(self, i: int) -> Link | None:
        return next((lk for lk in self.links if lk.start <= i < lk.end), None)


def link(tokens: list[Token], index: SchemaIndex, skip: set[int]) -> Linked:
    """Link the question's spans to the schema; ``skip`` holds tokens already read as cues or dates."""
    cands: list[Link] = []
    n = len(tokens)
    for i in range(n):
        if i in skip:
            continue
        tok = tokens[i]
        if tok.kind == "quoted":
            cands.append(_quoted(i, tok, index))
            continue
        if tok.kind not in ("word", "number"):
            continue
        direct = False
        for length in range(1, index.max_phrase + 1):
            j = i + length
            if j > n or any(k in skip or tokens[k].kind not in ("word", "number") for k in range(i, j)):
                break
            found = _span(tokens, i, j, index)
            direct = direct or (length == 1 and bool(found))
            cands.extend(found)
        if tok.kind == "word":
            cands.extend(_single_extras(tokens, i, index, direct))
            cands.extend(_negated_value(tokens, i, index, skip))
    chosen: list[Link] = []
    taken: set[int] = set()
    for cand in sorted(cands, key=lambda c: (-c.score, c.start, c.end)):
        span = set(range(cand.start, cand.end))
        if span & taken:
            continue
        chosen.append(cand)
        taken |= span
    chosen.sort(key=lambda c: c.start)
    chosen = _merge_repeats(chosen)
    chosen = _defined_discounts(tokens, chosen, index, skip)
    taken = {i for lk in chosen for i in range(lk.start, lk.end)}
    unlinked = [
        i
        for i, t in enumerate(tokens)
        if i not in taken
        and i not in skip
        and t.kind == "word"
        and (_is_content(t) or names_attribute(tokens, i, chosen))
    ]
    return Linked(tokens, chosen, unlinked)


_DISCOUNTS = frozenset({stem("discount"), stem("markdown")})


def _defined_discounts(tokens: list[Token], links: list[Link], index: SchemaIndex, skip: set[int]) -> list[Link]:
    """ "discount" names data only when the question also names the catalogue price: then it is the gap
    between a price charged and the price of the same name one join away. Otherwise it stays unknown,
    for there is no discount column."""
    if not index.price_pairs:
        return links
    _name, charged, listed = index.price_pairs[0]
    if not any(c.kind == "column" and (c.table, c.column) == listed for lk in links for c in lk.concepts[:2]):
        return links
    taken = {i for lk in links for i in range(lk.start, lk.end)}
    extra = [
        Link(i, i + 1, (Concept("column", charged[0], charged[1], strength=0.6),), 0.6, "synonym")
        for i, t in enumerate(tokens)
        if t.stem in _DISCOUNTS and i not in taken and i not in skip
    ]
    return sorted(links + extra, key=lambda lk: lk.start) if extra else links


def _merge_repeats(links: list[Link]) -> list[Link]:
    """Adjacent spans that name the same table or column are one noun phrase ("customer companies",
    "satisfaction rating")."""
    out: list[Link] = []
    for lk in links:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.end == lk.start
            and lk.best.kind in ("table", "column")
            and (prev.best.kind, prev.best.table, prev.best.column) == (lk.best.kind, lk.best.table, lk.best.column)
        ):
            best = prev if prev.best.strength >= lk.best.strength else lk
            out[-1] = Link(
                prev.start, lk.end, best.concepts, prev.score + lk.score, best.via, prev.negated or lk.negated
            )
            continue
        out.append(lk)
    return out


def names_attribute(tokens: list[Token], i: int, chosen: list[Link]) -> bool:
    """ "phone numbers", "web address": a value followed by an identifier noun names an attribute
    (a phone number), not rows with that value."""
    if tokens[i].low not in ("number", "numbers", "address", "addresses", "id", "ids", "code", "codes"):
        return False
    if i + 1 < len(tokens) and tokens[i + 1].low == "of":
        return False
    return any(lk.end == i and lk.kind == "value" for lk in chosen)


_FORMAT = re.compile(r"(?:yyyy|yy|mm|dd|qn|q|ww|hh)(?:[-/ ](?:yyyy|yy|mm|dd|qn|q|ww|hh|q\d))*")


def literal_names(linked: Linked, index: SchemaIndex) -> Linked:
    """Capitalised words that name nothing: a name in a column whose values were only sampled
    ("orders of Olga Novak" when customer names are too many to list). Linked as a literal value of
    such a column, preferring a table the question mentions and values shaped like the words."""
    tokens = linked.tokens
    runs: list[list[int]] = []
    for i in linked.unlinked:
        tok = tokens[i]
        if _FORMAT.fullmatch(tok.low):
            continue  # "YYYY-MM": how to write a label, never a name
        if (
            not tok.text[:1].isupper()
            or (i == 0 and not (1 in linked.unlinked and tokens[1].text[:1].isupper()))
            or tok.low in ("i", "i'm", "i'd", "i've", "i'll")
        ):
            continue
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    if not runs:
        return linked
    mentioned = [c.table for lk in linked.links for c in lk.concepts[:1] if c.table]
    links = list(linked.links)
    taken: set[int] = set()
    for run in runs:
        text = " ".join(tokens[i].text for i in run)
        column = _open_column(index, mentioned, len(run))
        if column is None:
            continue
        links.append(
            Link(
                run[0],
                run[-1] + 1,
                (Concept("value", column.table, column.name, value=text),),
                float(len(run)),
                "literal",
            )
        )
        taken |= set(run)
    links.sort(key=lambda lk: lk.start)
    return Linked(tokens, links, [i for i in linked.unlinked if i not in taken])


def _open_column(index: SchemaIndex, mentioned: list[str], words: int):
    """A text column with sampled (not complete) values whose examples have ``words`` words."""
    best = None
    for col in index.columns():
        if col.kind != "text" or col.values_complete or not col.values:
            continue
        shaped = sum(1 for v in col.values if len(v.split()) == words and v[:1].isupper())
        if not shaped:
            continue
        score = (col.table in mentioned, index.tables[col.table].label == col.name, shaped)
        if best is None or score > best[0]:
            best = (score, col)
    return best[1] if best else None


def _is_general(low: str) -> bool:
    """A general word or a regular inflection of one ("months", "placed", "charges")."""
    if low in GENERAL_WORDS:
        return True
    if len(low) <= 4:
        return False
    bases = []
    if low.endswith("s"):
        bases += [low[:-1], low[:-2] if low.endswith("es") else ""]
    if low.endswith("ed"):
        bases += [low[:-2], low[:-1]]
    if low.endswith("ing"):
        bases += [low[:-3], low[:-3] + "e"]
    return any(b in GENERAL_WORDS for b in bases if b)


def _is_content(tok: Token) -> bool:
    if _is_general(tok.low) or len(tok.low) <= 2:
        return False
    if "-" in tok.low:
        return any(_is_content(t) for t in tokenize(tok.low.replace("-", " ")))
    return not tok.low.endswith("'t")


def _score(concepts: list[Concept], length: int, factor: float = 1.0) -> float:
    best = max(c.strength for c in concepts)
    bonus = 0.3 if concepts[0].kind in ("value", "metric") else 0.0
    return (length + bonus) * best * factor


def _ranked(concepts: list[Concept]) -> tuple[Concept, ...]:
    """Strongest first; among equals, the order given (closest spelling first), then by kind."""
    order = {"metric": 0, "value": 1, "column": 2, "table": 3}
    return tuple(sorted(concepts, key=lambda c: (-c.strength, order[c.kind])))


def _span(tokens: list[Token], i: int, j: int, index: SchemaIndex) -> list[Link]:
    words = tokens[i:j]
    keys = [tuple(t.stem for t in words), tuple(t.low for t in words)]
    if j - i == 2:
        keys.append((stem(words[0].low + words[1].low),))
        keys.append((words[0].stem + words[1].stem,))
        if words[0].kind == "number" or words[1].kind == "number":  # "spring 2023" for a value '2023-spring'
            keys += [(f"{words[1].low}-{words[0].low}",), (f"{words[0].low}-{words[1].low}",)]
    if j - i == 1 and "-" in words[0].low:
        keys.append((stem(words[0].low.replace("-", "")),))
        keys.append(tuple(stem(p) for p in words[0].low.split("-")))
    out: list[Link] = []
    surface = " ".join(t.low for t in words)
    for key in dict.fromkeys(keys):
        found = index.phrases.get(key)
        if found:
            # "engineers" is the value 'engineer' before it is 'Engineering': prefer the closer spelling
            found = sorted(
                found,
                key=lambda c: (
                    not (
                        c.kind == "value"
                        and c.value is not None
                        and c.value.lower() in (surface, surface[:-1], surface[:-2])
                    )
                ),
            )
            via = "value" if found[0].kind == "value" else "name"
            out.append(Link(i, j, _ranked(found), _score(found, j - i), via))
    if j - i == 1:
        # every alternative's meanings, in the synonym's order ("sales": revenue, else the orders)
        found = [c for alt in _SYN.get(words[0].stem, ()) for c in index.phrases.get((alt,), [])]
        if found:
            top = max(c.strength for c in found)
            out.append(Link(i, j, tuple(c for c in found if c.strength >= top - 0.3), _score(found, 1, 0.8), "synonym"))
    return out


def _single_extras(tokens: list[Token], i: int, index: SchemaIndex, direct: bool) -> list[Link]:
    tok = tokens[i]
    out: list[Link] = []
    country = DEMONYMS.get(tok.low) if tok.low != "us" or tok.text == "US" else None  # "us" the pronoun
    if country:
        found = [c for c in index.phrases.get(tuple(stem(w) for w in country.split()), []) if c.kind == "value"]
        if found:
            out.append(Link(i, i + 1, _ranked(found), 1.2, "value"))
    for alias in VALUE_ALIASES.get(tok.low, ()):
        found = [c for c in index.phrases.get((alias,), []) if c.kind == "value"]
        if found:
            out.append(Link(i, i + 1, _ranked(found), 1.2, "value"))
            break
    if tok.stem == "cost" and _followed_by_comparison(tokens, i):
        priced = index.phrases.get(("pric",))
        if priced:
            out.append(Link(i, i + 1, _ranked(priced), 0.9, "synonym"))
    if out or direct or tok.low in GENERAL_WORDS or len(tok.low) < _PREFIX:
        return out  # prefixes and misspellings only for words with no direct meaning
    if "-" in tok.low and not direct:
        parts = tuple(stem(p) for p in tok.low.split("-") if p)
        single = parts[:-1] + (stem(parts[-1][:-1]),) if parts and parts[-1].endswith("s") else parts  # "check-ins"
        found = (
            [c for key in (parts, single) for c in index.phrases.get(key, []) if c.kind in ("column", "table", "value")]
            if len(parts) > 1
            else []
        )
        if found:  # "check-ins" where a column is checked_in: the words of its name, hyphenated
            return [Link(i, i + 1, _ranked(found), 0.9, "name")]
        typed = _typed_value(parts, index)
        if typed:  # "a Team-plan subscription": the value 'Team' of the plan named after the hyphen
            return [Link(i, i + 1, _ranked(typed), 1.2, "value")]
    rest = tok.low[4:] if tok.low.startswith("non-") else tok.low[3:] if tok.low.startswith("non") else ""
    found = index.phrases.get((stem(rest),), []) if len(rest) > 3 else []
    if found:  # "non-members" where a comment says "NULL when not a member"
        return [Link(i, i + 1, _ranked(found), 0.7, "prefix", negated=True)]
    negated = tok.low.startswith("un") and len(tok.low) > 4
    for word, neg in ((tok.low, False), (tok.low[2:], True) if negated else (None, False)):
        if word is None:
            continue
        found = _prefix(word, index)
        if found:
            out.append(Link(i, i + 1, _ranked(found), 0.7, "prefix", negated=neg))
            break
    if not out and _is_content(tok) and len(tok.low) >= 6:
        found = _fuzzy(tok.low, index)
        if found:
            out.append(Link(i, i + 1, _ranked(found), 0.6, "fuzzy"))
    return out


_NOT = frozenset({"not", "never", "didn't", "don't", "doesn't", "wasn't", "weren't", "haven't", "hasn't"})


def _negated_value(tokens: list[Token], i: int, index: SchemaIndex, skip: set[int]) -> list[Link]:
    """ "passengers who *didn't show up*" where a value is 'no_show': the negated verb is the value, its
    negation part of it (so nothing else negates it)."""
    start = i - 1
    if start >= 1 and tokens[start].low == "not" and tokens[start - 1].low in ("did", "do", "does"):
        start -= 1
    if start < 0 or tokens[i - 1].low not in _NOT or any(k in skip for k in range(start, i + 1)):
        return []
    found = [c for c in index.phrases.get(("no", tokens[i].stem), []) if c.kind == "value"]
    if not found:
        return []
    end = i + 2 if i + 1 < len(tokens) and tokens[i + 1].low in ("up", "out", "in") else i + 1
    return [Link(start, end, _ranked(found), 1.5 * (end - start), "value")]


def _typed_value(parts: tuple[str, ...], index: SchemaIndex) -> list[Concept]:
    """``<value>-<its table or column>`` ("Team-plan", "gold-tier"): the value, where the words after
    the hyphen name the table or column that keeps it."""
    if len(parts) < 2:
        return []
    for cut in range(1, len(parts)):
        owners = {
            (c.table, c.column if c.kind == "column" else None)
            for c in index.phrases.get(parts[cut:], [])
            if c.kind in ("table", "column") and c.strength >= 0.6
        }
        values = [
            c
            for c in index.phrases.get(parts[:cut], [])
            if c.kind == "value" and ((c.table, c.column) in owners or (c.table, None) in owners)
        ]
        if values:
            return values
    return []


def _followed_by_comparison(tokens: list[Token], i: int) -> bool:
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return nxt is not None and (nxt.kind == "number" or nxt.low in _COMPARATOR_FIRST or nxt.low in ("between",))


def _prefix(word: str, index: SchemaIndex) -> list[Concept]:
    """Concepts whose single-word name shares a long prefix with ``word`` ("japanese" / "japan")."""
    head = word[:_PREFIX]
    best: list[Concept] = []
    best_len = 0
    for key, concepts in _single_keys(index):
        if not key.startswith(head) or key in GENERAL_STEMS:
            continue
        common = _shared_prefix(key, word)
        if common < max(_PREFIX, 0.7 * min(len(key), len(word))):
            continue
        if common > best_len:
            best, best_len = list(concepts), common
        elif common == best_len:
            best.extend(concepts)
    return [c for c in best if c.strength >= 0.6]


def _fuzzy(word: str, index: SchemaIndex) -> list[Concept]:
    keys = [k for k, _ in _single_keys(index)]
    match = process.extractOne(stem(word), keys, scorer=fuzz.ratio, score_cutoff=_FUZZY_CUTOFF)
    if match is None:
        return []
    return [c for c in dict(_single_keys(index))[match[0]] if c.strength >= 0.8]


def _single_keys(index: SchemaIndex) -> list[tuple[str, list[Concept]]]:
    cached = getattr(index, "_single_keys_cache", None)
    if cached is None:
        cached = [(k[0], v) for k, v in index.phrases.items() if len(k) == 1 and len(k[0]) >= 4]
        index._single_keys_cache = cached  # type: ignore[attr-defined]  # a lazy cache kept on the index it is of
    return cached


def _quoted(i: int, tok: Token, index: SchemaIndex) -> Link:
    for col in index.columns():
        for v in col.values:
            if v.lower() == tok.low:
                return Link(i, i + 1, (Concept("value", col.table, col.name, value=v),), 5.0, "value")
    return Link(i, i + 1, (Concept("value", value=tok.text, strength=0.5),), 0.5, "literal")


def _shared_prefix(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` have in common."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n
