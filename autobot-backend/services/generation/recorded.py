"""Answers from a mapping keyed by question text: a scripted generator for tests and callers.

The eval's ``recorded`` candidate (spec section 10) looks its answers up by question id instead,
and hands each to the service (``answer(..., generation=...)``), so recorded SQL takes exactly the
path generated SQL takes (guard, read-only executor, audit).
"""

from __future__ import annotations

from collections.abc import Mapping

from services.generation.protocol import Generation
from services.schema_context import SchemaContext

NO_ANSWER_REASON = "no answer recorded"


class RecordedGenerator:
    """:class:`~services.generation.protocol.SQLGenerator` answering from ``question -> Generation``.

    Questions match exactly after stripping surrounding whitespace; a question with no recorded
    answer is refused with :data:`NO_ANSWER_REASON`. The schema is ignored: the answers were
    produced elsewhere.

    Example:
        >>> gen = RecordedGenerator({"How many orders?": Generation(sql="SELECT count(*) FROM orders")})
        >>> gen.generate(" How many orders? ", None).sql
        'SELECT count(*) FROM orders'
        >>> gen.generate("Who ordered?", None).refusal
        'no answer recorded'
    """

    def __init__(self, answers: Mapping[str, Generation], *, name: str = "recorded", model: str = "recorded") -> None:
        self.name = name
        self.model = model
        self._answers: dict[str, Generation] = {}
        for question, generation in answers.items():
            if not isinstance(generation, Generation):
                raise TypeError(f"the answer to {question!r} is a {type(generation).__name__}, not a Generation")
            key = question.strip()
            if key in self._answers and self._answers[key] != generation:
                raise ValueError(f"two different answers recorded for the question {key!r}")
            self._answers[key] = generation

    def __len__(self) -> int:
        return len(self._answers)

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        return self._answers.get(question.strip(), Generation.refuse(NO_ANSWER_REASON))
