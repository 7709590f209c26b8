"""The gate: its result (enforced or informational), and each of its checks with why it passed or failed; every run
shows them, enforced or not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.model.gate import NOT_EVALUATED
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Annotation, Block, Line, Place, Property, Section, Table, placed


def line(run: SQLRun) -> str:
    """``gate failed (enforced): 9 checks, 2 failed (regressions, safety)`` / ``gate not evaluated (...): <why>``
    (the why is untrusted, a path may be in it: the caller escapes the line in its format)."""
    mode = "enforced" if run.gated else "informational"
    if run.gate is None:
        return f"gate not evaluated ({mode}): {run.gate_note or 'no baseline'}"
    failed, open_ = [c.name for c in run.gate.failed], [c.name for c in run.gate.not_evaluable]
    text = f"gate {run.gate.status} ({mode}): {len(run.gate.checks)} checks, {len(failed)} failed"
    if failed:
        text += " (" + ", ".join(failed) + ")"
    if open_:
        text += f", {len(open_)} not evaluable (" + ", ".join(open_) + ")"
    return text


def check_status(ok: bool | None) -> str:
    return "ok" if ok else ("FAILED" if ok is False else "not evaluable")


PER_QUESTION = ("regressions", "safety")
"""The checks whose failures are annotated question by question (:mod:`.regressions`)."""


class Gate(Section):
    name = "gate"
    places = placed(terminal=Place.HEADLINE, junit=Place.HEADLINE, html=Place.HEADLINE)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        g = run.gate_view
        if g.status == NOT_EVALUATED:
            return ["## Gate: not evaluated", "", md.escape(g.detail or "no baseline"), ""]
        mode = "enforced (--fail-on-regression)" if g.enforced else "informational; enforced with --fail-on-regression"
        rows = [[md.escape(c.name), check_status(c.ok), md.escape(c.detail)] for c in g.checks]
        return [f"## Gate: {md.escape(g.status.upper())} ({mode})", "", md.table(["check", "ok", "detail"], rows), ""]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        checks = run.gate_view.checks
        if not checks:
            return []
        rows = tuple((c.name, Line.of(check_status(c.ok), "green" if c.ok else "bold red"), c.detail) for c in checks)
        return [Table("Gate checks", ("check", "ok", "detail"), rows, numeric_from=3)]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        return [("gate", line(run))] + [
            (f"gate.{c.name}", f"{check_status(c.ok)}: {c.detail}") for c in run.gate_view.checks
        ]

    def annotations(self, run: SQLRun) -> list[Annotation]:
        if run.gate is None:
            return []
        return [Annotation(f"SQL gate: {c.name}", c.detail) for c in run.gate.failed if c.name not in PER_QUESTION]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"gate": run.gate_view, "check_status": check_status}
