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

from eval.core.untrusted import inert

__all__ = ["fit_to_print", "install_log_redaction", "print_traceback"]


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
    as the handler it replaces does."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(fit_to_print(self.format(record)) + "\n")
        except Exception:  # logging's own rule: a failing handler does not raise
            self.handleError(record)


def install_log_redaction() -> None:
    """Route the records no handler takes (the service's own warnings, with their tracebacks) through the
    redaction; a program that configured logging keeps its own handlers."""
    if not isinstance(logging.lastResort, _RedactingStderr):
        handler = _RedactingStderr(logging.WARNING)
        logging.lastResort = handler
