"""Ordinary English that never names data: verbs, adjectives, adverbs, pronouns, interjections,
number words and the words people use to say how an answer should look.

Used by the out-of-schema screen only (:mod:`.refusal`): a word the schema does not know is
evidence of missing data only when it is a noun in a slot that names data ("the average *age*",
"how many *visitors*"). These lists let the screen pass over the rest of a person's English
("whatever their status", "the busiest month", "hope you're well", "top three") without
touching linking, which still reads only the schema.

Verbs are listed in their base form; their inflections are derived (:func:`verb_forms`), and
the irregular ones are listed. Words that are usually data nouns (cost, price, rate, order,
visit, review, score...) are left out on purpose, so "the average cost" still asks for a cost.
"""

from __future__ import annotations

import re

_VERBS = """
accept access achieve act add adjust admit advise afford agree aim allow amount analyse analyze answer appear apply
approach argue arise arrange arrive ask assess assume attach attempt attend avoid base become begin believe belong
bother break bring build buy calculate call care carry catch cause check choose claim clarify close collect come
compare complete compute concern confirm consider consist contain continue contribute convert count cover create
cross cut deal decide declare define demonstrate deny depend derive describe deserve determine develop differ dig
display divide do double doubt drive drop earn eat embrace emerge enable encourage end enjoy ensure enter estimate
evaluate examine exceed exist expect explain explore express extend fail fall feel fetch figure fill find finish fit
focus follow forget form gain gather gauge get give go grab grow guess handle hang happen hate have head hear help
hide hit hold hope identify ignore imagine imply improve include indicate inform intend interest involve join judge
jump keep kick kill know lack land last lead lean learn leave let lie like limit link list live look lose love make
manage matter mean measure meet mention mind miss move multiply need note notice obtain occur offer open operate
outline own pass pay perform pick place plan play plot point pop prefer prepare present pretend print proceed produce
prove provide pull push put query quit raise reach read realise realize recall receive reckon recognise recognize
reduce refer reflect regard relate rely remain remember repeat reply report represent request require resolve rest
result retrieve reveal rise round run say see seek seem select sell send serve settle shape share show shrink sit
slip sort sound speak spend split stand start state stay step stick stop strike study submit succeed suggest sum
summarise summarize supply support suppose surprise suspect take talk tell tend thank think throw tie total touch
track treat trust try turn understand use vary view walk want watch wear weigh win wish wonder work worry write
yield schedule reschedule hand depart assign teach update delete modify remove insert alter edit drop hold convert
evolve fluctuate shift trend behave progress compare stack
"""
_IRREGULAR_FORMS = """
arose arisen was were been became begun began bore born broke broken brought built bought caught chose chosen came
dealt did done drew drawn drove driven ate eaten fell fallen felt fought found flew flown forgot forgotten got gotten
gave given went gone grew grown hung had heard hid hidden held hit kept knew known laid led left lent let lay lain
lost made meant met paid put quit read rode ridden rang rung rose risen ran said saw seen sought sold sent set shook
shaken shone shot shown shut sang sung sank sunk sat slept spoke spoken spent split spread stood stole stolen stuck
struck swore sworn took taken taught tore torn told thought threw thrown understood woke woken wore worn won wound
wrote written
"""
_ADJECTIVES = """
able actual additional all-time appropriate approximate available aware bad basic brief broad busy certain clear
close common complete correct crucial current dear decent detailed different difficult direct due early easy
entire equal exact extra fair false famous fine former free fresh full general given glad good grand handy happy
hard heavy huge ideal important inclusive interesting key kind last late least likely little live local main major
many minor modest much narrow near neat necessary new nice normal notable obvious odd official ok okay old only open
ordinary other overall particular past plain pleasant plus possible precise present pretty previous primary prior
proper quick rare ready real reasonable recent regular relevant repeat respective right rough round same several
short significant similar simple single slight slow small solid special specific standard straight strange strong
such sudden sure true typical unusual usual various vast very weird whole wide willing wise worse wrong
negative positive absolute relative useful helpful super better best older newer younger earlier later
lifetime historical historic all-time
"""
_ADVERBS = """
about above absolutely accordingly actually additionally afterwards again ago ahead alike almost alone along already
also altogether always anyhow anymore anyway anyways anywhere apart approximately around aside away back basically
before below besides briefly certainly clearly close closely completely currently definitely directly down earlier
easily else elsewhere enough entirely especially essentially even eventually ever exactly extremely fairly far
finally first firstly forth formerly forward frankly fully further furthermore generally hardly hence here however
ideally immediately indeed initially instead just kindly largely lately later least less likely literally long
mainly maybe meanwhile merely more moreover mostly much namely nearly necessarily never nevertheless next nonetheless
normally notably now nowhere obviously often once only originally otherwise overall particularly perhaps please
plus possibly practically precisely presumably pretty previously primarily probably promptly properly quickly quite
rather readily really recently relatively respectively right roughly seemingly separately seriously shortly simply
since slightly so solely somehow sometimes somewhat soon specifically still strictly subsequently successively
suddenly supposedly surely then there thereafter thereby therefore though thus today together too totally truly
twice typically ultimately unfortunately usually very well whatsoever whereas wherever whichever yet
"""
_PRONOUNS_AND_FUNCTION = """
a about above across after against all along alongside although among amongst amid an and another any anybody anyone
anything beside
around as at because before behind below beneath beside besides between beyond both but by despite down during each
either every everybody everyone everything except few for from he her hers herself him himself his how however i if
in inside into it its itself less like many me mine minus more most much my myself neither no nobody none noone nor
not nothing of off on one onto or other others otherwise our ours ourselves out outside over past per plus minus times
since so
some somebody someone something than that the their theirs them themselves then there these they this those though
through throughout till to toward towards under unless unlike until up upon us versus via we what whatever when
whenever where whereas wherever whether which whichever while who whoever whom whose why with within without yet you
your yours yourself yourselves etc etcetera eg ie vs i'd i'm i've i'll you'd you're you've we're we've we'd we'll
they're they've it's that's what's who's how's how'd where's there's here's let's don't doesn't didn't isn't aren't
wasn't weren't won't can't couldn't shouldn't wouldn't haven't hasn't hadn't
"""
_INTERJECTIONS_AND_DISCOURSE = """
hi hello hey hiya howdy greetings morning afternoon evening thanks thank thx ty cheers please pls plz ok okay alright
yes yeah yep no nope sure great cool nice awesome perfect lovely brilliant wow oh ah um hmm well anyway btw fyi asap
quick question quickie sorry apologies regards advance help favour favor hope day thing things stuff bit lot lots
idea sense point way ways case cases fact reason side sides matter kind sort type question questions answer answers
team boss manager colleague colleagues meeting board report reports deck slide slides email note notes memo
context purpose purposes view look glance summary overview picture story needs interest interests concern concerns
access care planning curiosity data moment summer winter spring autumn season seasons leap range folks folk guys
stuff door world lot lots bunch
"""
# How the answer should look: labels, formats, order, units.
_FORMAT_WORDS = """
yyyy yyyy-mm yyyy-qn yyyy-mm-dd mm dd qn text string label labels labelled labeled format formatted style column
columns row rows field fields value values figure figures decimal decimals digits form order ordered calendar
chronological chronologically alphabetical alphabetically ascending descending first last then next e.g. like
example instance sign percent percentage pct dollars dollar euros euro usd eur cents mg kg ids id identifier
identifiers side-by-side side number numbers amount amounts
"""

