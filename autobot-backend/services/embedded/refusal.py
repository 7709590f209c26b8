"""When to decline, and what to say (:class:`Refusal`); and the schema screen: questions whose key
terms name nothing in the schema.

The screens that need no schema run on the raw text before any linking (:mod:`.screens`: a write is
a write whatever it names); the schema screen runs after linking, on the words that linked to nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.embedded.english import ADJECTIVES, VERBS, is_ordinary, number_word
from services.embedded.lexicon import Token, stem
from services.embedded.linking import Linked, names_attribute
from services.embedded.vocabulary import DURATION_UNITS, GENERAL_WORDS


@dataclass(frozen=True)
class Refusal:
    kind: str
    """``write``, ``injection``, ``non_analytical``, ``out_of_schema`` or ``unclear``."""
    reason: str


def unlinked_terms(tokens: list[Token], linked: Linked, index=None) -> Refusal | None:
    """Content words that name nothing in the schema, in a slot that names data: data the
    database does not hold ("the average *age*", "how many *visitors*", "which sales *rep*").
    ``index`` (the :class:`~.index.SchemaIndex`) gives the words the schema's comments use and
    which tables keep two dates (a span of time between them)."""
    vocabulary = index.vocabulary if index is not None else frozenset()
    dated = (
        frozenset(t.name for t in index.tables.values() if len(t.dates()) >= 2) if index is not None else frozenset()
    )
    if index is not None and index.terms:
        # a term a comment defines ("a flight is delayed when ...") names data
        linked = Linked(linked.tokens, linked.links, [i for i in linked.unlinked if tokens[i].low not in index.terms])
        vocabulary = vocabulary | {tokens[i].stem for i in range(len(tokens)) if tokens[i].low in index.terms}
    words = data_terms(tokens, linked, vocabulary, dated)
    if not words:
        return None
    tables = {c.table_name for lk in linked.links for c in lk.concepts[:1] if c.kind == "table"}
    shown = ", ".join(repr(w) for w in words)
    if tables:
        return Refusal(
            "out_of_schema",
            f"the schema has nothing for {shown}: no table or column of "
            f"{', '.join(sorted(tables))} or its related tables matches",
        )
    return Refusal("out_of_schema", f"the schema has nothing for {shown}")


# Words after which a noun is what the question asks about: measures, rankings, wh-words,
# groupings, and the verbs that ask for a list.
_SLOT_HEADS = frozenset(
    """
average avg mean median typical total sum count number numbers amount maximum max minimum min highest lowest largest
smallest biggest greatest most least fewest best worst top bottom many much which what whose who each every per by
show list display give find get tell calculate compute rank sort with without between have has had
percentage percent share proportion ratio fraction rate distribution breakdown trend trends
""".split()
)
# Nouns for data, after which "on", "about", "for" introduce what the data is about ("figures on X").
_DATA_NOUNS = frozenset(
    """
data information info details figures numbers stats statistics metrics report reports breakdown record records
""".split()
)
# Words a noun phrase reaches back over to its head: determiners, pronouns, "of", copulas.
_PASS = frozenset(
    """
the a an our their its my your his her this that these those some any all me us of is are was were be 's and or ,
""".split()
)
_COPULAS = frozenset({"is", "are", "was", "were", "be"})
_SENTENCE_GO = frozenset({"per", "by", "for", "in", "during", "of", "since", "over"})
_BOUNDARY = frozenset({".", "?", "!", ";", ":"})


def _documented(tokens: list[Token], i: int, vocabulary: frozenset[str]) -> bool:
    """A verb the schema's comments use, in another inflection ("flights *departing* from" where a
    comment says the flight departs, "the departments *housed* in" where it says is housed): the
    question speaks the schema's language. Nouns get no such pass: "their *phone* numbers" stays
    unknown though a comment names the phone as a channel."""
    tok = tokens[i]
    return tok.stem in vocabulary and (tok.low.endswith(("ing", "ed")) or i > 0 and tokens[i - 1].low in _PRONOUNS)


_PRONOUNS = frozenset({"who", "that", "which", "it", "they", "he", "she", "everyone", "nobody"})


def data_terms(
    tokens: list[Token], linked: Linked, vocabulary: frozenset[str] = frozenset(), dated: frozenset[str] = frozenset()
) -> list[str]:
    """The unlinked phrases that stand where a question names its data, ordinary English left out."""
    out: list[str] = _core_terms(tokens, linked, vocabulary, dated)
    if out:
        return out
    out = [a for a in (_missing_attribute(tokens, i, linked, dated) for i in range(len(tokens))) if a]
    out += _unit_terms(tokens, vocabulary)
    if out:
        return out
    for run in _runs([i for i in linked.unlinked if not _documented(tokens, i, vocabulary)]):
        j = run[-1]
        if j + 2 < len(tokens) and tokens[j + 1].low == "by" and tokens[j + 2].low == tokens[j].low:
            continue  # "side by side", "one by one": an idiom
        strong = _in_data_slot(tokens, linked, run)
        slot = strong or _sentence_subject(tokens, linked, run)
        kept = [
            tokens[i].text
            for i in run
            if not is_ordinary(tokens[i].low, strong) or names_attribute(tokens, i, linked.links)
        ]
        if slot and kept:
            out.append(" ".join(kept))
    return out


_CUE_WORDS = frozenset({"how", "what", "which", "who", "whose", "when", "where", "whom", "what's", "who's"})
_REQUESTS = frozenset(
    """show list give tell find display count calculate compute get provide rank sort report break
