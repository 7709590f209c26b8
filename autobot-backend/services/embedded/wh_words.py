"""The rows a wh-word asks for: "which three products ...", "who were the two ...", and the rows an
opening "Among X" / "Of (all) the X" names that a later "which three" means."""

from __future__ import annotations

from services.embedded.lexicon import NUMBER_WORDS, whole_number
from services.embedded.read_state import WH, ReadState


def wh_dim(r: ReadState) -> int | None:
    """The link a question word asks about ("which cities ...", "who were the two ..."), noting in
    :attr:`~.read_state.ReadState.wh_limit` how many it asks for."""
    for i, w in enumerate(r.lows):
        if w in WH and i > 0 and w in ("who", "which", "that") and any(lk.end == i for lk in r.links):
            continue  # "buyers who bought ...": a relative pronoun after its noun, not a question word
        if w in WH:
            j = i + 1
            if j < len(r.tokens) and (
                r.tokens[j].kind == "number"
                and r.tokens[j].low.isdigit()
                or r.lows[j] in NUMBER_WORDS
                and r.lows[j] not in ("a", "one", "single")
            ):
                r.wh_limit = whole_number(r.tokens[j])  # "which 5 patients ...", "which five"
                j += 1
            while j < len(r.lows) and (r.lows[j] in ("is", "are", "was", "were", "the", "all") or _count_word(r, j)):
                if _count_word(r, j):
                    r.wh_limit = whole_number(r.tokens[j])  # "who were the two ..."
                j += 1  # "what are the cities ..."
            k = r.link_after(j, gap=1)
            if k is not None and r.links[k].best.kind in ("table", "column") and r.links[k].score >= 0.5:
                c = r.concept(k)
                if c.kind == "column" and r.col(c).measurable:
                    return None
                return k
            if r.wh_limit is not None and (k is None or r.links[k].best.kind == "metric"):
                return _among(r)  # "Among X ..., which three ...": the X
            return None
    return None


def _count_word(r: ReadState, j: int) -> bool:
    """A count before a noun ("the three doctors"), not before a superlative ("the 3 most ...")."""
    if j + 1 >= len(r.tokens) or any(s.start <= j + 1 and j < s.end for s in r.cues.superlatives):
        return False
    return (
        r.tokens[j].kind == "number"
        and r.tokens[j].low.isdigit()
        or r.lows[j] in NUMBER_WORDS
        and r.lows[j] not in ("a", "one", "single")
    )


def _among(r: ReadState) -> int | None:
    """The rows an opening "Among X" / "Of (all) the X" names, which a later "which three" means."""
    i = 0
    if r.lows[:2] == ["out", "of"]:
        i = 1
    if not r.lows or r.lows[i] not in ("among", "amongst", "of"):
        return None
    k = r.link_after(i + 1, gap=2)
    if k is None or r.links[k].best.kind not in ("table", "column"):
        return None
    c = r.concept(k)
    return k if c.kind == "table" or not r.col(c).measurable else None
