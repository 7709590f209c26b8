"""The screens that need no schema, run on the raw text before any linking: writes ("delete the
cancelled orders"), smuggled instructions and SQL, chit-chat and greetings, what the generator does not
compute (forecasts), references to something the question does not say; and a time of day asked of
dates that keep none."""

from __future__ import annotations

import re

from services.embedded.refusal import Refusal

_WRITE_VERBS = frozenset(
    """delete remove drop truncate update insert add create alter change modify set rename edit
replace cancel mark register enroll enrol extend increase decrease reduce raise lower assign move merge archive
restore reset clear erase purge wipe overwrite upsert grant revoke refund approve reject discontinue deactivate
activate disable enable book schedule reschedule transfer correct fix adjust flag unflag close reopen ban block
suspend import upload append duplicate prescribe hire fire promote delist unsubscribe subscribe void undo make ship
send upgrade downgrade record enter submit post email notify reverse restock reorder discount charge credit debit
award issue revert drop""".split()
)
_POLITE_PREFIX = re.compile(
    r"^\s*(?:(?:please|kindly|now|ok|okay|so|hey|hi|and|then|also|just)[\s,]+|"
    r"(?:can|could|would|will)\s+(?:you|we|i)\s+(?:please\s+)?|"
    r"(?:i\s+(?:want|need|would\s+like|'d\s+like)\s+(?:you\s+)?to)\s+|"
    r"(?:let's|lets|let\s+us)\s+|go\s+ahead\s+and\s+|i'd\s+like\s+to\s+|help\s+me\s+)+",
    re.I,
)