_EST_NOUNS = frozenset(
    "interest interests request contest harvest protest conquest manifest forest arrest invest "
    "digest suggest behest".split()
)

CARDINALS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "dozen": 12,
}
"""The number words every reader knows; each reader adds its own (:data:`NUMBER_WORDS` here, the lexicon's)."""
NUMBER_WORDS = {"zero": 0, **CARDINALS, "thousand": 1000, "couple": 2, "pair": 2}
"""Words for a number in a sentence's words (``the top three``, ``a couple of``)."""
ORDINAL_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
}
# "twenty-five", "thirty two": compound number words
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}


def number_word(word: str) -> int | None:
    """``"three"`` -> 3, ``"twenty-five"`` -> 25, ``"second"`` -> None (ordinals are not counts)."""
    w = word.lower()
    if w in NUMBER_WORDS:
        return NUMBER_WORDS[w]
    m = re.fullmatch(r"([a-z]+)-([a-z]+)", w)
    if m and m[1] in _TENS and m[2] in NUMBER_WORDS and NUMBER_WORDS[m[2]] < 10:
        return _TENS[m[1]] + NUMBER_WORDS[m[2]]
    return None


def verb_forms(base: str) -> set[str]:
    """Regular inflections of a verb: -s, -ed, -ing (doubling and e-dropping by the usual rules)."""
    forms = {base}
    if base.endswith(("s", "x", "z", "ch", "sh", "o")):
        forms.add(base + "es")
    elif base.endswith("y") and base[-2:-1] not in "aeiou":
        forms.add(base[:-1] + "ies")
    else:
        forms.add(base + "s")
    if base.endswith("e"):
        forms |= {base + "d", base[:-1] + "ing"}
    elif base.endswith("y") and base[-2:-1] not in "aeiou":
        forms |= {base[:-1] + "ied", base + "ing"}
    else:
        forms |= {base + "ed", base + "ing"}
        if re.fullmatch(r"[a-z]*[^aeiou][aeiou][bdgklmnprt]", base) and len(base) <= 5:
            forms |= {base + base[-1] + "ed", base + base[-1] + "ing"}
    return forms


