"""What a model was asked and what it said, per question and per ask: the evidence a wrong answer is
understood by without asking the model again.

A transcript is kept for a model candidate only (``--candidate llm``): the built-in generator sends no
prompt and recorded or reference answers were written beforehand, so theirs would be made up. Its text
has the run's secrets masked before it is kept (:mod:`eval.sql.grading.transcripts`), and a reply
longer than :data:`REPLY_KEPT` characters (a message longer than :data:`MESSAGE_KEPT`) is clipped, its
full length kept beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from eval.sql.model.codec import key

REPLY_KEPT = 20_000
"""Characters of a model's raw reply a transcript keeps; the rest is cut and its length stated."""
MESSAGE_KEPT = 60_000
"""Characters of one message sent (a large schema) a transcript keeps."""


class Message(NamedTuple):
    """One chat message sent: ``(role, content)``, written as ``{"role", "content"}``."""

    role: str
    content: str


def _reply_length(data: Mapping[str, Any]) -> int:
    """A transcript written before ``reply_chars`` was kept: the reply as kept is its length."""
    return len(data.get("reply") or "")


@dataclass(frozen=True, kw_only=True)
class Transcript:
    """One ask of one question: the chat messages sent, the raw reply, the SQL taken from it."""

    messages: tuple[Message, ...]
    """In the order sent."""
    reply: str | None
    """The model's raw reply (``<think>`` blocks included), clipped to :data:`REPLY_KEPT`."""
    reply_chars: int = field(default=0, metadata=key(absent=_reply_length))
    """The raw reply's length before clipping."""
    sql: str | None
    """The SQL the generator extracted from the reply; None when it refused or found none."""
    refusal: str | None = None
    """Why no SQL: the model's stated refusal, or that its reply held none."""
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    @property
    def clipped(self) -> bool:
        return self.reply_chars > REPLY_KEPT


@dataclass(frozen=True)
class TranscriptsNote:
    """Whether a run's questions carry the model's transcripts (only a model candidate's can), and why not."""

    kept: bool
    why: str | None = None
    """Why none were kept: ``--no-transcripts``, or the candidate is not a model asked by this run."""


def clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with the whole length."""
    return text if len(text) <= limit else text[:limit] + f"… [clipped: {len(text):,} characters in all]"