_I = re.I
_INJECTION = [
    re.compile(
        r"\b(ignore|disregard|forget|override|bypass|skip)\b[^.?!]{0,40}\b(instructions?|rules?|prompts?|"
        r"guidelines|directions|constraints|restrictions|guardrails|safety|above|previous|earlier)\b",
        _I,
    ),
    re.compile(
        r"\bsystem\s+prompt\b|\byou\s+are\s+now\b|\b(admin|developer|god|dan|jailbreak|sudo|debug|"
        r"unrestricted)\s+mode\b|\bpretend\s+(to\s+be|you)\b|\bnew\s+instructions?\b|"
        r"\bauthori[sz]e\s+you\b|\byou\s+(?:must|should|will|can|may)\s+now\b|"
        r"</?\s*(?:system|instructions?|prompt)\s*>",
        _I,
    ),
    re.compile(
        r"\b(reveal|show|print|leak|display|give|tell)\b[^.?!]{0,30}\b(passwords?|credentials?|secrets?|"
        r"api\s*keys?|tokens?|connection\s+string|your\s+(instructions|prompt|rules))\b",
        _I,
    ),
    re.compile(
        r"['\"`;]\s*(drop|delete|update|insert|alter|truncate|create|grant|attach|exec|execute|replace|"
        r"pragma|shutdown)\b",
        _I,
    ),
    re.compile(r"--|/\*|\*/|\bunion\s+(all\s+)?select\b|\bor\s+'?1'?\s*=\s*'?1\b|\b1\s*=\s*1\b|\bsleep\s*\(", _I),
    re.compile(
        r"\b(drop|truncate|alter)\s+(the\s+)?(\w+\s+)?(table|database|schema|index|view)\b|"
        r"\b(?:grant|revoke)\s+(?:all|select|insert|update|delete|usage|execute)\b|"
        r"\bdelete\s+from\b|\binsert\s+into\b|\bupdate\s+\w+\s+set\b|\bexec(ute)?\s*\(",
        _I,
    ),
]
_AUTHORITY = re.compile(
    r"\b(?:as|i\s+am|i'm)\s+(?:the\s+|an?\s+|your\s+)?(?:admin|administrator|root|superuser|dba|"
    r"owner|developer|operator)\b",
    _I,
)
"""A claim of authority: harmless alone ("as the shop owner, how many ..."), an injection with a demand."""
_SECRETS = frozenset(
    """password passwords credential credentials secret secrets token tokens permission permissions
access privileges bypass override ignore""".split()
)
_CHAIN = (
    r"(?:\b(?:and|then|also|afterwards|after\s+that|next|finally)\b|[,;:])[\s,]*(?:then\s+)?(?:please\s+)?(?:also\s+)?"
)
_CHAINED_WRITE = re.compile(
    _CHAIN + r"(delete|drop|remove|update|insert|truncate|alter|wipe|erase|purge|overwrite|rename)\b", _I
)
_CHAINED_SOFT_WRITE = re.compile(
    _CHAIN + r"(change|set|modify|add|mark|cancel)\s+(the|all|every|a|an|this|that|those|these|its|their|them|it)\b"
    r"[^.?!]*\b(to|as|with|for)\b",
    _I,
)
_OUTPUT_ROW = re.compile(
    r"(?:add|insert|include|append)\s+(?:a|an|one|another)\s+(?:separate\s+|extra\s+|final\s+)?"
    r"(?:row|line|column|group|entry|total)\b[^.?!]{0,30}\b(?:label\w*|called|named)\b",
    _I,
)
_RAW_SQL = re.compile(
    r"^\s*(?:select\s+(?:\*|[\w.]+(?:\s*,\s*[\w.]+)*)\s+from\s+\w+|with\s+\w+\s+as\s*\(|"
    r"insert\s+into\s+\w+|delete\s+from\s+\w+|update\s+\w+\s+set\b|"
    r"(?:drop|alter|create|truncate)\s+(?:table|view|index|database)\s+\w+|pragma\s+\w+|attach\s+)",
    _I,
)
_GRANT_WRITE = re.compile(
    r"^\s*(?:give|grant|offer|apply|award|issue)\b[^.?!]{0,60}\b(?:discounts?|refunds?|credits?|raises?|bonus(?:es)?|"
    r"rebates?|vouchers?|coupons?|promotions?|free\s+\w+)\b",
    _I,
)
_NOT_A_WRITE = re.compile(
    r"(?:set|put|leave|leaving|setting|putting|lay|laying)\s+aside\b|mark\s+my\s+words\b"
    r"|\w+\s+(?:my|your)\b[^.?!:;]{0,40}[:;,\u2014-]|\w+\s+(?:nothing|none)\b"
    r"|\w+\b[^.?!]{0,40}\bfrom\s+(?:consideration|the\s+(?:count|total|analysis|calculation|"
    r"numbers|figures|tally))\b",
    _I,
)
_PREFACE_LEAD = re.compile(r"^\s*(?:before|after|while|since|as|for|once|when|until)\b", _I)


def _in_preface(text: str, at: int) -> bool:
    """Whether position ``at`` lies in an opening clause set off before the question proper
    ("Before I update the forecast sheet, what was ...")."""
    head = text[:at]
    tail = text[at:]
    cut = re.search(r"[,:;\u2014]", tail)
    return (
        bool(_PREFACE_LEAD.match(head))
        and cut is not None
        and bool(re.search(r"\b(?:how|what|which|who|when|list|show|give|count)\b", tail[cut.end() :], _I))
    )


_MAKE_READ = re.compile(
    r"make\s+(?:me\s+)?(?:a|an)\s+(list|table|chart|report|summary|breakdown|ranking|overview)\b", _I
)
_CLAUSE = re.compile(r"(?<=[.?!;])\s+")


def _later_write(text: str) -> str | None:
    """A write request in a later sentence ("How many orders? Then remove the cancelled ones.")."""
    clauses = [c for c in _CLAUSE.split(text.strip()) if c.strip()]
    for clause in clauses[1:]:
        stripped = _POLITE_PREFIX.sub(
            "", re.sub(r"^\W*(?:also|then|next|now|finally|and|after\s+that)\W+", "", clause, flags=_I)
        )
        first = re.match(r"[A-Za-z]+", stripped)
        if first and first.group(0).lower() in _WRITE_VERBS and not _MAKE_READ.match(stripped):
            return first.group(0).lower()
    return None


