"""Reading groupings: "by country", "per month", "each course level" (rankings are :mod:`.read_ranking`)."""

from __future__ import annotations

from services.embedded.dims import add_dim
from services.embedded.joins import distance
from services.embedded.measure_links import intensive
from services.embedded.plan import Dim, Measure
from services.embedded.read_state import SORT_WORDS, ReadState
from services.embedded.vocabulary import DATE_STEMS

_PARTICIPLES = frozenset(
    """written made sold bought paid done seen given taken held run won lent brought sent kept""".split()
)
_PARTICLES = frozenset({"back", "out", "up", "off", "in", "down", "over", "away"})
_SHOW_VERBS = frozenset({"show", "list", "give", "display", "return", "get"})
_ARITHMETIC = frozenset({"minus", "plus", "times", "divided", "multiplied", "less"})
_DEFINING = frozenset(
    """taking counting treating defining count treat take define consider considering meaning
where""".split()
)


def groupings(r: ReadState) -> None:
    """The groupings a "by", "per", "each", "every" or "across" names, unless the word says how rows are
    counted, who did something, or what a ranking is by; then the period grains no aggregate read."""
    defining = _definitions(r)
    for i, w in enumerate(r.lows):
        if i in r.cues.skip or w not in ("by", "per", "each", "every", "across") or i in defining:
            continue
        nxt = r.lows[i + 1] if i + 1 < len(r.lows) else ""
        if w == "per" and i > 1 and r.lows[i - 2] in ("one", "a", "an", "each", "single"):
            continue  # "one fee per enrollment": how the rows are counted, not a grouping
        prev = r.link_before(i, gap=1)
        if (
            w == "per"
            and nxt in ("unit", "item", "piece", "head")
            and prev is not None
            and r.links[prev].best.kind == "column"
            and r.col(r.links[prev].best).measurable
        ):
            continue  # "price per unit": a rate, not a grouping
        if (w == "across" and nxt in ("all", "both", "the", "every", "each")) or (
            w == "by" and nxt in ("a", "an", "any", "some", "one", "someone", "anyone")
        ):
            continue  # "across all orders": overall; "a visit by a patient": who, not a grouping
        verb = i - 2 if i > 1 and r.lows[i - 1] in _PARTICLES else i - 1  # "sent back by"
        if (
            w == "by"
            and verb >= 0
            and (r.lows[verb] in _PARTICIPLES or r.lows[verb].endswith("ed"))
            and r.lows[verb] not in SORT_WORDS
            and _agent(r, i + 1)
        ):
            continue  # "books written by authors from Japan": who did it, not a grouping
        k = r.link_after(i + 1, gap=2)
        if (
            w in ("each", "every")
            and k is not None
            and r.links[k].start == i + 1
            and r.links[k].best.kind == "column"
            and r.col(r.links[k].best).kind == "date"
            and not (r.lows[i + 1].endswith("s") or r.tokens[i + 1].stem in DATE_STEMS)
        ):
            continue  # "the tickets each bought": each of them did it, a verb and no grouping
        if k is not None and k in r.used and r.links[k].best.kind == "metric":
            modified = r.link_after(r.links[k].end, gap=0)
            if modified is not None and modified not in r.used and r.links[modified].best.kind in ("column", "table"):
                k = modified  # "each sales channel" after the revenue was read: the channel
        if (
            k is not None
            and k not in r.used
            and r.links[k].best.kind == "column"
            and (r.links[k].score < 0.8 or r.lows[r.links[k].end - 1].endswith("ed"))
            and not r.tokens[r.links[k].end - 1].text.lower().replace("\u2019", "'").endswith("'s")
        ):
            head = r.link_after(r.links[k].end, gap=0)
            if (
                head is not None
                and head not in r.used
                and r.links[head].best.kind in ("column", "table")
                and (r.links[head].score > r.links[k].score or r.lows[r.links[k].end - 1].endswith("ed"))
            ):
                k = head  # "each graded term": a weak or participle modifier, then the noun grouped by
        if k is None or k in r.used:
            continue
        c = r.concept(k)
        modified = r.link_after(r.links[k].end, gap=0)
        if (
            c.kind == "metric"
            and modified is not None
            and modified not in r.used
            and r.concept(modified).kind in ("column", "table")
        ):
            # "per sales channel": 'sales' only qualifies the grouping that follows
            r.used.add(k)
            k, c = modified, r.concept(modified)
        if c.kind == "metric" or (c.kind == "column" and r.col(c).measurable and w == "by"):
            continue  # "top 5 products by revenue": the ranking's measure, read by the ranking step
        word = r.tokens[r.links[k].end - 1]
        if (
            w == "by"
            and c.kind == "table"
            and word.low != word.stem
            and word.low.endswith("s")
            and any(v in ("rank", "sort", "order", "arrange") for v in r.lows[:i])
            and r.link_before(i, gap=1) is not None
        ):
            continue  # "rank the ports by sailings": how many each has, read by the ranking step
        if w == "per" and c.kind == "table" and _two_level(r, c.table_name, k):
            continue
        if w in ("each", "every") and _own_attribute(r, k):
            continue
        while k is not None:
            k = add_dim(r, k)
            if k is None:
                break
            lk = r.links[k]
            if lk.end < len(r.lows) and r.lows[lk.end] in ("and", ",", "&"):
                k = r.link_after(lk.end + 1, gap=1 if r.lows[lk.end] != "," else 0)
                if k is not None and (k in r.used or r.links[k].best.kind not in ("table", "column")):
                    k = None
            else:
                k = None
    for unit, start, _end in r.cues.grains:
        if start in r.grains_taken:
            continue
        r.plan.dims.append(Dim("grain", "", None, unit))


