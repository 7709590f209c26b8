"""Fitting the plan's output to the answer's columns the question lists: measures shown or hidden, an
entity's key shown, the period or dimension the list names but the plan lacks (:func:`.answer_spec.apply_spec`)."""

from __future__ import annotations

from services.embedded.answer_spec import apply_spec
from services.embedded.read_state import ReadState


def answer_columns(r: ReadState) -> None:
    """The plan brought in line with the answer's columns, when the question lists them."""
    if r.spec is not None:
        r.plan = apply_spec(r.plan, r.spec, r.index)
