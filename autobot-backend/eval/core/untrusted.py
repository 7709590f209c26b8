"""Text from outside the harness, made unable to speak to a terminal or a CI runner.

Questions, SQL, model replies, database values and file contents may hold control characters (an
escape sequence retitles a terminal or clears it) or lines that begin with ``::`` (the GitHub Actions
runner reads such a line on stdout as a workflow command: it can forge an ``::error``, or silence the
harness's own with ``::stop-commands::``). Every printed or written report passes through here:

* :func:`visible`: every control character but newline and tab, and every lone surrogate, becomes a
  visible escape (``\\x1b``, ``\\ud800``), so nothing invisible reaches a screen or a file;
* :func:`inert`: :func:`visible`, and no line begins with ``::``: the first colon of such a line is
  written ``\\x3a``. The harness's own output never begins a line with ``::`` except the annotations it
  means, which are printed apart;
* :func:`clip`: at most so many characters of a long text (a database's error, a reference's detail)
  where a message quotes it.
"""

from __future__ import annotations

import dataclasses
import re
from enum import Enum
from typing import Any, TypeVar, cast

T = TypeVar("T")

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_COMMAND = re.compile(r"^([ \t]*):(?=:)", re.M)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, its end marked ``...``; the whole stays in the JSON report."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """``text`` with every control character but newline and tab, and every lone surrogate, escaped.

    Example:
        >>> visible("a\\x1b[2Jb\\x00")
        'a\\\\x1b[2Jb\\\\x00'
    """
    return _CONTROL.sub(_escaped, "" if text is None else str(text))


def inert(text: object) -> str:
    """:func:`visible`, and no line beginning with ``::`` (a workflow command to a CI runner).

    Example:
        >>> inert("ok\\n  ::error file=x::forged")
        'ok\\n  \\\\x3a:error file=x::forged'
    """
    return _COMMAND.sub(r"\1\\x3a", visible(text))


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