VERB_BASES = frozenset(_VERBS.split())
VERBS = frozenset(f for v in VERB_BASES for f in verb_forms(v)) | frozenset(_IRREGULAR_FORMS.split())
NOUNLIKE_VERB_FORMS = frozenset(f for v in VERB_BASES for f in verb_forms(v) if f.endswith(("s", "ing")) and f != v)
"""Plural-looking and -ing forms: in a data slot they are nouns ("the total earnings")."""
ADJECTIVES = frozenset(_ADJECTIVES.split())
_EDITING_FORMS = frozenset(
    f
    for v in (
        "delete",
        "update",
        "change",
        "modify",
        "alter",
        "drop",
        "remove",
        "insert",
        "edit",
        "touch",
        "write",
        "save",
        "overwrite",
    )
    for f in verb_forms(v)
)
ADVERBS = frozenset(_ADVERBS.split())
FUNCTION_WORDS = frozenset(_PRONOUNS_AND_FUNCTION.split())
DISCOURSE_WORDS = frozenset(_INTERJECTIONS_AND_DISCOURSE.split())
FORMAT_WORDS = frozenset(_FORMAT_WORDS.split())
ORDINARY = (
    VERBS
    | ADJECTIVES
    | ADVERBS
    | FUNCTION_WORDS
    | DISCOURSE_WORDS
    | FORMAT_WORDS
    | frozenset(NUMBER_WORDS)
    | frozenset(ORDINAL_WORDS)
)


def is_ordinary(word: str, in_data_slot: bool = False) -> bool:
    """Whether ``word`` is ordinary English that names no data.

    In a data slot ("the average ___") only words that cannot be nouns there count: a verb's
    "-s"/"-ing" forms ("earnings", "bookings") and discourse nouns are read as the noun asked for.
    """
    w = word.lower().replace("\u2019", "'")
    if number_word(w) is not None or w in ORDINAL_WORDS:
        return True
    if re.fullmatch(r"[a-z]+(?:iest|[^aeiou]est)", w) and len(w) > 5 and w not in _EST_NOUNS:
        return True  # "busiest", "earliest": a superlative adjective
    if "-" in w:
        parts = [p for p in w.split("-") if p]
        return bool(parts) and all(is_ordinary(p, in_data_slot) or re.fullmatch(r"[a-z]+est", p) for p in parts)
    if in_data_slot:
        if w in _EDITING_FORMS:
            return True  # "without deleting anything": a reassurance, never data
        if w in NOUNLIKE_VERB_FORMS or w in DISCOURSE_WORDS and w not in ADJECTIVES:
            return False
        return w in ORDINARY
    return w in ORDINARY or w.endswith("ly") and len(w) > 4
