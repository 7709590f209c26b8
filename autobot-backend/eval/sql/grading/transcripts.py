"""A model candidate's transcript of each ask, taken from the service's answer with the run's secrets masked.

The service keeps what a model generator sent and got back (``Generation.messages`` and ``raw``); this
turns it into the run model's :class:`~eval.sql.model.transcript.Transcript`. Before anything is kept,
every secret of the run is masked where it stands as a whole token: the values of the environment's
credential-named variables and the secrets in its and the command line's URLs (the ones a crash's
traceback is scrubbed of, :func:`services.redaction.environment_secrets`), and the generator's own key
and endpoint secrets. A model that echoes its API key, or a server that copies the ``Authorization``
header into its reply, leaves ``***`` in the transcript. Headers are never part of it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from eval.sql.model.transcript import MESSAGE_KEPT, REPLY_KEPT, Message, Transcript, TranscriptsNote, clipped
from services.nl_database_service import Answer
from services.redaction import environment_secrets, scrub_secrets, url_secrets

OPTED_OUT = "left out with --no-transcripts, for a report meant to be published"


def run_secrets(generator: object) -> set[str]:
    """Every secret a transcript of this run must not show (see the module docstring)."""
    secrets = environment_secrets(os.environ, sys.argv[1:])
    key = getattr(generator, "api_key", None)
    if isinstance(key, str) and key.strip():
        secrets.add(key.strip())
    base_url = getattr(generator, "base_url", None)
    if isinstance(base_url, str):
        secrets |= url_secrets(base_url)
    return secrets


def transcript(answer: Answer, secrets: Iterable[str]) -> Transcript | None:
    """The ask ``answer`` came from, masked and clipped; None when no model was asked (no messages sent)."""
    g = answer.generation
    if g is None or g.messages is None:
        return None
    known = set(secrets)

    def shown(text: str | None, limit: int) -> str | None:
        return None if text is None else clipped(scrub_secrets(text, known), limit)

    return Transcript(
        messages=tuple(Message(role, shown(content, MESSAGE_KEPT) or "") for role, content in g.messages),
        reply=shown(g.raw, REPLY_KEPT),
        sql=shown(g.sql, REPLY_KEPT),
        refusal=shown(g.refusal, REPLY_KEPT),
        latency_ms=g.latency_ms,
        prompt_tokens=g.prompt_tokens,
        completion_tokens=g.completion_tokens,
        reply_chars=len(g.raw or ""),
    )


def note(candidate: str, keep: bool) -> TranscriptsNote:
    """The report's ``transcripts`` key: whether its questions carry transcripts, and why not."""
    if not keep:
        return TranscriptsNote(False, OPTED_OUT)
    if candidate == "llm":
        return TranscriptsNote(True)
    why = {
        "embedded": "the built-in generator is not a model: it sends no prompt, so there is no transcript",
        "recorded": "recorded answers were written beforehand, outside this run: there is no transcript of them",
        "reference": "the reference candidate answers with the corpus's own SQL: there is no transcript",
    }.get(candidate, f"the {candidate} candidate is not a model asked by this run: there is no transcript")
    return TranscriptsNote(False, why)
