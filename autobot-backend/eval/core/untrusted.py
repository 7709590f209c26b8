"""Text from outside the harness, made unable to speak to a terminal or a CI runner.

Questions, SQL, model replies, database values and file contents may hold control characters (an
escape sequence retitles a terminal or clears it) or workflow commands: the GitHub Actions runner reads a
line of stdout or stderr as one when, after any leading white space (.NET's, Unicode's spaces
included), it begins with ``::`` (``::error ...::``, ``::stop-commands::TOKEN``, which silences every later
command, the harness's own ``::error`` lines included, until ``::TOKEN::``), or when it holds the legacy
``##[`` anywhere (``##[error]``, ``##[add-mask]``, ``##[stop-commands]``); it splits lines at CR as at LF
(the runner's ``ActionCommand.TryParseV2`` and ``TryParse``). Every printed or written report passes
through here:

* :func:`visible`: the run's secrets masked (:func:`eval.core.outbound.redact`), then every control
  character but newline and tab, and every lone surrogate, becomes a visible escape (``\\x1b``,
  ``\\ud800``), so nothing invisible reaches a screen or a file;
* :func:`inert`: :func:`visible`, then :func:`~eval.core.outbound.no_commands`: the first colon of a
  line that would begin with ``::`` is written ``\\x3a``, and the second ``#`` of every ``##[`` is
  written ``\\u0023`` (a JSON reader reads it back as ``#``). The harness's own output never begins a
  line with ``::`` except the annotations it means, printed apart (:func:`eval.core.outbound.write_command`);
* :func:`clip`: at most so many characters of a long text (a database's error, a reference's detail)
  where a message quotes it.
"""

from __future__ import annotations

import dataclasses
import re
from enum import Enum
from typing import Any, TypeVar, cast

from eval.core.outbound import no_commands, redact

T = TypeVar("T")

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, its end marked ``...``; the whole stays in the JSON report. Its
    secrets are masked first, so the cut cannot leave the beginning of one."""
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """``text`` with the run's secrets masked, then every control character but newline and tab, and every
    lone surrogate, escaped.

    Example:
        >>> visible("a\\x1b[2Jb\\x00")
        'a\\\\x1b[2Jb\\\\x00'
    """
    return _CONTROL.sub(_escaped, redact("" if text is None else str(text)))


def inert(text: object) -> str:
    """:func:`visible`, and no workflow command in any line (:func:`no_commands`).

    Example:
        >>> inert("ok\\n  ::error file=x::forged ##[error]too")
        'ok\\n  \\\\x3a:error file=x::forged #\\\\u0023[error]too'
    """
    return no_commands(visible(text))


def visible_all(value: T) -> T:
    """``value`` with :func:`visible` applied to every string inside it (dataclasses, mappings, sequences):
    what a renderer that writes to a terminal is handed. Enumerations are kept as they are."""
    return cast(T, _visible_all(value))


def _visible_all(value: Any) -> Any:
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, tuple):
        return tuple(_visible_all(v) for v in value)
    if isinstance(value, list):
        return [_visible_all(v) for v in value]
    if isinstance(value, dict):
        return {_visible_all(k): _visible_all(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _visible_all(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return dataclasses.replace(value, **changes)
    return value