compare total sum return pull""".split()
)
_PLACE_PREPOSITIONS = frozenset({"in", "at", "across", "within", "throughout", "around", "joined", "to", "from"})
_CORE_END = frozenset({",", "\u2014", "\u2013", "-", "(", ".", "?", "!", ";", ":"})


def _core_terms(tokens: list[Token], linked: Linked, vocabulary: frozenset[str], dated: frozenset[str]) -> list[str]:
    """Nouns the schema does not know inside the question proper, from its question word (or the verb
    that asks) to the first comma or the end of the sentence: an unknown object of spending, an unknown
    subject of the counted event, an unknown head after a known modifier. A preface before the question
    word and trailing clauses are context; a word that only a comment mentions in passing is as unknown
    as one nothing mentions when it heads a phrase after a known word."""
    core = _core(tokens)
    if core is None:
        return []
    unlinked = set(linked.unlinked)
    out = []
    for i in range(*core):
        tok = tokens[i]
        lk = linked.link_at(i)
        attribute = _missing_attribute(tokens, i, linked, dated)
        if attribute:
            out.append(attribute)
            continue
        weak = (
            lk is not None
            and lk.score < 0.5
            and lk.via == "name"
            and lk.end - lk.start == 1
            and i > 0
            and linked.link_at(i - 1) is not None
        )  # "cabin crew": a known modifier, a head only a comment mentions
        if tok.kind != "word" or not (i in unlinked or weak) or len(tok.low) <= 2:
            continue
        if is_ordinary(tok.low) or tok.low in GENERAL_WORDS or tok.text[:1].isupper() and i > core[0]:
            continue
        if _documented(tokens, i, vocabulary) or tok.stem in DURATION_UNITS and vocabulary & DURATION_UNITS.keys():
            continue  # "two hours late" where delays are kept in minutes: the same quantity
        if i > 1 and tokens[i - 1].low == "the" and tokens[i - 2].low in _PLACE_PREPOSITIONS:
            continue  # "airports in the network", "joined the library": the business itself
        before = linked.link_at(i - 1) if i > 0 else None
        plural = tok.low.endswith("s") and tok.stem != tok.low
        if before is not None and before.kind == "value" and not plural and not weak:
            continue  # "business class", "gold tier": the value's own kind of thing
        out.append(tok.text)
    return out


# Nouns that name a measured attribute of a thing ("crossing *time*", "parcel *weight*"); identifier
# nouns ("phone *number*") name one only after a word the schema knows from a comment alone.
_ATTRIBUTE_HEADS = frozenset("""weight weights height heights speed speeds distance distances""".split())
_SPAN_HEADS = frozenset("time times duration durations length lengths".split())
"""A span of time between two of the row's dates: known when the table keeps two dates."""
_IDENTIFIER_HEADS = frozenset("number numbers address addresses id ids code codes".split())


def _missing_attribute(tokens: list[Token], i: int, linked: Linked, dated: frozenset[str]) -> str | None:
    """An attribute noun the schema has no column for, after the thing it would belong to: "the average
    *crossing time*" where crossings are rows but no column keeps a time, "their *phone numbers*" where
    a comment only mentions phones. The nearby table or comment word does not make the attribute known."""
    if i == 0 or linked.link_at(i) is not None or tokens[i].kind != "word":
        return None
    low = tokens[i].low
    before = linked.link_at(i - 1)
    if before is None or before.end != i or i + 1 < len(tokens) and tokens[i + 1].low == "of":
        return None
    comment_only = before.score < 0.5 and before.via == "name" and before.end - before.start == 1
    span = low in _SPAN_HEADS and not before.tables() & dated
    if (
        (low in _ATTRIBUTE_HEADS or span)
        and (before.kind == "table" or comment_only)
        or low in _IDENTIFIER_HEADS
        and comment_only
    ):
        return " ".join(t.text for t in tokens[before.start : i + 1])
    return None


