"""Analytic cue words, read before schema linking: aggregates, groupings, grains, rankings,
comparisons, numeric thresholds and date phrases.

The tokens a cue covers are withheld from linking, so "per month" is a grain, not the word
"month" looked up among the columns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.embedded.cue_amounts import (
    Agg,
    Superlative,
    Threshold,
    scan_aggs,
    scan_superlatives,
    scan_thresholds,
    settle_extremes,
)
from services.embedded.cue_words import (
    AGAINST,
    AGAINST_PREVIOUS,
    BY_HOW_MUCH,
    COMPARATIVES,
    DOWN,
    GRAIN_LEAD,
    HIGH,
    HOW_MUCH_MORE,
    IDIOMS,
    SAME_PERIOD,
    SORT_PHRASE,
    SUPERLATIVES,
    UNIT_WORDS,
)
from services.embedded.dates import DateSpec, find_dates
from services.embedded.lexicon import NUMBER_WORDS, Token, stem, whole_number
from services.embedded.vocabulary import (
    ADVERB_GRAINS,
    CHANGE_WORDS,
    INCLUDE_ZERO,
    PCT_CHANGE_WORDS,
    PERCENT_WORDS,
    PERIOD_ABBREV,
    TIME_UNITS,
)


@dataclass
class Cues:
    dates: list[DateSpec] = field(default_factory=list)
    grains: list[tuple[str, int, int]] = field(default_factory=list)
    """(unit, start, end) of "monthly", "per quarter", "each year"..."""
    running: bool = False
    moving: tuple[int, str] | None = None
    """(width, function) of "3-month moving average"."""
    compare_unit: str | None = None
    compare_pct: bool = False
    change: bool = False
    change_down: bool = False
    """The change asked about is a fall ("dropped the most"): rank by the most negative."""
    same_unit: str | None = None
    """The unit a change is compared with a year before in ("compared with the same month in 2023")."""
    aggs: list[Agg] = field(default_factory=list)
    thresholds: list[Threshold] = field(default_factory=list)
    superlatives: list[Superlative] = field(default_factory=list)
    percent: bool = False
    sort: str | None = None
    """``asc`` or ``desc`` when the question asks for an order ("from highest to lowest")."""
    grain_limit: int | None = None
    """"which three months ...": how many periods the answer names."""
    sort_span: set[int] = field(default_factory=set)
    """The tokens of the sort phrase."""
    on_average: bool = False
    """"... on average": the count or amount asked for is averaged over the rows it is counted for."""
    include_zero: bool = False
    distinct: bool = False
    skip: set[int] = field(default_factory=set)

    def date_tokens(self) -> set[int]:
        return {i for d in self.dates for i in range(d.start, d.end)}


def release_names(cues: Cues, tokens: list[Token], index) -> Cues:
    """A grain word that begins a column's full name is the name ("the *annual budget*", "monthly_fee"),
    not a period grouping; a percent word that ends one ("the *hourly rate*") is not a share asked for."""

    def names_column(a: int, b: int) -> bool:
        pair = (tokens[a].stem, tokens[b].stem)
        return (
            a >= 0
            and b < len(tokens)
            and any(c.kind == "column" and c.strength >= 1.0 for c in index.phrases.get(pair, []))
        )

    for unit, start, end in list(cues.grains):
        if end != start + 1 or end >= len(tokens):
            continue
        if names_column(start, end):
            cues.grains.remove((unit, start, end))
            cues.skip.discard(start)
    for d in list(cues.dates):
        pair = _value_with_year(tokens, d.start, index) if d.end == d.start + 1 and not cues.change else None
        if pair is not None and not any(i in cues.skip for i in pair if i != d.start):
            cues.dates.remove(d)  # "spring 2023" where a term is '2023-spring': the value, not the year
            cues.skip.discard(d.start)
    released = {i for i in cues.skip if tokens[i].low in PERCENT_WORDS and i > 0 and names_column(i - 1, i)}
    if released:  # "their hourly rate": a column's name, not a rate asked for
        cues.skip -= released
        cues.percent = cues.percent and any(t.low in PERCENT_WORDS for i, t in enumerate(tokens) if i not in released)
    return cues


def _value_with_year(tokens: list[Token], i: int, index) -> tuple[int, int] | None:
    """The year at ``i`` and the word beside it, when a value joins them with a hyphen ('2023-spring')."""
    if tokens[i].kind != "number" or not tokens[i].low.isdigit() or len(tokens[i].low) != 4:
        return None
    for a, b in ((i - 1, i), (i, i + 1)):
        if a < 0 or b >= len(tokens) or tokens[a if b == i else b].kind != "word":
            continue
        for key in (f"{tokens[b].low}-{tokens[a].low}", f"{tokens[a].low}-{tokens[b].low}"):
            if any(c.kind == "value" for c in index.phrases.get((key,), [])):
                return a, b
    return None


def scan(tokens: list[Token], text: str) -> Cues:
    cues = Cues()
    cues.dates = find_dates(tokens)
    cues.skip |= cues.date_tokens()
    for i in range(len(tokens) - 1):
        if (tokens[i].low, tokens[i + 1].low) in IDIOMS:
            cues.skip |= {i, i + 1}  # "account for", "make up": verbs, not the schema's accounts
    lows = [t.low for t in tokens]
    _scan_sort(tokens, text, cues)
    _scan_windows(tokens, lows, cues)
    _scan_compare(tokens, lows, cues)
    _scan_grains(tokens, lows, cues)
    cues.thresholds = scan_thresholds(tokens, lows, cues.skip)
    cues.aggs = scan_aggs(tokens, lows, cues.skip)
    for i in range(len(lows) - 1):
        if lows[i] in ("on", "in") and lows[i + 1] in ("average", "avg") and i + 1 not in cues.skip:
            cues.on_average = True
            cues.aggs = [a for a in cues.aggs if a.start != i + 1]
            cues.skip |= {i, i + 1}
    cues.superlatives = scan_superlatives(tokens, lows, cues.skip)
    cues.aggs = settle_extremes(cues.aggs, cues.superlatives)
    if cues.sort is not None:
        cues.aggs = [a for a in cues.aggs if a.start not in cues.sort_span]
        cues.superlatives = [s for s in cues.superlatives if s.start not in cues.sort_span]
    cues.percent = any(w in PERCENT_WORDS for w in lows) and not (cues.change or cues.compare_unit)
    if cues.percent:
        cues.skip |= {i for i, w in enumerate(lows) if w in PERCENT_WORDS}
    cues.include_zero = bool(INCLUDE_ZERO.search(text))
    cues.distinct = any(w in ("distinct", "unique", "different") for w in lows)
    return cues


def _scan_sort(tokens: list[Token], text: str, cues: Cues) -> None:
    """ "sorted from highest to lowest", "in descending order": an order, not a superlative."""
    m = SORT_PHRASE.search(text)
    if m is None:
        return
    first = (m.group(1) or m.group(3) or m.group(4) or m.group(5) or "").lower()
    if m.group(6) or m.group(7):
        first = "oldest"  # "in chronological order", "in month order"
    cues.sort = "desc" if first in HIGH | {"best", "top"} or first.startswith("desc") else "asc"
    if first in ("oldest", "earliest", "newest", "latest"):
        cues.sort = "time_" + cues.sort  # "oldest quarter first": in time order, not by the measure
    cues.sort_span = {i for i, t in enumerate(tokens) if t.start >= m.start() and t.end <= m.end()}
    cues.skip |= cues.sort_span


def _scan_windows(tokens: list[Token], lows: list[str], cues: Cues) -> None:
    n = len(lows)
    for i, w in enumerate(lows):
        if w == "cumulative" or (w == "running" and i + 1 < n and lows[i + 1] in ("total", "sum", "count", "tally")):
            cues.running = True
            cues.skip.add(i)
        elif (
            w in ("moving", "rolling", "trailing")
            and i + 1 < n
            and lows[i + 1] in ("average", "avg", "mean", "sum", "total")
        ):
            width = None
            for j in range(max(0, i - 3), i):
                if tokens[j].kind == "number" and tokens[j].low.isdigit():
                    width = int(tokens[j].low)
                    cues.skip |= set(range(j, i))
                head = lows[j].split("-")[0]
                if "-" in lows[j] and (head.isdigit() or head in NUMBER_WORDS) and lows[j].split("-")[-1] in UNIT_WORDS:
                    width = int(head) if head.isdigit() else NUMBER_WORDS[head]  # "three-month moving average"
                    cues.skip |= set(range(j, i))
            if width is None:
                for j in range(i + 2, min(n, i + 7)):
                    if tokens[j].kind == "number" and tokens[j].low.isdigit():
                        width = int(tokens[j].low)
                        cues.skip |= set(range(j, min(n, j + 2)))
                        break
            cues.moving = (width or 3, "avg" if lows[i + 1] in ("average", "avg", "mean") else "sum")
            cues.skip |= {i, i + 1}


def _scan_compare(tokens: list[Token], lows: list[str], cues: Cues) -> None:
    stems = [t.stem for t in tokens]
    change = {stem(w) for w in CHANGE_WORDS}
    pct = {stem(w) for w in PCT_CHANGE_WORDS}
    cues.change = any(
        (s in change or w in CHANGE_WORDS)
        and not (
            w in ("fell", "fall", "falls", "falling")
            and lows[i + 1 : i + 2] in (["on"], ["into"], ["within"], ["onto"])
        )
        for i, (s, w) in enumerate(zip(stems, lows))
    )  # "fell on a Sunday": a date, not a fall
    text_all = " ".join(lows)
    if BY_HOW_MUCH.search(text_all) or AGAINST_PREVIOUS.search(text_all):
        cues.change = True  # "by how much did X exceed Y", "X against the unit before"
    for i in range(len(lows) - 2):
        if HOW_MUCH_MORE.match(" ".join(lows[i:])):
            cues.change = True  # "how many more X in A than B": a difference
            cues.skip.add(i + 2)
            for j in range(i + 3, min(len(lows) - 1, i + 6)):
                if lows[j] == "or" and lows[j + 1] in COMPARATIVES:
                    cues.skip |= {j, j + 1}  # "(or less)"
    cues.compare_pct = any(s in pct or w in PCT_CHANGE_WORDS for s, w in zip(stems, lows))
    for i, w in enumerate(lows):
        m = re.fullmatch(r"(day|week|month|quarter|year)-(?:over|on|to|vs)-\1", w)
        if m:
            cues.compare_unit = m[1]
            cues.skip.add(i)
        elif w in PERIOD_ABBREV:
            cues.compare_unit = PERIOD_ABBREV[w]
            cues.skip.add(i)
        elif (
            w in UNIT_WORDS
            and i + 2 < len(lows)
            and lows[i + 1] in ("over", "on", "to", "vs")
            and UNIT_WORDS.get(lows[i + 2]) == UNIT_WORDS[w]
        ):
            cues.compare_unit = UNIT_WORDS[w]
            cues.skip |= {i, i + 1, i + 2}
    for i, w in enumerate(lows):
        if (
            w in ("previous", "prior", "preceding", "last")
            and i + 1 < len(lows)
            and lows[i + 1] in UNIT_WORDS
            and cues.change
            and any(x in AGAINST for x in lows[max(0, i - 4) : i])
        ):
            # "compared with the previous month" names the comparison, not a window of dates
            cues.compare_unit = cues.compare_unit or UNIT_WORDS[lows[i + 1]]
            for d in [d for d in cues.dates if d.start <= i < d.end]:
                cues.dates.remove(d)
                cues.skip -= set(range(d.start, d.end))
            cues.skip |= {i, i + 1}
    text = " ".join(lows)
    m = SAME_PERIOD.search(text)
    if m and (cues.change or "same" in lows or "earlier" in lows or "ago" in lows):
        # "compared with the same quarter a year earlier": year over year, whatever the grain
        cues.compare_unit = "year"
        first = len(text[: m.start()].split())
        span = set(range(first, first + len(m.group(0).split())))
        for d in [d for d in cues.dates if set(range(d.start, d.end)) & span]:
            cues.dates.remove(d)
            cues.skip -= set(range(d.start, d.end))
        cues.skip |= span
    if cues.compare_unit:
        cues.change = True
    if cues.change:
        cues.skip |= {i for i, w in enumerate(lows) if w in ("rate", "rates")}  # "growth rate"
    cues.change_down = any(s in DOWN for s in stems)
    m = re.search(r"\bsame\s+(day|week|month|quarter)\b", text)
    if m and cues.change:
        cues.same_unit = m.group(1)  # "compared with the same month in 2023": year on year, by month


def _scan_grains(tokens: list[Token], lows: list[str], cues: Cues) -> None:
    for i, w in enumerate(lows):
        if i in cues.skip:
            continue
        if (
            w in ("weekday", "weekdays", "day-of-week")
            or (w == "day" and lows[i + 1 : i + 3] == ["of", "week"])
            or (w == "day" and lows[i + 1 : i + 4] == ["of", "the", "week"])
        ):
            end = i + 1 if w != "day" else (i + 3 if lows[i + 2] == "week" else i + 4)
            start = i - 1 if i > 0 and lows[i - 1] in GRAIN_LEAD | {"the"} else i
            cues.grains.append(("weekday", start, end))
            cues.skip |= set(range(start, end))
    for i, w in enumerate(lows):
        if i in cues.skip:
            continue
        if w in ADVERB_GRAINS:
            cues.grains.append((TIME_UNITS[w], i, i + 1))
            cues.skip.add(i)
        elif w in UNIT_WORDS and i > 0 and lows[i - 1] in GRAIN_LEAD and i - 1 not in cues.skip:
            start = i - 1
            if lows[i - 1] == "each" and i > 1 and lows[i - 2] in ("for", "in"):
                start = i - 2
            if lows[i - 1] in ("a", "an", "for", "over") and not (i > 1 and lows[i - 2] in ("per", "times")):
                continue
            cues.grains.append((UNIT_WORDS[w], start, i + 1))
            cues.skip |= set(range(start, i + 1))
        elif (
            w in UNIT_WORDS
            and i > 1
            and lows[i - 2] in ("each", "every", "per")
            and re.fullmatch(r"(?:19|20)\d\d", lows[i - 1])
        ):
            cues.grains.append((UNIT_WORDS[w], i - 2, i + 1))  # "each 2023 month"
            cues.skip |= {i - 2, i}
        elif (
            w in UNIT_WORDS
            and i > 1
            and _counted(tokens, i - 1)
            and (lows[i - 2] in ("which", "what") or lows[i - 2] == "the" and i > 2 and lows[i - 3] in ("of", "among"))
        ):
            # "which two weeks", "of the N years, which one": the periods themselves
            start = i - 2 if lows[i - 2] in ("which", "what") else i - 3
            cues.grains.append((UNIT_WORDS[w], start if lows[start] in ("which", "what") else i, i + 1))
            cues.grain_limit = whole_number(tokens[i - 1]) if lows[start] in ("which", "what") else None
            cues.skip |= set(range(start, i + 1))
        elif w in UNIT_WORDS and i > 0 and lows[i - 1] in SUPERLATIVES:
            cues.grains.append((UNIT_WORDS[w], i, i + 1))  # "the busiest month", "the best quarter"
            cues.skip.add(i)
        elif re.fullmatch(r"(day|week|month|quarter|year)-by-\1", w):
            cues.grains.append((UNIT_WORDS[w.split("-")[0]], i, i + 1))  # "day-by-day"
            cues.skip.add(i)
        elif w in UNIT_WORDS and i + 2 < len(lows) and lows[i + 1] == "by" and lows[i + 2] == w:
            cues.grains.append((UNIT_WORDS[w], i, i + 3))
            cues.skip |= {i, i + 1, i + 2}


def _counted(tokens: list[Token], i: int) -> bool:
    """A count before a noun: "three", "12"."""
    tok = tokens[i]
    return (
        tok.kind == "number"
        and tok.low.isdigit()
        and len(tok.low) < 4
        or tok.low in NUMBER_WORDS
        and tok.low not in ("a", "single", "one")
    )
