"""The state a question is read in, passed from one reading step to the next, and the helpers every
step uses: finding the link after or before a cue, choosing among a link's meanings, spotting negation.

A step reads the state and adds to it: it claims the links it understands (:attr:`ReadState.used`),
adds measures, groupings and filters to the :attr:`ReadState.plan`, or leaves a note for a later step
(the periods waiting for their date column, the terms read as filters).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import overload

from services.embedded.answer_spec import Spec
from services.embedded.cues import Cues
from services.embedded.dates import DateSpec
from services.embedded.english import ADJECTIVES
from services.embedded.index import Column, Concept, SchemaIndex
from services.embedded.lexicon import Token
from services.embedded.linking import Link, Linked
from services.embedded.plan import Filter, Plan
from services.embedded.vocabulary import NEGATION_CONTRACTIONS, NEGATIONS

SORT_WORDS = frozenset({"sort", "sorted", "order", "ordered", "rank", "ranked", "ranking", "arranged"})
WH = frozenset({"which", "what", "who", "whose"})
LIST_VERBS = frozenset({"list", "show", "give", "name", "display", "find", "identify", "return", "get"})

FILLER = frozenset(
    """the a an of their its our each every all per by for in on with that which who were was is are
have has had do did does been be any most many much total number distinct unique different single one there""".split()
)
FILLER_EXTRA = frozenset(
    """list unit individual overall items active available current new existing registered
separate inactive valid ongoing open other others additional""".split()
)


@dataclass(frozen=True)
class Unclear:
    """The question cannot be read with confidence; ``reason`` says what is missing."""

    reason: str


@dataclass(eq=False)
class ReadState:
    """One question being read: its tokens and links, which links are spoken for, and the plan so far."""

    tokens: list[Token]
    lows: list[str]
    """Each token's lower-cased text."""
    links: list[Link]
    cues: Cues
    index: SchemaIndex
    used: set[int] = field(default_factory=set)
    """Links a step has read (claimed): later steps leave them alone."""
    grains_taken: set[int] = field(default_factory=set)
    """Starts of grain cues an aggregate has read ("average *monthly* X"): not a grouping."""
    plan: Plan = field(default_factory=Plan)
    mentioned: list[str] = field(default_factory=list)
    """The tables the question names, in the order it names them."""
    spec: Spec | None = None
    """The answer's columns as the question lists them, if it does."""
    unclear: Unclear | None = None
    """Set by a step that finds the question cannot be read; reading stops there."""
    wh_limit: int | None = None
    """How many rows a wh-word asks for ("which three X"), once the wh-word is read."""
    pending: list[tuple[DateSpec, Column | None]] = field(default_factory=list)
    """The periods read, each with the date column named beside it (None until resolved)."""
    dated: list[tuple[DateSpec, Column]] = field(default_factory=list)
    """The pending periods with their date columns resolved (a period no column dates is dropped)."""
    date_hints: dict[int, str] = field(default_factory=dict)
    """For a pending period: the table named right before it, whose date it may be."""
    table_hint: str | None = None
    exists_at: int = -1
    """Where the last "never ..." (NOT EXISTS) phrase ends: a table named in the same clause joins it."""
    term_filters: list[Filter] = field(default_factory=list)
    """The filters a defined term said in the question stands for."""

    @classmethod
    def start(cls, tokens: list[Token], linked: Linked, cues: Cues, index: SchemaIndex) -> ReadState:
        """The state before any step: every link open, an empty plan."""
        r = cls(tokens=tokens, lows=[t.low for t in tokens], links=list(linked.links), cues=cues, index=index)
        _rerank_values(r)
        r.mentioned = _mentioned_tables(r)
        return r

    # ------------------------------------------------------------------ link helpers

    def col(self, c: Concept) -> Column:
        return self.index.column(c.table_name, c.column_name)

    @overload
    def concept(self, k: int) -> Concept: ...

    @overload
    def concept(self, k: int, kinds: tuple[str, ...] | None) -> Concept | None: ...

    def concept(self, k: int, kinds: tuple[str, ...] | None = None) -> Concept | None:
        """The link's meaning that best fits the tables the question mentions; of one of ``kinds`` if
        given (None when the link has no meaning of those kinds: every link has at least one meaning)."""
        lk = self.links[k]
        options = [c for c in lk.concepts if kinds is None or c.kind in kinds]
        if not options:
            return None
        top = options[0].strength
        near = [c for c in options if c.strength >= top - 0.25]
        if len({(c.table, c.column, c.kind) for c in near}) == 1:
            return near[0]
        described = [c for c in near if self._described(c) > max(self._described(o) for o in near if o is not c)]
        if described:
            return described[0]  # "unit price *charged*": the comment that says so
        anchors = self._anchors(k)
        for c in near:
            if c.table in anchors:
                return c
        # Unanchored: the first kind offered; among its columns, the entity table's (fewest foreign
        # keys out) rather than a fact table's.
        same = [c for c in near if c.kind == near[0].kind]
        return min(same, key=lambda c: (-c.strength, -self._described(c), self._fks_out(c.table), same.index(c)))

    def _described(self, c: Concept) -> int:
        """How many of the question's words the column's comment uses ("unit price *charged*")."""
        if c.kind != "column":
            return 0
        named = set(self.col(c).stems)
        return len((self.col(c).comment_words - named) & {t.stem for t in self.tokens})

    def _anchors(self, k: int) -> list[str]:
        """Tables that other links name unambiguously."""
        out: list[str] = []
        for j, lk in enumerate(self.links):
            if j == k:
                continue
            top = lk.concepts[0].strength
            tables = {c.table for c in lk.concepts if c.strength >= top - 0.25 and c.table}
            if lk.best.kind == "metric":
                tables = {self.index.metrics[lk.best.metric_name].base_table}
            if len(tables) == 1:
                t = next(iter(tables))
                if t not in out:
                    out.append(t)
        return out

    def _fks_out(self, table: str | None) -> int:
        if table is None:
            return 99
        return sum(1 for c in self.index.tables[table].columns.values() if c.references)

    def link_after(self, pos: int, gap: int = 2) -> int | None:
        """The first link at or after ``pos``, when at most ``gap`` filler words come before it."""
        dated = self.cues.date_tokens()
        for k, lk in enumerate(self.links):
            if lk.start >= pos:
                between = [self.lows[i] for i in range(pos, lk.start) if i not in dated]  # "the 2024 orders"
                if len(between) <= gap and all(w in FILLER or w in FILLER_EXTRA or w in ADJECTIVES for w in between):
                    return k
                return None
        return None

    def link_before(self, pos: int, gap: int = 2) -> int | None:
        """The last link that ends at or before ``pos``, when at most ``gap`` words lie between."""
        for k in range(len(self.links) - 1, -1, -1):
            lk = self.links[k]
            if lk.end <= pos:
                between = [self.lows[i] for i in range(lk.end, pos)]
                return k if len(between) <= gap else None
        return None

    def negated_before(self, start: int, window: int = 4) -> bool:
        """A negation within ``window`` words before ``start``, not across a strong link."""
        lo = max(0, start - window)
        for i in range(start - 1, lo - 1, -1):
            w = self.lows[i]
            if w in NEGATIONS or w in NEGATION_CONTRACTIONS or w.endswith("n't"):
                return True
            if any(lk.start <= i < lk.end and lk.score >= 0.5 for lk in self.links):
                break  # a weak comment match ("no *known* birth year") does not end the phrase
        return False


