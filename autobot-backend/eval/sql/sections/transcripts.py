"""A model candidate's transcripts: per question and ask, the messages sent, the raw reply, the SQL taken from it,
latency and tokens (secrets masked), in the JSON and on the page; every output says whether they were kept."""

from __future__ import annotations

from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.model.transcript import REPLY_KEPT, Transcript
from eval.sql.sections.base import Place, Section, placed


def line(run: SQLRun) -> str | None:
    """Whether the run's questions carry the model's transcripts, and why not; None for a report older than them."""
    t = run.transcripts
    if t is None:
        return None
    if t.kept:
        return (
            "transcripts: kept per question and ask (messages sent, raw reply, the SQL taken from it, latency, "
            "tokens) in the JSON and HTML reports, secrets masked"
        )
    return f"transcripts: none ({t.why or 'not kept'})"


def _ask(t: Transcript, verdict: str | None, k: int) -> dict[str, Any]:
    tokens = None
    if t.prompt_tokens is not None or t.completion_tokens is not None:
        tokens = f"{fig.number(t.prompt_tokens)} in, {fig.number(t.completion_tokens)} out"
    return {
        "ask": k,
        "verdict": verdict,
        "latency": None if t.latency_ms is None else fig.number(t.latency_ms, " ms"),
        "tokens": tokens,
        "messages": t.messages,
        "reply": t.reply,
        "clipped": f"clipped to {REPLY_KEPT:,} of {t.reply_chars:,} characters" if t.clipped else None,
        "sql": t.sql,
        "refusal": t.refusal,
    }


class Transcripts(Section):
    name = "transcripts"
    places = placed(markdown=Place.CLOSING, summary=())

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        """Whether the JSON and HTML reports hold the model's transcripts (``--no-transcripts``: they do not)."""
        found = line(run)
        return [] if found is None else [f"{md.escape(found[0].upper() + found[1:])}.", ""]

    def html_note(self, run: SQLRun) -> str | None:
        return line(run)

    def html_question(self, run: SQLRun, o: SQLOutcome) -> dict[str, Any]:
        """Each ask's transcript with the verdict of that ask (in the order of ``samples``)."""
        asked = [v.value for v in o.samples] or [o.verdict.value]
        asks = [_ask(t, asked[k] if k < len(asked) else None, k + 1) for k, t in enumerate(o.transcripts)]
        return {"asks": asks, "kept": run.transcripts is not None and run.transcripts.kept}
