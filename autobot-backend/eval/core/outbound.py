"""Text leaving the harness: the run's secrets masked in every form, wherever it is written.

One redaction for every output (issue 38, point 1). The secrets are the ones the process knows: the
values of the environment's credential-named variables and of any variable shaped like an issuer's
credential, the secrets of every URL in the environment and on the command line (an endpoint's key in
its user info or query, a database password, a signature), and any a run registers (:func:`register`).
Each is masked as a whole token in each form a report may hold it (JSON-, HTML-, XML-, Markdown- and
percent-escaped), and a URL anywhere in the text has its password, a user standing alone, signed and
secret parameters and token-shaped path segments masked (:func:`services.redaction.redact_urls_in_text`).

:func:`redact` is applied by :func:`eval.core.untrusted.visible` (so before any renderer escapes or clips
a value), by every file writer (:mod:`eval.core.output`), and by :class:`RedactingStream`, which stands
in for ``sys.stdout`` and ``sys.stderr`` while a command runs (:func:`redacting_streams`): whatever is
printed, by the harness, a library or a traceback, is masked line by line before it reaches the stream.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import IO, Any

from services.redaction import KEY_CHARS, SecretMask, environment_secrets, redact_urls_in_text

__all__ = [
    "COMMAND_SPACE",
    "RedactingStream",
    "known_secrets",
    "no_commands",
    "redact",
    "redacting_streams",
    "register",
    "write_command",
]

_lock = threading.Lock()
_registered: set[str] = set()
_cached: tuple[dict[Any, Any], list[str], int, frozenset[str], SecretMask] | None = None
_version = 0


def register(values: Iterable[str]) -> None:
    """Secrets the run learned other than from the environment and the command line, masked from now on."""
    global _version
    with _lock:
        new = {v for v in values if v} - _registered
        if new:
            _registered.update(new)
            _version += 1


def _environ_now() -> dict[Any, Any]:
    return dict(getattr(os.environ, "_data", os.environ))


def _mask() -> tuple[frozenset[str], SecretMask]:
    """The mask of the secrets known now, built again only when the environment, the command line or the
    registered secrets changed (comparing the environment's mapping is a C-level dict comparison)."""
    global _cached
    cached = _cached
    data = getattr(os.environ, "_data", None)
    if (
        cached is not None
        and (data == cached[0] if data is not None else _environ_now() == cached[0])
        and sys.argv[1:] == cached[1]
        and _version == cached[2]
    ):
        return cached[3], cached[4]
    with _lock:
        secrets = frozenset(environment_secrets(os.environ, sys.argv[1:]) | _registered)
        mask = SecretMask(secrets)
        _cached = (_environ_now(), list(sys.argv[1:]), _version, secrets, mask)
    return secrets, mask


def known_secrets() -> frozenset[str]:
    """Every secret the process knows now (see the module docstring)."""
    return _mask()[0]


def redact(text: str) -> str:
    """``text`` with every known secret masked in each of its forms, and every URL's secrets by pattern."""
    return redact_urls_in_text(_mask()[1](text))


COMMAND_SPACE = (
    "\t\x0b\x0c\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
    "\u200b\u200c\u200d\u2060\ufeff"
)
"""What may come before a ``::`` command on its line: the runner trims .NET's white space (Unicode's, the
no-break and ideographic spaces included) before it looks; Python's is a superset of it, and the zero-width
characters are added for good measure."""
_COMMAND = re.compile(f"(?:\\A|(?<=[\\n\\r]))([{re.escape(COMMAND_SPACE)}]*):(?=:)")
_LEGACY = re.compile(r"(?<=#)#(?=\[)")


def no_commands(text: str, *, line_start: bool = True) -> str:
    """``text`` with no workflow command in any of its lines (see the module docstring); ``line_start``:
    whether ``text`` begins a line (else its first line continues one already written).

    Example:
        >>> no_commands("\\u00a0::error::x\\ra ##[add-mask]b")
        '\\xa0\\\\x3a:error::x\\ra #\\\\u0023[add-mask]b'
    """
    text = _LEGACY.sub(r"\\u0023", text)
    if line_start:
        return _COMMAND.sub(r"\1\\x3a", text)
    first = min((i for i in (text.find("\n"), text.find("\r")) if i >= 0), default=len(text))
    return text[:first] + _COMMAND.sub(r"\1\\x3a", text[first:])


_HELD = re.compile(f"(?:[#:%{KEY_CHARS}]|\\\\)*\\Z")
"""What a flush in the middle of a line keeps back: the word it ends in (it may be the start of a secret,
of a ``##[`` or of a ``::``), so that it is masked or neutralised whole with what follows."""
_HELD_MAX = 512


class RedactingStream:
    """A text stream that masks secrets (:func:`redact`) and workflow commands
    (:func:`no_commands`) in every line before the real stream gets it. A line is
    passed on when it ends (``\\n`` or ``\\r``, both line ends to a CI runner) or at a flush; a flush in the
    middle of a line keeps its last word back. The harness's own annotations go through
    :func:`write_command`, the one way past it."""

    def __init__(self, raw: IO[str]) -> None:
        self.raw = raw
        self._pending = ""
        self._line_so_far = ""
        """What was passed on of the current line (a workflow command begins after whitespace only)."""
        self._lock = threading.RLock()

    def write(self, text: str) -> int:
        with self._lock:
            self._pending += text
            cut = max(self._pending.rfind("\n"), self._pending.rfind("\r"))
            if cut >= 0:
                self._emit(self._pending[: cut + 1])
                self._pending = self._pending[cut + 1 :]
        return len(text)

    def _emit(self, text: str) -> None:
        at_start = not self._line_so_far.strip(COMMAND_SPACE)
        cleaned = no_commands(redact(text), line_start=at_start)
        self.raw.write(cleaned)
        last = max(text.rfind("\n"), text.rfind("\r"))
        self._line_so_far = text[last + 1 :] if last >= 0 else self._line_so_far + text

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                held = _HELD.search(self._pending)
                keep = self._pending[held.start() :] if held is not None else ""
                if len(keep) > _HELD_MAX:
                    keep = ""
                if len(keep) < len(self._pending):
                    self._emit(self._pending[: len(self._pending) - len(keep)])
                    self._pending = keep
            self.raw.flush()

    def close_line(self) -> None:
        """Pass on whatever is pending, held-back word included (the command is ending)."""
        with self._lock:
            if self._pending:
                self._emit(self._pending)
                self._pending = ""
            self.raw.flush()

    def write_command(self, line: str) -> None:
        """One workflow command of the harness's own, on a line of its own, with its secrets masked."""
        with self._lock:
            self.close_line()
            if self._line_so_far:
                self.raw.write("\n")
                self._line_so_far = ""
            self.raw.write(redact(line) + "\n")
            self.raw.flush()

    def isatty(self) -> bool:
        return bool(self.raw.isatty())

    def fileno(self) -> int:
        return self.raw.fileno()

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:  # encoding, errors, buffer...: the real stream's
        return getattr(self.raw, name)


def write_command(line: str, stream: IO[str] | None = None) -> None:
    """Print one of the harness's own workflow commands (``::error ...``), past :class:`RedactingStream`."""
    target = sys.stdout if stream is None else stream
    if isinstance(target, RedactingStream):
        target.write_command(line)
    else:
        target.write(redact(line) + "\n")


@contextlib.contextmanager
def redacting_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` as :class:`RedactingStream` for the duration (once: nested uses keep
    the outer one), restored and flushed at the end."""
    if sys.stdout is None or sys.stderr is None or isinstance(sys.stdout, RedactingStream):
        yield
        return
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(out), RedactingStream(err)
    try:
        yield
    finally:
        wrapped_out, wrapped_err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        for stream in (wrapped_out, wrapped_err):
            if isinstance(stream, RedactingStream):
                with contextlib.suppress(Exception):
                    stream.close_line()
