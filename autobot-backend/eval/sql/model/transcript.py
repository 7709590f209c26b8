"""What a model was asked and what it said, per question and per ask: the evidence a wrong answer is
understood by without asking the model again.

A transcript is kept for a model candidate only (``--candidate llm``): the built-in generator sends no
prompt and recorded or reference answers were written beforehand, so theirs would be made up. Its text
has the run's secrets masked before it is kept (:mod:`eval.sql.grading.transcripts`), and a reply
longer than :data:`REPLY_KEPT` characters (a message longer than :data:`MESSAGE_KEPT`) is clipped, its
full length kept beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REPLY_KEPT = 20_000
"""Characters of a model's raw reply a transcript keeps; the rest is cut and its length stated."""
MESSAGE_KEPT = 60_000
"""Characters of one message sent (a large schema) a transcript keeps."""


@dataclass(frozen=True)
class Transcript:
    """One ask of one question: the chat messages sent, the raw reply, the SQL taken from it."""

    messages: tuple[tuple[str, str], ...]
    """(role, content) in the order sent."""
    reply: str | None
    """The model's raw reply (``<think>`` blocks included), clipped to :data:`REPLY_KEPT`."""
    sql: str | None
    """The SQL the generator extracted from the reply; None when it refused or found none."""
    refusal: str | None = None
    """Why no SQL: the model's stated refusal, or that its reply held none."""
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reply_chars: int = 0
    """The raw reply's length before clipping."""

    @property
    def clipped(self) -> bool:
        return self.reply_chars > REPLY_KEPT

    def to_json(self) -> dict[str, Any]:
        return {
            "messages": [{"role": role, "content": content} for role, content in self.messages],
            "reply": self.reply,
            "reply_chars": self.reply_chars,
            "sql": self.sql,
            "refusal": self.refusal,
            "latency_ms": self.latency_ms,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Transcript:
        return cls(
            messages=tuple((str(m["role"]), str(m["content"])) for m in data.get("messages") or ()),
            reply=data.get("reply"),
            sql=data.get("sql"),
            refusal=data.get("refusal"),
            latency_ms=data.get("latency_ms"),
            prompt_tokens=data.get("prompt_tokens"),
            completion_tokens=data.get("completion_tokens"),
            reply_chars=int(data.get("reply_chars") or len(data.get("reply") or "")),
        )


def clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with the whole length."""
    return text if len(text) <= limit else text[:limit] + f"… [clipped: {len(text):,} characters in all]"
