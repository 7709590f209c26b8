"""General analytic vocabulary: the words that cue an aggregate, a superlative, a change, a share,
a comparison, a time unit or a negation, the words that carry no schema meaning, and everyday
synonyms for the words schemas are written with. Nothing here names a table, a column or a question
of any test set: schema words come from the live schema, in :mod:`.linking`.
"""

from __future__ import annotations

import re

from services.embedded.lexicon import stem

AVG_WORDS = frozenset({"average", "avg", "mean", "typical"})
MAX_WORDS = frozenset(
    """max maximum highest largest biggest greatest top most longest latest newest priciest peak
best heaviest oldest""".split()
)
MIN_WORDS = frozenset(
    """min minimum lowest smallest least fewest cheapest shortest earliest bottom worst youngest
lightest""".split()
)
# Superlatives whose direction and measure word are one ("the 3 cheapest products"): word -> (desc, hint)
SUPERLATIVE_HINTS = {
    "cheapest": (False, "price"),
    "priciest": (True, "price"),
    "expensive": (True, "price"),
    "longest": (True, "length"),
    "shortest": (False, "length"),
    "oldest": (False, "date"),
    "newest": (True, "date"),
    "latest": (True, "date"),
    "earliest": (False, "date"),
    "recent": (True, "date"),
    "youngest": (True, "birth"),
    "biggest": (True, None),
    "largest": (True, None),
    "smallest": (False, None),
    "common": (True, "count"),
    "popular": (True, "count"),
    "frequent": (True, "count"),
    "best-selling": (True, "units"),
    "bestselling": (True, "units"),
    "top-selling": (True, "units"),
    "worst-selling": (False, "units"),
    "slowest-selling": (False, "units"),
    "fastest-selling": (True, "units"),
    "busiest": (True, "count"),
    "quietest": (False, "count"),
    "slowest": (False, None),
    "weakest": (False, None),
    "strongest": (True, None),
    "steepest": (True, None),
    "sharpest": (True, None),
    "fastest": (True, None),
}
PERCENT_WORDS = frozenset({"percentage", "percent", "%", "pct", "share", "proportion", "fraction", "rate", "ratio"})
CHANGE_WORDS = frozenset(
    """change growth grow grew grown increase decrease difference delta rise rose risen drop
decline differ compare vs versus fell fall fallen shrink shrank added gained gain lost""".split()
)
PCT_CHANGE_WORDS = frozenset({"growth", "percent", "percentage", "%", "pct", "rate"})
NEGATIONS = frozenset(
    """not no never without n't none nobody neither nor yet unknown zero missing null empty blank
lack lacking""".split()
)
NEGATION_CONTRACTIONS = frozenset(
    """haven't hasn't hadn't didn't don't doesn't isn't aren't wasn't weren't won't
can't cannot never shouldn't""".split()
)
EXCLUDE_WORDS = frozenset(
    """excluding except besides other exclude outside ignore ignoring disregard disregarding
omit omitting minus leaving forget forgetting remove removing drop dropping""".split()
)
INCLUDE_ZERO = re.compile(
    r"\b(including|include|includes|even|incl\.?)\b[^.?!]{0,40}\b(none|no|zero|0|without|nothing|never|any)\b"
    r"|\bwith or without\b|\bincluding (those|ones|the ones)\b|\bzero\b[^.?!]{0,20}\btoo\b"
    r"|\b(?:with|show|shows|showing|as|give|giving|report|reporting|list|listing|put|counting|count|at)\s+(?:a\s+)?"
    r"(?:0|zero)\b|\b(?:0|zero)\s+(?:for|where|when|if)\b|\b(?:0|zero)\s+(?:should|must)\b"
    r"|\bno\s+\w+\s+(?:should|must)\s+(?:still\s+)?(?:show|appear|count|be\s+(?:listed|shown|included|counted))"
    r"|\b(?:even|also)\s+(?:those|the\s+ones|ones|any)\s+(?:with|that|who|which)\s+(?:have\s+|had\s+)?"
    r"(?:no|none|never|nothing|not)\b",
    re.I,
)
DURATION_UNITS = {
    stem(w): minutes for w, minutes in (("second", 1 / 60), ("minute", 1), ("hour", 60), ("day", 1440), ("week", 10080))
}
"""Stems of units of time -> their length in minutes: a duration asked in one unit, kept in another."""

