"""Conditions the question states but the schema cannot place: declined, never dropped.

A word that says which rows count ("how many tickets were *lost*", "the *lost* tickets") and links
to no value, column, flag or defined term would otherwise be ignored, and the answer would be for
all the rows: a plausible wrong number. Such a word is named in an ``unclear`` refusal instead.

Only two positions are read, where English puts a restriction on a noun: the predicate after the
noun and a copula, and a participle right before the noun. Words that do not restrict (filler,
politeness, output instructions, units, the verbs that name the counted event: "were *placed*",
"were *sold*") are general vocabulary and are left alone, as are predicates that go on to name the
data themselves ("are set *to auto-renew*").
"""

from __future__ import annotations

from services.embedded.english import ADJECTIVES, ADVERBS, VERBS, verb_forms
from services.embedded.lexicon import Token
from services.embedded.linking import Linked
from services.embedded.refusal import Refusal

_COPULAS = frozenset({"is", "are", "was", "were", "been", "be", "being", "got", "get", "gets", "became", "become"})
_RELATIVES = frozenset({"that", "who", "which"})
_NEGATIONS = frozenset({"not", "never", "no"})
_STOPS = frozenset({".", "?", "!", ";", ",", ":", "and", "or", "but"})
_EVENT_VERBS = frozenset(
    f
    for v in """
sell buy purchase order place make book issue create open register enrol enroll write file raise submit send ship
record log take give sign hire publish add generate receive bill charge pay prescribe schedule hold run post lend
borrow rent produce start launch plan collect earn spend see visit treat do fly join use""".split()
    for f in verb_forms(v)
) | frozenset(
    """
sold bought made written taken given held run paid seen done flown spent sent lent""".split()
)
"""Verbs that name the event a row records ("were *sold*", "were *issued*"): they say what is counted,
not which of the rows count."""
_DESCRIPTIVE = frozenset(
    """
big large huge small little tiny long short tall old young heavy light cheap expensive costly pricey happy unhappy
satisfied unsatisfied good bad poor rich wealthy busy quiet full empty slow fast quick hard easy difficult rare
popular famous important major minor loyal frequent occasional inactive dormant healthy sick local foreign
international domestic senior junior premium luxury high low strong weak valuable profitable unprofitable""".split()
)
"""Gradable words that pick some rows out of others ("*large* accounts", "the books are *long*"):
a restriction when nothing in the schema says which rows they are."""
_DEGREE = frozenset({"most", "least", "more", "less", "very", "too", "so", "how"})
"""Before a gradable word, a ranking or a comparison ("the *most* expensive product"), read elsewhere."""
_LOOKAHEAD = 3
"""How far a predicate may reach for a word of the schema before it is read as standing alone."""


def unplaced_condition(
    tokens: list[Token],
    linked: Linked,
    skip: set[int],
    terms: frozenset[str] = frozenset(),
    vocabulary: frozenset[str] = frozenset(),
) -> Refusal | None:
    """An ``unclear`` refusal naming the first restricting word nothing in the schema places.
    ``terms`` are the terms comments define; ``vocabulary`` the stems the schema's comments use (a verb
    the schema speaks is its event, not an unknown state)."""
    table_at = {i for lk in linked.links if lk.best.kind == "table" for i in range(lk.start, lk.end)}
    taken = {i for lk in linked.links for i in range(lk.start, lk.end)}
    unlinked = set(linked.unlinked)

    def free(i: int) -> bool:
        t = tokens[i]
        return (
            t.kind == "word"
            and i not in taken
            and i not in skip
            and t.low not in terms
            and t.low not in _EVENT_VERBS
            and t.stem not in vocabulary
        )

    for i in range(len(tokens)):
        if not free(i):
            continue
        word = tokens[i].low
        if _after_subject(tokens, i, table_at):
            progressive = word.endswith("ing") and word in VERBS  # "the buyer is asking": an action, not a state
            restricting = (
                i in unlinked and not _adverb(word) or word in ADJECTIVES and word not in VERBS or word in _DESCRIPTIVE
            ) and not progressive
            if restricting and not _reaches_data(tokens, i, taken, skip):
                return _refusal(tokens[i].text)
        elif (
            i + 1 in table_at
            and (i in unlinked and _participle(word) or word in _DESCRIPTIVE)
            and not (i > 0 and tokens[i - 1].low in _COPULAS | _DEGREE)
        ):
            return _refusal(tokens[i].text)
    return None


def _refusal(word: str) -> Refusal:
    return Refusal(
        "unclear",
        f"could not place {word!r} in the schema: no value, column, flag or defined term "
        f"matches it, and without it the answer would cover every row; say the condition "
        f"in the database's own words",
    )


def _after_subject(tokens: list[Token], i: int, table_at: set[int]) -> bool:
    """``<rows> were ___`` or ``<rows> that were ___``, one adverb or negation allowed between."""
    j = i - 1
    if j >= 0 and tokens[j].low in _DEGREE:
        return False
    if j >= 0 and (_adverb(tokens[j].low) or tokens[j].low in _NEGATIONS):
        j -= 1
    if j < 1 or tokens[j].low not in _COPULAS:
        return False
    j -= 1
    if tokens[j].low in _RELATIVES:
        j -= 1
    return j >= 0 and j in table_at


def _reaches_data(tokens: list[Token], i: int, taken: set[int], skip: set[int]) -> bool:
    """The predicate goes on to a word of the schema or a cue ("set to auto-renew", "lost in transit")."""
    for j in range(i + 1, min(len(tokens), i + 1 + _LOOKAHEAD)):
        if tokens[j].low in _STOPS:
            return False
        if j in taken or j in skip:
            return True
    return False


def _adverb(word: str) -> bool:
    return word in ADVERBS or word.endswith("ly") and len(word) > 4


def _participle(word: str) -> bool:
    """A verb's past participle, the form that restricts a noun it stands before ("lost tickets")."""
    return word in VERBS and (word.endswith(("ed", "en", "wn")) or word in _IRREGULAR_PARTICIPLES)


_IRREGULAR_PARTICIPLES = frozenset("lost built bent burnt split shut hurt struck stuck left kept".split())
