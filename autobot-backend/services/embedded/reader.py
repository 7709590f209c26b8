"""The reader's state and the helpers every reading step uses: finding the link after a cue,
choosing among a link's meanings, spotting negation."""

from __future__ import annotations

import dataclasses

from services.embedded.cues import Cues
from services.embedded.english import ADJECTIVES
from services.embedded.index import Column, Concept, SchemaIndex
from services.embedded.lexicon import NEGATION_CONTRACTIONS, NEGATIONS, Token
from services.embedded.linking import Linked
from services.embedded.plan import Plan

PARTICIPLES = frozenset({"written", "made", "sold", "bought", "paid", "done", "seen", "given", "taken", "held",
                          "run", "won", "lent", "brought", "sent", "kept"})
SORT_WORDS = frozenset({"sort", "sorted", "order", "ordered", "rank", "ranked", "ranking", "arranged"})
VALUE_NOUNS = frozenset({"value", "amount", "size", "spend", "spending", "total", "revenue", "worth"})
STATE_POSITIVE = frozenset({"active", "available", "current", "live", "valid", "ongoing", "open", "enabled"})
NEGATIVE_STATES = ("discontinu", "delet", "archiv", "inactiv", "disabl", "retir", "expir", "block", "suspend",
                    "clos", "cancel", "remov", "hidden", "obsolet")
WH = frozenset({"which", "what", "who", "whose"})
INCOMPLETE = frozenset({"outstanding", "pending", "unreturned", "unfulfilled", "unresolved", "unshipped", "awaiting",
                        "waiting"})

FILLER = frozenset({"the", "a", "an", "of", "their", "its", "our", "each", "every", "all", "per", "by", "for",
                     "in", "on", "with", "that", "which", "who", "were", "was", "is", "are", "have", "has", "had",
                     "do", "did", "does", "been", "be", "any", "most", "many", "much", "total", "number",
                     "distinct", "unique", "different", "single", "one", "there"})
FILLER_EXTRA = frozenset({"list", "unit", "individual", "overall", "items", "active", "available", "current",
                           "new", "existing", "registered", "separate", "inactive", "valid", "ongoing", "open",
                           "other", "others", "additional"})



class ReaderBase:
    """State shared by the reading steps: the tokens, the links, which links are spoken for, the plan."""

    def __init__(self, tokens: list[Token], linked: Linked, cues: Cues, index: SchemaIndex):
        self.t = tokens
        self.lows = [t.low for t in tokens]
        self.links = list(linked.links)
        self.cues = cues
        self.ix = index
        self.used: set[int] = set()
        self.grains_taken: set[int] = set()
        self.plan = Plan()
        self._rerank_values()
        self.mentioned = self._mentioned_tables()

    def _rerank_values(self) -> None:
        """A value of a table the question does not otherwise name gives way to a column of a table it
        does name: "tickets still open" is the ticket's open state, not an open invoice."""
        named: set[str] = set()
        for lk in self.links:
            if lk.best.kind == "table" or lk.best.kind == "column" and lk.score >= 0.5:
                named.add(lk.best.table)
            elif lk.best.kind == "metric":
                named |= set(self.ix.metrics[lk.best.metric].tables)
        if not named:
            return
        for k, lk in enumerate(self.links):
            if lk.best.kind != "value" or lk.best.table in named or lk.via == "literal":
                continue
            local = [c for c in lk.concepts if c.kind == "column" and c.table in named and c.strength >= 0.6]
            word = self.t[lk.start]
            if word.low == (lk.best.value or "").lower():
                # the adjective ("still open") is a state: the column whose NULL the comment defines by it
                local.sort(key=lambda c: word.stem not in (self.col(c).null_means | self.col(c).set_means))
            if local:
                rest = [c for c in lk.concepts if c not in local]
                self.links[k] = dataclasses.replace(lk, concepts=tuple(local + rest), score=lk.score * 0.7)

    # ------------------------------------------------------------------ link helpers

    def _mentioned_tables(self) -> list[str]:
        out: list[str] = []
        for lk in self.links:
            for c in lk.concepts[:1]:
                if c.kind == "table" and c.table not in out:
                    out.append(c.table)
                elif c.kind == "metric":
                    for tb in self.ix.metrics[c.metric].tables:
                        if tb not in out:
                            out.append(tb)
        for lk in self.links:
            if lk.best.table and lk.best.table not in out:
                out.append(lk.best.table)
        return out

    def concept(self, k: int, kinds: tuple[str, ...] | None = None) -> Concept | None:
        """The link's meaning that best fits the tables the question mentions."""
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
        return len((self.col(c).comment_words - named) & {t.stem for t in self.t})

    def _anchors(self, k: int) -> list[str]:
        """Tables that other links name unambiguously."""
        out: list[str] = []
        for j, lk in enumerate(self.links):
            if j == k:
                continue
            top = lk.concepts[0].strength
            tables = {c.table for c in lk.concepts if c.strength >= top - 0.25 and c.table}
            if lk.best.kind == "metric":
                tables = {self.ix.metrics[lk.best.metric].base_table}
            if len(tables) == 1:
                t = next(iter(tables))
                if t not in out:
                    out.append(t)
        return out

    def _fks_out(self, table: str | None) -> int:
        if table is None:
            return 99
        return sum(1 for c in self.ix.tables[table].columns.values() if c.references)

    def link_after(self, pos: int, gap: int = 2) -> int | None:
        dated = self.cues.date_tokens()
        for k, lk in enumerate(self.links):
            if lk.start >= pos:
                between = [self.lows[i] for i in range(pos, lk.start) if i not in dated]  # "the 2024 orders"
                if len(between) <= gap and all(w in FILLER or w in FILLER_EXTRA or w in ADJECTIVES for w in between):
                    return k
                return None
        return None

    def link_before(self, pos: int, gap: int = 2) -> int | None:
        for k in range(len(self.links) - 1, -1, -1):
            lk = self.links[k]
            if lk.end <= pos:
                between = [self.lows[i] for i in range(lk.end, pos)]
                return k if len(between) <= gap else None
        return None

    def negated_before(self, start: int, window: int = 4) -> bool:
        lo = max(0, start - window)
        for i in range(start - 1, lo - 1, -1):
            w = self.lows[i]
            if w in NEGATIONS or w in NEGATION_CONTRACTIONS or w.endswith("n't"):
                return True
            if any(lk.start <= i < lk.end and lk.score >= 0.5 for lk in self.links):
                break  # a weak comment match ("no *known* birth year") does not end the phrase
        return False

    def col(self, c: Concept) -> Column:
        return self.ix.column(c.table, c.column)