COMPARATORS = [  # phrase stems -> operator
    (("more", "than"), ">"),
    (("greater", "than"), ">"),
    (("higher", "than"), ">"),
    (("larger", "than"), ">"),
    (("bigger", "than"), ">"),
    (("above",), ">"),
    (("over",), ">"),
    (("exceed",), ">"),
    (("exceeding",), ">"),
    (("at", "least"), ">="),
    (("or", "more"), ">="),
    (("minimum", "of"), ">="),
    (("no", "less", "than"), ">="),
    (("less", "than"), "<"),
    (("fewer", "than"), "<"),
    (("lower", "than"), "<"),
    (("smaller", "than"), "<"),
    (("under",), "<"),
    (("below",), "<"),
    (("at", "most"), "<="),
    (("or", "less"), "<="),
    (("or", "fewer"), "<="),
    (("no", "more", "than"), "<="),
    (("up", "to"), "<="),
    (("maximum", "of"), "<="),
    (("exactly",), "="),
    (("equal", "to"), "="),
    # comparatives of a quantity kept in a unit ("longer than 1,500 km"): the unit names the column
    (("longer", "than"), ">"),
    (("shorter", "than"), "<"),
    (("heavier", "than"), ">"),
    (("lighter", "than"), "<"),
    (("further", "than"), ">"),
    (("farther", "than"), ">"),
]

# Words that carry no schema meaning: function words, analytic verbs and nouns, time words.
# A content word outside this list that links to nothing in the schema is evidence that the
# question asks for data the schema does not hold.
GENERAL_WORDS = frozenset(
    """
a an the of to in on at for from by with within without into onto about as and or but nor so than then that this these
those there here it its it's they them their theirs we us our ours you your yours i me my mine he she his her who whom
whose which what when where why how whether if else also too very really just only even still yet already ever
is are was were be been being am do does did done doing have has had having get gets got gotten can could will would
shall should may might must let lets let's s
show shows showing list listing give gives giving tell find display provide calculate compute count
counts counted counting sum summed tally rank ranked ranking rankings sort sorted group grouped grouping
break broken down up out over under across along through throughout per each every all any some none no not never
both either neither one ones another other others own same such much many more most less least few fewer fewest
number numbers total totals amount amounts average averages avg mean median typical overall combined whole entire
altogether aggregate aggregated cumulative running value values figure figures statistic statistics stat stats
maximum max minimum min highest lowest largest smallest biggest greatest top bottom best worst first last next
previous prior preceding following latest earliest recent recently newest oldest longest shortest cheapest priciest
expensive high higher low lower big bigger large larger small smaller great greater long longer short shorter
percentage percent pct share proportion fraction ratio breakdown distribution split
change changes changed growth grow grew grown increase increased decrease decreased difference differences
delta rise rose drop dropped decline declined compare compared comparing comparison versus vs against relative
trend over-time
time times date dates day days daily week weeks weekly month months monthly quarter quarters quarterly year years
yearly annual annually annum today yesterday tomorrow now currently current period periods ago since before after
during between until till from to through ending starting start end beginning begin so-far ytd mtd calendar
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec q1 q2 q3 q4 h1 h2 fy
monday tuesday wednesday thursday friday saturday sunday weekend weekday weekdays
more than equal exactly above below least most or greater
distinct unique different separate individual respective
including include includes included exclude excluding excluded except besides only
whose where which who whom what when
exist exists existing existed have having had
make makes made making place places placed placing bring brings brought generate generates generated
come comes came happen happened happens occur occurred take took taken use used using go went gone see seen
saw visited attended receive received keep kept hold held involve involved contain contained contains containing
appear appeared
belong belongs belonged associated related linked attached tied
record records recorded entry entries row rows thing things something anything everything nothing
anyone someone everyone nobody people person
name names named called titled label labels
yes please thanks thank kindly okay ok
like want wanted need needed know
per-cent percent percentages
number-of
often frequently rarely ever always usually sometimes never
charge charged charging charges billed
write writes written wrote
catalogue catalog collection database db dataset system overall
unknown missing empty blank null known recorded
allow allowed allows permit permitted
reach reached achieve achieved produce produced perform performed handle handled serve served cover covered
require required receive received consist remain remaining left currently actually approximately around roughly
information info details overview report summary new size single among common popular frequent
outstanding pending unreturned unfulfilled unresolved decade decades duration
log logs logged company organization organisation firm while unless whilst awaiting waiting
distributed distribute zero volume volumes
pull fetch retrieve extract identify determine summarize summarise summarized report reports present produce prepare
check see look looks looking know want need get obtain query run compute work figure analyze analyse examine
investigate explore output print plot chart graph visualize visualise measure evaluate assess pick choose
highlight quick brief short simple full complete detailed rough exact precise general main key major relevant specific
particular various corresponding actual real picture snapshot terms term base performance perform performs performed
performing trend trends trending pattern patterns behaviour behavior level levels kind kinds type types sort sorts
currently today's recently lately ever overall total whole entire approximately about around nearly almost
contribute contributes contributed contribution worth valued saw see sees
second third fourth fifth 2nd 3rd 4th 5th
top-selling best-selling bestselling worst-selling
active available live valid ongoing enabled inactive
""".replace("?", "").split()
)

