"""Cues of amount and rank, read before schema linking: numeric thresholds ("more than 10"), aggregate
words ("how many", "average"), and superlatives ("the 3 highest", "cheapest")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.embedded.cue_words import COMPARATIVES, ORDINAL_RANKS, SPLIT_COMPARATIVE, SUPERLATIVES
from services.embedded.lexicon import NUMBER_WORDS, Token, parse_number
from services.embedded.vocabulary import AVG_WORDS, COMPARATORS, MAX_WORDS, MIN_WORDS, SUPERLATIVE_HINTS


@dataclass(frozen=True)
class Agg:
    func: str
    """``count``, ``sum``, ``avg``, ``min`` or ``max``."""
    start: int
    end: int


@dataclass(frozen=True)
class Threshold:
    op: str
    number: float | None
    """``None`` when the comparison is with the average ("more than the average customer")."""
    start: int
    end: int


@dataclass(frozen=True)
class Superlative:
    desc: bool
    start: int
    end: int
    limit: int | None
    explicit_limit: bool
    hint: str | None = None
    """A measure the word itself names ("cheapest" -> price), if any."""
    offset: int = 0
    """Rows skipped before the one asked for ("the second highest": 1)."""


def _number_at(tokens: list[Token], i: int) -> float | None:
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if tok.kind == "number" and re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", tok.low):
        return None
    return parse_number(tok) if tok.kind == "number" or tok.low in NUMBER_WORDS else None


def scan_thresholds(tokens: list[Token], lows: list[str], skip: set[int]) -> list[Threshold]:
    """Numeric thresholds ("more than 10", "at least 5", "between 3 and 7", "more X than the average"),
    left to right; their tokens are added to ``skip``."""
    out: list[Threshold] = []
    i, n = 0, len(lows)
    while i < n:
        matched = False
        for words, op in COMPARATORS:
            k = len(words)
            if words[0] in ("or",):
                continue
            if tuple(lows[i : i + k]) == words and i + k < n and i + k not in skip:
                j = i + k
                if lows[j] == "$":
                    j += 1
                number = _number_at(tokens, j)
                avg = j + (lows[j] == "the") if j < n else j
                if number is None and avg < n and lows[avg] in ("average", "avg", "mean"):
                    out.append(Threshold(op, None, i, avg + 1))  # "more than the average"
                    skip |= set(range(i, avg + 1))
                    i = avg + 1
                    matched = True
                    break
                if number is not None and tokens[j].low not in ("a", "single"):
                    out.append(Threshold(op, number, i, j + 1))
                    skip |= set(range(i, j + 1))
                    i = j + 1
                    matched = True
                    break
        if matched:
            continue
        if lows[i] in SPLIT_COMPARATIVE and i not in skip:
            # "more orders than the average": the noun sits between the comparative and 'than'
            for j in (i + 2, i + 3):
                avg = j + 1 + (j + 1 < n and lows[j + 1] == "the")
                if j < n and lows[j] == "than" and avg < n and lows[avg] in ("average", "avg", "mean"):
                    out.append(Threshold(SPLIT_COMPARATIVE[lows[i]], None, i, i + 1))
                    skip |= {i} | set(range(j, avg + 1))
                    break
        number = (
            _number_at(tokens, i)
            if i not in skip and (tokens[i].kind == "number" or lows[i] not in ("a", "single"))
            else None
        )
        if number is not None and i + 2 < n and lows[i + 1] == "or" and lows[i + 2] in ("more", "less", "fewer"):
            op = ">=" if lows[i + 2] == "more" else "<="
            out.append(Threshold(op, number, i, i + 3))
            skip |= {i, i + 1, i + 2}
            i += 3
            continue
        if number is not None and i + 2 < n and lows[i + 1] == "or" and lows[i + 2] in ("above", "over"):
            out.append(Threshold(">=", number, i, i + 3))
            skip |= {i, i + 1, i + 2}
            i += 3
            continue
        if lows[i] == "between" and i + 3 < n and i not in skip:
            a, b = _number_at(tokens, i + 1), _number_at(tokens, i + 3)
            if a is not None and b is not None and lows[i + 2] == "and":
                out.append(Threshold(">=", a, i, i + 4))
                out.append(Threshold("<=", b, i, i + 4))
                skip |= set(range(i, i + 4))
                i += 4
                continue
        i += 1
    return out


def scan_aggs(tokens: list[Token], lows: list[str], skip: set[int]) -> list[Agg]:
    """Aggregate words ("how many", "total", "average", "highest", "first"), outside ``skip``."""
    out: list[Agg] = []
    n = len(lows)
    for i, w in enumerate(lows):
        if i in skip:
            continue
        if w == "how" and i + 1 < n and lows[i + 1] == "many":
            out.append(Agg("count", i, i + 2))
        elif w == "how" and i + 1 < n and lows[i + 1] == "much":
            out.append(Agg("sum", i, i + 2))
        elif w == "number" and i + 1 < n and lows[i + 1] == "of":
            out.append(Agg("count", i, i + 2))
        elif (w in ("count", "counts", "tally") and not (i > 0 and lows[i - 1] in ("page", "word"))) or (
            w in ("volume", "volumes") and i > 0 and lows[i - 1] not in ("sales", "unit", "units")
        ):
            out.append(Agg("count", i, i + 1))
        elif (
            w in ("total", "sum", "combined")
            and not (i + 1 < n and lows[i + 1] == "number")
            and not (
                i > 0
                and lows[i - 1] == "in"
                and (
                    i + 1 >= n
                    or tokens[i + 1].kind == "punct"
                    or lows[i + 1] in ("for", "on", "in", "during", "from", "over", "across", "by")
                )
            )
        ):  # "paid in total for": adverbial
            out.append(Agg("sum", i, i + 1))
        elif w in AVG_WORDS:
            out.append(Agg("avg", i, i + 1))
        elif w in ("maximum", "max", "highest", "largest", "biggest", "greatest", "peak") or (
            w == "most" and i + 1 < n and lows[i + 1] == "expensive"
        ):
            out.append(Agg("max", i, i + 1))
        elif w in ("first", "earliest") and not (
            i + 1 < n and (tokens[i + 1].kind == "number" or lows[i + 1] in NUMBER_WORDS)
        ):
            out.append(Agg("min", i, i + 1))  # "first order date": only becomes a measure before a date
        elif w in ("last", "latest", "newest") and not (
            i + 1 < n and (tokens[i + 1].kind == "number" or lows[i + 1] in NUMBER_WORDS)
        ):
            out.append(Agg("max", i, i + 1))
        elif w in ("minimum", "min", "lowest", "smallest", "cheapest") or (
            w == "least" and i + 1 < n and lows[i + 1] == "expensive"
        ):
            out.append(Agg("min", i, i + 1))
    return out


def settle_extremes(aggs: list[Agg], superlatives: list[Superlative]) -> list[Agg]:
    """A max/min word is a ranking, not the aggregate, when it ranks a list ("the 3 highest paid") or
    qualifies another aggregate ("the highest total salary": rank by the total)."""
    ranked = {i for s in superlatives if s.explicit_limit for i in range(s.start, s.end)}
    keep = []
    for n, agg in enumerate(aggs):
        nxt = aggs[n + 1] if n + 1 < len(aggs) else None
        if agg.func in ("max", "min") and (agg.start in ranked or (nxt is not None and nxt.start == agg.end)):
            continue
        keep.append(agg)
    return keep


def scan_superlatives(tokens: list[Token], lows: list[str], skip: set[int]) -> list[Superlative]:
    """Superlatives ("the 3 highest", "top 5", "the second-highest", "cheapest"), outside ``skip``; their
    tokens are added to it."""
    out: list[Superlative] = []
    n = len(lows)
    i = 0
    while i < n:
        w = lows[i]
        if i in skip:
            i += 1
            continue
        if w in ("top", "bottom", "first", "last") and i + 1 < n:
            number = _number_at(tokens, i + 1)
            if number is not None and number == int(number) and i + 1 not in skip:
                desc = w in ("top", "first")
                end = i + 2
                hint_desc, hint, end = _following_superlative(lows, end, desc)
                out.append(Superlative(hint_desc, i, end, int(number), True, hint))
                skip |= set(range(i, end))
                i = end
                continue
            if w in ("top", "bottom") and lows[i + 1] not in ("of",):
                desc = w == "top"
                hint_desc, hint, end = _following_superlative(lows, i + 1, desc)
                out.append(Superlative(hint_desc, i, end, None, False, hint))
                skip |= set(range(i, end))
                i = end
                continue
        number = _number_at(tokens, i)
        if (
            number is not None
            and (tokens[i].kind == "number" or lows[i] not in ("a", "single", "one"))
            and i + 1 < n
            and lows[i + 1] in SUPERLATIVES
            and number == int(number)
            and 0 < number < 1000
        ):
            desc, hint, end = _following_superlative(lows, i + 1, True)
            out.append(Superlative(desc, i, end, int(number), True, hint))
            skip |= set(range(i, end))
            i = end
            continue
        parts = w.split("-")
        if len(parts) == 2 and parts[0] in ORDINAL_RANKS and parts[1] in SUPERLATIVES:
            # "the second-highest": one row, after the ones ranked above it
            desc, hint, _end = _following_superlative([parts[1]], 0, True)
            start = i - 1 if i > 0 and lows[i - 1] == "the" else i
            out.append(Superlative(desc, start, i + 1, 1, True, hint, offset=ORDINAL_RANKS[parts[0]] - 1))
            skip.add(i)
            i += 1
            continue
        if w in SUPERLATIVES and not (i + 1 < n and lows[i + 1] == "of"):
            desc, hint, end = _following_superlative(lows, i, True)
            start = i - 1 if i > 0 and lows[i - 1] == "the" else i
            rank = ORDINAL_RANKS.get(lows[i - 1]) if i > 0 else None
            if rank is not None:
                # "the second highest": one row, after the ones ranked above it
                start = i - 2 if i > 1 and lows[i - 2] == "the" else i - 1
                skip.add(i - 1)
                out.append(Superlative(desc, start, end, 1, True, hint, offset=rank - 1))
            else:
                out.append(Superlative(desc, start, end, None, False, hint))
            i = end
            continue
        i += 1
    return out


def _following_superlative(lows: list[str], i: int, default_desc: bool) -> tuple[bool, str | None, int]:
    """Direction and measure hint of a superlative at ``i`` ("most expensive", "cheapest", "least")."""
    if i >= len(lows):
        return default_desc, None, i
    w = lows[i]
    if w in ("most", "least") and i + 1 < len(lows) and lows[i + 1] in SUPERLATIVE_HINTS:
        d, hint = SUPERLATIVE_HINTS[lows[i + 1]]
        return (d if w == "most" else not d), hint, i + 2
    if w in SUPERLATIVE_HINTS:
        d, hint = SUPERLATIVE_HINTS[w]
        return d, hint, i + 1
    if w in MAX_WORDS:
        return True, None, i + 1
    if w in MIN_WORDS:
        return False, None, i + 1
    if w in COMPARATIVES:
        return COMPARATIVES[w], None, i + 1
    return default_desc, None, i
