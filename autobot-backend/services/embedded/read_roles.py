"""Which of several foreign keys to the same table a question means: a flight has an origin and a
destination airport, a transfer a sender and a receiver account. The key is named outright ("the
destination airport"), or told by a preposition or verb of direction before the table or one of its
values ("flights *to* Spain", "*departing from* a hub"), matched against the keys' names and comments.
"""

from __future__ import annotations

from services.embedded.lexicon import stem
from services.embedded.read_state import ReadState

_TOWARDS = frozenset(
    stem(w)
    for w in """to into toward towards arriving arrive arrives arrived landing land lands
landed destination receiving received receiver recipient inbound entering reaching""".split()
)
_AWAY = frozenset(
    stem(w)
    for w in """from departing depart departs departed leaving leave leaves left origin
sending sent sender source outbound out""".split()
)
_KEY_TOWARDS = frozenset(
    stem(w) for w in "to destination arrive arrives arrival receiver recipient target inbound".split()
)
_KEY_AWAY = frozenset(stem(w) for w in "from origin depart departs departure sender source outbound".split())


def roles(r: ReadState) -> None:
    """For each table read that has two or more keys to one parent: the key the question names or the
    direction it says, taken as the way to that parent."""
    tables = (
        {t for lk in r.links for t in lk.tables()} | set(r.plan.joins) | ({r.plan.subject} if r.plan.subject else set())
    )
    for child in sorted(tables):
        by_parent: dict[str, list] = {}
        for col in r.index.tables[child].columns.values():
            if col.references and col.references != child:
                by_parent.setdefault(col.references, []).append(col)
        for parent, keys in by_parent.items():
            if len(keys) < 2 or any((child, k.name) in r.plan.via_keys for k in keys):
                continue
            key = _named_key(r, keys) or _directed_key(r, parent, keys)
            if key is not None:
                r.plan.via_keys.add((child, key.name))


def _named_key(r: ReadState, keys):
    """ "the destination airport": a link to one of the keys themselves."""
    for lk in r.links:
        for c in lk.concepts[:1]:
            found = next((k for k in keys if c.kind == "column" and (c.table, c.column) == (k.table, k.name)), None)
            if found is not None:
                return found
    return None


def _directed_key(r: ReadState, parent: str, keys):
    """ "flights to Spain", "departing from a hub": the direction said before the parent table
    (or one of its values or columns), matched with the key whose name or comment says it."""
    for lk in r.links:
        if parent not in lk.tables():
            continue
        before = {r.tokens[i].stem for i in range(max(0, lk.start - 4), lk.start)}
        for words, senses in ((_TOWARDS, _KEY_TOWARDS), (_AWAY, _KEY_AWAY)):
            if before & words:
                match = [k for k in keys if (set(k.stems) | set(k.comment_stems) | _first_words(k.comment)) & senses]
                if len(match) == 1:
                    return match[0]
    return None


def _first_words(comment: str) -> set[str]:
    return {stem(w) for w in comment.lower().replace(".", " ").split()[:8]}