GENERIC_COLUMN_WORDS = frozenset({"id", "key", "code", "no", "num", "number", "nr", "pk", "fk", "ref", "uuid"})
"""Parts of a column name that say how it is stored, not what it means."""
DATE_WORDS = frozenset({"date", "day", "time", "timestamp", "dt", "at", "on", "when", "year"})

TIME_UNITS = {
    "day": "day",
    "daily": "day",
    "single-day": "day",
    "one-day": "day",
    "week": "week",
    "weekly": "week",
    "month": "month",
    "monthly": "month",
    "quarter": "quarter",
    "quarterly": "quarter",
    "year": "year",
    "yearly": "year",
    "annual": "year",
    "annually": "year",
}
ADVERB_GRAINS = frozenset("daily weekly monthly quarterly yearly annual annually single-day one-day".split())
PERIOD_ABBREV = {
    "mom": "month",
    "m/m": "month",
    "qoq": "quarter",
    "q/q": "quarter",
    "yoy": "year",
    "y/y": "year",
    "wow": "week",
}

# General synonyms between everyday business words and the words schemas are written with.
# Applied as alternatives: a question word may link through any of them.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "buyer": ("customer",),
    "shopper": ("customer",),
    "purchaser": ("customer",),
    "consumer": ("customer",),
    "account": ("customer",),
    "customer": ("account", "client"),
    "client": ("customer", "account"),
    "purchase": ("order",),
    "sale": ("revenue", "order"),
    "sell": ("order",),
    "buy": ("order",),
    "transaction": ("order",),
    "spend": ("revenue",),
    "income": ("revenue",),
    "turnover": ("revenue",),
    "earn": ("revenue",),
    "earning": ("revenue",),
    "gross": ("revenue",),
    "money": ("revenue",),
    "sku": ("product",),
    "online": ("web", "online", "ecommerce"),
    "in-store": ("store",),
    "instore": ("store",),
    "telephone": ("phone",),
    "item": ("product",),
    "article": ("product",),
    "merchandise": ("product",),
    "basket": ("order",),
    "unit": ("quantity",),
    "qty": ("quantity",),
    "registration": ("signup", "join", "register"),
    "enrollment": ("signup", "join", "enroll"),
    "enrolment": ("signup", "join", "enrol"),
    "priced": ("price",),
    "borrow": ("loan",),
    "lend": ("loan",),
    "checkout": ("loan",),
    "rental": ("loan",),
    "rent": ("loan",),
    "visit": ("appointment",),
    "consultation": ("appointment",),
    "booking": ("appointment", "reservation"),
    "physician": ("doctor",),
    "clinician": ("doctor",),
    "medication": ("drug",),
    "medicine": ("drug",),
    "headcount": ("employee", "staff", "size"),
    "staff": ("employee",),
    "worker": ("employee",),
    "pay": ("salary",),
    "wage": ("salary",),
    "kind": ("type", "category"),
    "type": ("category", "kind"),
    "class": ("category", "type"),
    "genre": ("category",),
    "plan": ("type",),
    "tier": ("type", "level"),
    "nation": ("country",),
    "nationality": ("country",),
    "town": ("city",),
    "location": ("city", "country"),
    "region": ("country",),
    "origin": ("country", "nationality"),
    "signup": ("join", "register", "signup"),
    "join": ("signup", "register"),
    "register": ("signup", "join"),
    "birth": ("born",),
    "created": ("signup",),
    "length": ("page", "duration"),
}