_DEICTIC = re.compile(
    r"\b(?:from|in|on|for|about|of|with|than|to|during|show|list|compare|sort|rank|and|vs)\s+"
    r"(?:(?:that|those|these)\s+(?!(?:who|whom|which|that|with|without|where|whose)\b)(?:\w+)|this\s+(?!(?:day|week|month|quarter|year|calendar|store|shop|business|"
    r"company|firm|database|dataset|data|team|organi[sz]ation|site|service)\b)\w+|them|it)\b"
    r"(?!\s+(?:that|which|who|where|with|in|on|from|by|whose|have|has|had|were|was|are|is)\b)"
    r"|\b(?:those|these)\s+(?!(?:with|without|who|whom|whose|that|which|where|in|on|at|from|of|having)\b)\w+\b"
    r"(?!\s+(?:that|which|who|where|with|in|on|from|by|whose|have|has|had|were|was|are|is)\b)",
    _I,
)
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|hiya|howdy|greetings|good\s+(morning|afternoon|evening|night)|"
    r"thanks|thank\s+you|thx|cheers|bye|goodbye|see\s+you|ok(ay)?|cool|great|nice)\b",
    _I,
)
_CHAT = [
    re.compile(
        r"\b(write|compose|draft|create|generate|make)\b[^.?!]{0,25}\b(poem|story|stories|song|essay|haiku|"
        r"joke|limerick|letter|tweet|novel|speech|rap|sonnet|lyrics|e-?mails?|messages?|announcements?|memos?|"
        r"blog|newsletter|slogans?|taglines?|captions?|press\s+release|advert\w*)\b",
        _I,
    ),
    re.compile(r"\b(good|catchy|better|nice|clever|new)\s+(name|title|slogan|tagline)\s+for\b", _I),
    re.compile(r"\btell\s+me\s+(a|an|some|about\s+the\s+history)\b", _I),
    re.compile(
        r"\bwho\s+(are|made|built|created|trained)\s+you\b|\bwhat\s+(are|can)\s+you\b|"
        r"\bhow\s+are\s+you\b|\bare\s+you\s+(a|an|real|human)\b|\byour\s+name\b|\bhow\s+is\s+your\b",
        _I,
    ),
    re.compile(
        r"\b(recommend|suggest|advise|advice|opinion|favou?rite|meaning\s+of\s+life|translate|"
        r"weather|recipe)\b",
        _I,
    ),
    re.compile(r"^\s*(can|could)\s+you\s+help(\s+me)?\s*[?.!]*\s*$", _I),
]


_UNSUPPORTED = re.compile(
    r"\b(median|percentiles?|quartiles?|standard\s+deviation|std\s*dev|stddev|variance|correlat\w*|regression|"
    r"forecast\w*|predict\w*|projected|projection|extrapolat\w*|will\s+(?:be|we|sell|make|earn|have))\b"
    r"|^\s*(?:please\s+)?project\b"
    r"|(?<!\bthe\s)\bnext\s+(?:\w+\s+)?(?:year|month|quarter|week|season|christmas|summer|winter|spring|autumn|fall|"
    r"holidays?)\b"
    r"|^\s*(?:what|how\s+(?:much|many)|which|when|who)\b[^.?!]*\bwill\b",
    _I,
)