def _own_attribute(r: ReadState, k: int) -> bool:
    """ "Show each port's country": every row with its own value, a list, not a grouping by the value."""
    lk, c = r.links[k], r.concept(k)
    if (
        r.lows[0] not in _SHOW_VERBS
        or r.cues.aggs
        or r.cues.percent
        or c.kind != "table"
        or not r.tokens[lk.end - 1].text.lower().replace("\u2019", "'").endswith("'s")
    ):
        return False
    nxt = r.link_after(lk.end, gap=0)
    return nxt is not None and r.concept(nxt).kind == "column" and r.concept(nxt).table == c.table


def _definitions(r: ReadState) -> set[int]:
    """Tokens of a clause that defines a term ("..., taking each X as Y minus
    ..."): what it says of "each" row is the definition, not a grouping of the answer."""
    out: set[int] = set()
    for i, w in enumerate(r.lows):
        if w in _DEFINING and (i == 0 or r.lows[i - 1] in (",", ".", ";", ":", "(", "\u2014", "-")):
            end = next((j for j in range(i + 1, len(r.lows)) if r.lows[j] in (".", ";", "?", ")")), len(r.lows))
            if "as" in r.lows[i:end] or any(w in _ARITHMETIC for w in r.lows[i:end]):
                out |= set(range(i, end))  # "..., counting for each line A minus B": a formula
    return out


def _agent(r: ReadState, pos: int) -> bool:
    """After "<participle> by": an agent is qualified ("by customers in Canada", "by a member",
    "by business customers"); a grouping is a bare noun ("hours worked by department")."""
    if pos < len(r.lows) and r.lows[pos] in ("a", "an", "some", "someone", "somebody", "another", "other"):
        return True
    k = r.link_after(pos, gap=1)
    if k is None:
        return True
    word = r.tokens[r.links[k].end - 1]
    if r.lows[pos] in ("the", "their", "its") and not (word.low != word.stem and word.low.endswith("s")):
        return True  # "returned by the customer": the one who did it, not one row per customer
    if r.links[k].best.kind == "value":
        return True
    end = r.links[k].end
    return any(lk.best.kind == "value" and end <= lk.start <= end + 2 for lk in r.links)


def _two_level(r: ReadState, table: str, k: int) -> bool:
    """ "per <entity>" after an average: per row (no grouping) or per entity (aggregate first)."""
    for n, m in enumerate(r.plan.measures):
        if m.per == "?":
            m.per = table
            r.used.add(k)
            return True
        if m.func == "avg" and m.column:
            if m.table == table:
                r.used.add(k)
                return True
            if distance(r.index, m.table, table) > 0 and not intensive(r, m):
                r.plan.measures[n] = Measure("sum", m.table, m.column, per=table)
                r.used.add(k)
                return True
    return False