_UNITS = {
    "mass": "kg kgs kilo kilos kilogram kilograms gram grams g mg milligram milligrams lb lbs tonne tonnes ton tons "
    "ounce ounces oz weigh weighs weighed weighing weight",
    "length": "km kms kilometre kilometres kilometer kilometers mile miles metre metres meter meters m cm "
    "centimetre centimetres mm millimetre millimetres inch inches foot feet ft yard yards",
    "volume": "litre litres liter liters l ml millilitre millilitres gallon gallons",
}
_UNIT_OF = {w: kind for kind, words in _UNITS.items() for w in words.split()}


def _unit_terms(tokens: list[Token], vocabulary: frozenset[str]) -> list[str]:
    """A physical quantity the schema keeps in no unit of its kind: "weigh more than 5 kg" where no
    column or comment speaks of mass. A bare one-letter unit counts only after a number."""
    kinds = {_UNIT_OF[w] for w in _UNIT_OF if stem(w) in vocabulary and len(w) > 1}
    out = []
    for i, tok in enumerate(tokens):
        kind = _UNIT_OF.get(tok.low)
        if kind is None or kind in kinds or tok.kind != "word":
            continue
        if len(tok.low) <= 2 and not (i > 0 and tokens[i - 1].kind == "number"):
            continue
        out.append(tok.text)
    return out


def _core(tokens: list[Token]) -> tuple[int, int] | None:
    start = 0
    for i, tok in enumerate(tokens + [Token(".", ".", ".", "punct", 0, 0)]):
        if tok.kind == "punct" and tok.text in (".", "?", "!", ";") or i == len(tokens):
            for j in range(start, i):
                low = tokens[j].low
                if low in _CUE_WORDS or j == start and low in _REQUESTS:
                    end = next(
                        (k for k in range(j + 1, i) if tokens[k].kind == "punct" and tokens[k].text in _CORE_END), i
                    )
                    return j, end
            start = i + 1
    return None


def _runs(indices: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i in indices:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _in_data_slot(tokens: list[Token], linked: Linked, run: list[int]) -> bool:
    """Walk left over determiners, adjectives, numbers and schema words to the phrase's head."""
    i = run[0] - 1
    while i >= 0:
        tok = tokens[i]
        if tok.kind == "punct" and tok.text in _BOUNDARY:
            return False
        low = tok.low
        if low in _SLOT_HEADS:
            # "side by side", "one by one": an idiom, not a grouping
            return not (low == "by" and i > 0 and tokens[i - 1].low == tokens[run[0]].low)
        if low in ("on", "about", "regarding", "for") and i > 0:
            j = i - 1
            while j >= 0 and tokens[j].low in _PASS:
                j -= 1
            return j >= 0 and tokens[j].low in _DATA_NOUNS
        if (
            low in _PASS
            or tok.kind == "number"
            or number_word(low) is not None
            or low in ADJECTIVES
            or low.endswith("est")
            and is_ordinary(low)
            or linked.link_at(i) is not None
        ):
            i -= 1
            continue
        return False
    return False


def _sentence_subject(tokens: list[Token], linked: Linked, run: list[int]) -> bool:
    """A noun phrase opening a sentence and not followed by a verb is itself the request
    ("Visitors per month in 2024?"); followed by a verb it is context ("Our team wants ...")."""
    i = run[0] - 1
    while i >= 0 and (tokens[i].low in _PASS or linked.link_at(i) is not None):
        i -= 1
    if i >= 0 and not (tokens[i].kind == "punct" and tokens[i].text in _BOUNDARY):
        return False
    j = run[-1] + 1
    while j < len(tokens) and (
        linked.link_at(j) is not None
        or tokens[j].low in GENERAL_WORDS
        and tokens[j].low not in VERBS
        and tokens[j].low not in _SENTENCE_GO
    ):
        j += 1
    if j >= len(tokens):
        return True
    nxt = tokens[j]
    if nxt.kind == "punct":
        return nxt.text in ("?", ".", "!")
    return nxt.low in _SENTENCE_GO or nxt.kind == "number"
