"""Tracebacks and log records made fit for stderr: no secret of the run in them, nothing a terminal obeys.

A crash prints its traceback, and the service logs a generator's exception with its traceback; either
may quote a URL with a token in it (``sk-...@host``), a key an HTTP library echoed, a password a
driver repeated. Both pass through :func:`services.redaction.redact_traceback` (the secrets of the
environment and the command line scrubbed as whole tokens, user info and ``secret=value`` masked by
pattern) and :func:`eval.core.untrusted.inert`.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from collections import Counter

from eval.core.untrusted import inert

__all__ = [
    "count_logs",
    "fit_to_print",
    "install_log_redaction",
    "log_summary",
    "merge_log_counts",
    "print_traceback",
    "take_log_counts",
]

SHOWN_PER_KIND = 3
"""How many records of one kind a command that counts its logs prints in full (:func:`count_logs`)."""
Kind = tuple[str, str, str]
"""A kind of log record: the logger's name, the level and the message's template (before its arguments)."""


def fit_to_print(text: str) -> str:
    """``text`` with the run's secrets masked and its control characters escaped. Should the redaction
    itself fail to load (a broken install), the text is withheld rather than printed as it is."""
    try:
        from eval.core.outbound import redact
        from services.redaction import redact_traceback
    except Exception:  # whatever broke, an unredacted traceback is not printed
        return "(withheld: the redaction of secrets could not be loaded)"
    return inert(redact(redact_traceback(text, os.environ, sys.argv[1:])))


def print_traceback() -> None:
    """The exception being handled, its traceback fit to print, on stderr."""
    print(fit_to_print(traceback.format_exc()).rstrip("\n"), file=sys.stderr)


class _RedactingStderr(logging.Handler):
    """What Python prints for a log record when nothing configured logging (``logging.lastResort``),
    redacted: warnings and errors, their tracebacks included. Written to the ``sys.stderr`` of the moment,
    as the handler it replaces does. When ``shown_per_kind`` is set, only that many records of each kind are
    printed; every record is counted (``seen``, ``shown`` per kind), for :func:`log_summary`."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.shown_per_kind: int | None = None
        self.seen: Counter[Kind] = Counter()
        self.shown: Counter[Kind] = Counter()
        self.handed: tuple[Counter[Kind], Counter[Kind]] = (Counter(), Counter())
        """What :func:`take_log_counts` has handed on already (a forked child's)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = (record.name, record.levelname, str(record.msg))
            self.seen[kind] += 1
            if self.shown_per_kind is not None and self.shown[kind] >= self.shown_per_kind:
                return
            self.shown[kind] += 1
            sys.stderr.write(fit_to_print(self.format(record)) + "\n")
        except Exception:  # logging's own rule: a failing handler does not raise
            self.handleError(record)


def install_log_redaction() -> None:
    """Route the records no handler takes (the service's own warnings, with their tracebacks) through the
    redaction; a program that configured logging keeps its own handlers."""
    if not isinstance(logging.lastResort, _RedactingStderr):
        handler = _RedactingStderr(logging.WARNING)
        logging.lastResort = handler


def _handler() -> _RedactingStderr:
    install_log_redaction()
    assert isinstance(logging.lastResort, _RedactingStderr)
    return logging.lastResort


def count_logs(shown_per_kind: int | None = SHOWN_PER_KIND) -> None:
    """From now on print only the first ``shown_per_kind`` records of each kind (None: every one), counting all:
    a run whose model's SQL fails 148 times prints three of the service's audit lines, not 148, and one line
    counting them (:func:`log_summary`). Counts start again at zero."""
    handler = _handler()
    handler.shown_per_kind = shown_per_kind
    for counter in (handler.seen, handler.shown, *handler.handed):
        counter.clear()


def take_log_counts() -> tuple[dict[Kind, int], dict[Kind, int]]:
    """The counts (seen, shown) since the last call: what a forked child hands its parent with each chunk of work.
    The child keeps its own totals, so it prints no more than its share of each kind however many chunks it runs."""
    handler = _handler()
    out = []
    for now, handed in zip((handler.seen, handler.shown), handler.handed):
        out.append({k: n - handed[k] for k, n in now.items() if n > handed[k]})
        handed.update(out[-1])
    return out[0], out[1]


def merge_log_counts(counts: tuple[dict[Kind, int], dict[Kind, int]]) -> None:
    """Add a child's counts (:func:`take_log_counts`) to this process's."""
    handler = _handler()
    handler.seen.update(counts[0])
    handler.shown.update(counts[1])


def log_summary() -> list[str]:
    """One line per kind of log record some of which were not printed: how many there were, how many were
    printed, and how to see them all."""
    handler = _handler()
    if handler.shown_per_kind is None:
        return []
    lines = []
    for (name, level, template), seen in sorted(handler.seen.items()):
        hidden = seen - handler.shown[(name, level, template)]
        if hidden > 0:
            start = template.split("%", 1)[0].strip()[:40]
            lines.append(
                f"log {name}{f' ({start} ...)' if start else ''}: {seen} {level.lower()} record(s), "
                f"{seen - hidden} printed above, {hidden} more not; --verbose prints every one"
            )
    return lines