# Nationality adjectives -> the country, for schemas that store country names.
DEMONYMS = {
    "american": "united states",
    "us": "united states",
    "usa": "united states",
    "u.s.": "united states",
    "british": "united kingdom",
    "uk": "united kingdom",
    "english": "united kingdom",
    "canadian": "canada",
    "french": "france",
    "german": "germany",
    "spanish": "spain",
    "italian": "italy",
    "dutch": "netherlands",
    "belgian": "belgium",
    "swiss": "switzerland",
    "austrian": "austria",
    "swedish": "sweden",
    "norwegian": "norway",
    "danish": "denmark",
    "finnish": "finland",
    "irish": "ireland",
    "polish": "poland",
    "portuguese": "portugal",
    "greek": "greece",
    "turkish": "turkey",
    "russian": "russia",
    "ukrainian": "ukraine",
    "chinese": "china",
    "japanese": "japan",
    "korean": "south korea",
    "indian": "india",
    "pakistani": "pakistan",
    "australian": "australia",
    "mexican": "mexico",
    "brazilian": "brazil",
    "argentinian": "argentina",
    "argentine": "argentina",
    "chilean": "chile",
    "colombian": "colombia",
    "peruvian": "peru",
    "egyptian": "egypt",
    "nigerian": "nigeria",
    "kenyan": "kenya",
    "south african": "south africa",
    "moroccan": "morocco",
    "israeli": "israel",
    "saudi": "saudi arabia",
    "emirati": "united arab emirates",
    "thai": "thailand",
    "vietnamese": "vietnam",
    "indonesian": "indonesia",
    "filipino": "philippines",
    "czech": "czech republic",
    "hungarian": "hungary",
    "romanian": "romania",
    "scottish": "united kingdom",
    "welsh": "united kingdom",
    "kiwi": "new zealand",
}
# Everyday words for coded values that schemas store as a letter or a short code.
VALUE_ALIASES = {
    "female": ("f", "female", "woman", "w"),
    "woman": ("f", "female", "w"),
    "women": ("f", "female", "w"),
    "male": ("m", "male", "man"),
    "man": ("m", "male"),
    "men": ("m", "male"),
    "girl": ("f", "female"),
    "boy": ("m", "male"),
}
# Irregular past tenses name the state their participle does ("passengers who flew": status 'flown').
VALUE_ALIASES.update(
    {
        past: (participle,)
        for past, participle in (
            ("flew", "flown"),
            ("wrote", "written"),
            ("gave", "given"),
            ("took", "taken"),
            ("drove", "driven"),
            ("rode", "ridden"),
            ("spoke", "spoken"),
            ("chose", "chosen"),
            ("broke", "broken"),
            ("stole", "stolen"),
            ("grew", "grown"),
            ("threw", "thrown"),
            ("drew", "drawn"),
            ("knew", "known"),
            ("saw", "seen"),
            ("went", "gone"),
            ("ate", "eaten"),
            ("fell", "fallen"),
            ("hid", "hidden"),
            ("forgot", "forgotten"),
            ("froze", "frozen"),
        )
    }
)

GENERAL_STEMS = frozenset(stem(w) for w in GENERAL_WORDS)
GENERIC_COLUMN_STEMS = frozenset(stem(w) for w in GENERIC_COLUMN_WORDS)
DATE_STEMS = frozenset(stem(w) for w in DATE_WORDS)
