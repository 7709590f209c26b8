"""The generator interface: question + schema context -> SQL, or a refusal with its reason.

Every way of producing SQL (a model behind an OpenAI-compatible endpoint, the built-in offline
generator, a file of recorded answers) implements :class:`SQLGenerator`, so the service and the
eval harness never care which one they hold.

Two ways to fail, kept apart on purpose:

* a :class:`Generation` with ``sql=None`` is the generator *declining* (or producing nothing
  usable): a verdict about the generator, reported as ``refused`` with the reason;
* :class:`GeneratorUnavailable` means it could not be asked at all (configuration missing,
  endpoint unreachable): no verdict about the generator; the eval counts it as unmeasured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from services.schema_context import SchemaContext


class GeneratorUnavailable(Exception):
    """The generator could not be asked (missing configuration, endpoint down, timeout)."""


@dataclass(frozen=True)
class Generation:
    sql: str | None = None
    """The SQL to run; ``None`` when the generator declined."""
    refusal: str | None = None
    """Why no SQL: the generator's stated refusal, or why nothing usable came back."""
    raw: str | None = None
    """The generator's raw output (a model's reply), kept as evidence."""
    latency_ms: float | None = None
    """A model's wall time for this answer, retries included (None for an offline generator)."""
    prompt_tokens: int | None = None
    """From the endpoint's ``usage``; None when it does not report it."""
    completion_tokens: int | None = None
    attempts: int | None = None
    """Requests it took (1 without a retry)."""
    messages: tuple[tuple[str, str], ...] | None = None
    """The chat messages a model was sent, (role, content) in order; None for a generator that sends none."""

    def __post_init__(self) -> None:
        if (self.sql is None) == (self.refusal is None):
            raise ValueError("a Generation carries exactly one of sql or refusal")

    @classmethod
    def refuse(cls, reason: str, raw: str | None = None) -> Generation:
        return cls(sql=None, refusal=reason, raw=raw)

    @property
    def refused(self) -> bool:
        return self.sql is None


@runtime_checkable
class SQLGenerator(Protocol):
    name: str
    """Generator family and version, e.g. ``embedded-v5`` or ``openai-chat``."""
    model: str
    """The model answering (``embedded-v5`` for the built-in one, the endpoint's model name...)."""

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        """SQL for ``question`` in ``schema.dialect``, or a refusal; raises GeneratorUnavailable."""
        ...