def _rerank_values(r: ReadState) -> None:
    """A value of a table the question does not otherwise name gives way to a column of a table it
    does name: "tickets still open" is the ticket's open state, not an open invoice."""
    named: set[str] = set()
    for lk in r.links:
        if lk.best.kind == "table" or lk.best.kind == "column" and lk.score >= 0.5:
            named.add(lk.best.table_name)
        elif lk.best.kind == "metric":
            named |= set(r.index.metrics[lk.best.metric_name].tables)
    if not named:
        return
    for k, lk in enumerate(r.links):
        if lk.best.kind != "value" or lk.best.table in named or lk.via == "literal":
            continue
        local = [c for c in lk.concepts if c.kind == "column" and c.table in named and c.strength >= 0.6]
        word = r.tokens[lk.start]
        if word.low == (lk.best.value or "").lower():
            # the adjective ("still open") is a state: the column whose NULL the comment defines by it
            local.sort(key=lambda c: word.stem not in (r.col(c).null_means | r.col(c).set_means))
        if local:
            rest = [c for c in lk.concepts if c not in local]
            r.links[k] = dataclasses.replace(lk, concepts=tuple(local + rest), score=lk.score * 0.7)


def _mentioned_tables(r: ReadState) -> list[str]:
    out: list[str] = []
    for lk in r.links:
        for c in lk.concepts[:1]:
            if c.kind == "table" and c.table not in out:
                out.append(c.table_name)
            elif c.kind == "metric":
                for tb in r.index.metrics[c.metric_name].tables:
                    if tb not in out:
                        out.append(tb)
    for lk in r.links:
        if lk.best.table and lk.best.table not in out:
            out.append(lk.best.table)
    return out