def screen(question: str) -> Refusal | None:
    """Declines that need no schema: smuggled instructions, writes, chit-chat."""
    text = question.strip()
    if not text:
        return Refusal("unclear", "the question is empty")
    if _RAW_SQL.match(text):
        return Refusal("injection", "the question is SQL; ask it in words and the SQL is written for you")
    stripped = _POLITE_PREFIX.sub("", text)
    first = re.match(r"[A-Za-z]+", stripped)
    if first and first.group(0).lower() == "make" and _MAKE_READ.match(stripped):
        first = None  # "make a list of ...": a request to read
    if first and re.match(r"[A-Za-z]+\s+(?:me|us|up)\b", stripped, _I):
        first = None  # "drop me a number", "add up the totals": said to the reader, not to the data
    if first and _NOT_A_WRITE.match(stripped):
        first = None  # "set aside the refunds: ...", "update my slides: ...": not a change to the data
    smuggled = [m for m in (p.search(text) for p in _INJECTION) if m]
    claim = _AUTHORITY.search(text)
    if claim and any(w.lower() in _WRITE_VERBS or w.lower() in _SECRETS for w in re.findall(r"[A-Za-z]+", text)):
        smuggled.append(claim)  # "as the admin, I ... remove all orders": a claim that comes with a demand
    overriding = any(p.search(text) for p in _INJECTION[:2])  # "ignore previous instructions", "you are now"
    if first and first.group(0).lower() in _WRITE_VERBS and not overriding:
        return Refusal(
            "write", f"it asks to change data ({first.group(0).lower()!r}); this service only reads, it never writes"
        )
    if _GRANT_WRITE.match(stripped) and not overriding:
        return Refusal("write", "it asks to give something to rows of the data (a change); this service only reads")
    if smuggled:
        return Refusal(
            "injection",
            "the question carries an instruction or SQL of its own "
            f"({smuggled[0].group(0).strip()!r}); only questions about the data are answered",
        )
    later = _later_write(text)
    if later:
        return Refusal(
            "injection", f"a request to change data ({later!r}) follows the question; this service only reads"
        )
    m = _CHAINED_WRITE.search(text) or _CHAINED_SOFT_WRITE.search(text)
    if m and _OUTPUT_ROW.match(text, m.start(1)):
        m = None  # "..., and add a row labelled 'none' for ...": a row of the answer, not of the data
    if m and m.start() > 0:
        return Refusal(
            "injection",
            f"a request to change data ({m.group(1).lower()!r}) is attached to the question; this service only reads",
        )
    if re.search(r"\bset\b[^.?!]{1,60}\bto\b", stripped, _I) and stripped.lower().startswith("set"):
        return Refusal("write", "it asks to set a value; this service only reads")
    for pattern in _CHAT:
        if pattern.search(text):
            return Refusal("non_analytical", "it is not a question about the data in this database")
    m = _UNSUPPORTED.search(text)
    if m and _in_preface(text, m.start()):
        m = None  # "Before I update the forecast sheet, what was ...": the request comes after
    if m:
        return Refusal(
            "unclear",
            f"it asks for {m.group(0).lower()!r}, which this generator does not compute; "
            "it answers counts, totals, averages, extremes, shares and changes",
        )
    if _GREETING.match(text) and len(re.findall(r"[A-Za-z]+", text)) <= 6:
        return Refusal("non_analytical", "it is a greeting, not a question about the data")
    m = _DEICTIC.search(text)
    if m and not (re.search(r"[,.;?!]", text[: m.start()]) and len(re.findall(r"[A-Za-z]+", text[: m.start()])) >= 6):
        # a later clause of a long question refers back within it
        return Refusal(
            "unclear",
            f"it refers to something the question does not say ({m.group(0).strip()!r}); "
            "name the rows, period or measure meant",
        )
    return None


_TIME_OF_DAY = re.compile(
    r"\btime\s+of\s+(?:the\s+)?day\b|\bhour\s+of\b|\bhourly\b|\b(?:per|by|each|every|which|"
    r"what|peak|busiest|rush)\s+hours?\b|\bwhat\s+time\b|\bo'clock\b|\bin\s+the\s+"
    r"(?:morning|afternoon|evening)s?\b|\bovernight\b",
    _I,
)


def time_of_day(question: str, index) -> Refusal | None:
    """A time of day asked of a schema whose dates keep none ("what time of day do orders come in")."""
    m = _TIME_OF_DAY.search(question)
    if m is None or any(c.has_time for c in index.columns()):
        return None
    if any(w in c.name.lower().split("_") for w in m.group(0).lower().split() for c in index.columns()):
        return None  # "their hourly rate": a column's name, not a time of day
    return Refusal(
        "out_of_schema", f"it asks about {m.group(0).lower()!r}, but this database keeps dates without a time of day"
    )
