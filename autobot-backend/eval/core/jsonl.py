"""Reading JSON input files: the JSON Lines files (answers, captured turns, labels, the trend) and the whole
JSON files (reports, baselines, snapshots) share two readers, so each reports a missing file, an unreadable
one and a line or file that is not JSON the same way, by path (and line number)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class JsonLine:
    number: int
    """1-based line number in the file."""
    where: str
    """``path:number``, the prefix of every message about this line."""
    value: Any
    """The parsed value; None when :attr:`error` is set."""
    error: json.JSONDecodeError | None


def json_file(path: Path, error: type[Exception], *, missing: str, unreadable: str) -> Any:
    """The parsed content of a whole JSON file.

    Raises:
        error: ``"{path}: {missing}"`` when there is no such file, ``"{path}: {unreadable}: {why}"`` when it
            cannot be read as UTF-8 text or is not JSON.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path}: {unreadable}: {exc}") from None


def json_lines(path: Path, error: type[Exception], *, missing: str, unreadable: str) -> Iterator[JsonLine]:
    """Every non-blank line of ``path``, parsed; a line that is not JSON carries its decoding error.

    Raises:
        error: ``"{path}: {missing}"`` when there is no such file, ``"{path}: {unreadable}: {why}"``
            when it cannot be read as UTF-8 text.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: {unreadable}: {exc}") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            yield JsonLine(number, where, None, exc)
            continue
        yield JsonLine(number, where, value, None)
