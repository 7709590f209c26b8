"""Reading input files, bounded: JSON Lines (answers, captured turns, labels, the trend), whole JSON files
(reports, baselines, snapshots, a benchmark's questions) and text read by lines (a benchmark's gold and
predictions, the accuracy page) all come through here, so each reports a missing file, an unreadable one,
one too large or nested too deep, and a line or file that is not JSON the same way, by path (and line).

Every file is read with a bound before it is decoded (issue 38, point 2): at most :func:`input_limit`
bytes (``/dev/zero`` or a 1.6 GB report is refused after the limit is read, not held), lines of at most
:data:`MAX_LINE_BYTES` (JSON Lines) or :data:`MAX_TEXT_LINE_CHARS` (text), and JSON nested at most
:data:`MAX_DEPTH` deep (deeper is refused by name, never a ``RecursionError``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_INPUT_BYTES = 256 << 20
"""The largest input file a command reads (256 MiB), unless ``EVAL_MAX_INPUT_BYTES`` says otherwise."""
INPUT_LIMIT_ENV = "EVAL_MAX_INPUT_BYTES"
MAX_LINE_BYTES = 16 << 20
"""The longest line of a JSON Lines file (16 MiB): an answer or a captured turn with its transcript."""
MAX_TEXT_LINE_CHARS = 1 << 20
"""The longest line of a text input (1 MiB): one SQL statement of a gold or predictions file, ten times the
longest SQL the guard reads (100,000 bytes)."""
MAX_DEPTH = 64
"""The deepest nesting of a JSON value read (objects and lists): the harness writes 6 levels at most."""


@dataclass(frozen=True)
class JsonLine:
    number: int
    """1-based line number in the file."""
    where: str
    """``path:number``, the prefix of every message about this line."""
    value: Any
    """The parsed value; None when :attr:`error` is set."""
    error: json.JSONDecodeError | None


def input_limit() -> int:
    """:data:`MAX_INPUT_BYTES`, or a positive whole number of bytes from ``EVAL_MAX_INPUT_BYTES``."""
    raw = os.environ.get(INPUT_LIMIT_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else MAX_INPUT_BYTES


def read_bounded(path: Path, error: type[Exception], *, missing: str, unreadable: str) -> str:
    """The UTF-8 text of ``path``, read no further than :func:`input_limit` bytes.

    Raises:
        error: ``"{path}: {missing}"`` when there is no such file, ``"{path}: {unreadable}: {why}"`` when it cannot
            be read as UTF-8 text (a folder included), and a message naming the limit when it is larger.
    """
    limit = input_limit()
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except OSError as exc:
        raise error(f"{path}: {unreadable}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(
            f"{path}: larger than {limit:,} bytes, the most an input file may be; check that it is the file meant "
            f"(a bigger one is read with {INPUT_LIMIT_ENV}=BYTES)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: {unreadable}: {exc}") from None


def parse_json(text: str, where: str, error: type[Exception], *, unreadable: str) -> Any:
    """``text`` parsed, its nesting bounded by :data:`MAX_DEPTH`; ``where`` names it in a message."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: {unreadable}: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        value = None
        deep = True
    else:
        deep = too_deep(value)
    if deep:
        raise error(f"{where}: {unreadable}: JSON nested deeper than {MAX_DEPTH} levels; no file of the harness is")
    return value


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` deep (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def json_file(path: Path, error: type[Exception], *, missing: str, unreadable: str) -> Any:
    """The parsed content of a whole JSON file, bounded in size and depth.

    Raises:
        error: ``"{path}: {missing}"`` when there is no such file, ``"{path}: {unreadable}: {why}"`` when it
            cannot be read as UTF-8 text, is not JSON or nests too deep, and when it is too large.
    """
    return parse_json(read_bounded(path, error, missing=missing, unreadable=unreadable), str(path), error,
                      unreadable=unreadable)  # fmt: skip


def json_lines(path: Path, error: type[Exception], *, missing: str, unreadable: str) -> Iterator[JsonLine]:
    """Every non-blank line of ``path``, parsed; a line that is not JSON carries its decoding error.

    Raises:
        error: ``"{path}: {missing}"`` when there is no such file, ``"{path}: {unreadable}: {why}"``
            when it cannot be read as UTF-8 text; the file too large, a line too long or nested too deep.
    """
    text = read_bounded(path, error, missing=missing, unreadable=unreadable)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        if len(line) > MAX_LINE_BYTES:
            raise error(f"{where}: {unreadable}: a line of {len(line):,} characters, over the {MAX_LINE_BYTES:,} "
                        "a line may be")  # fmt: skip
        deep = False
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            yield JsonLine(number, where, None, exc)
            continue
        except RecursionError:
            value, deep = None, True
        if deep or too_deep(value):
            raise error(f"{where}: {unreadable}: JSON nested deeper than {MAX_DEPTH} levels; no file of the harness is")
        yield JsonLine(number, where, value, None)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
"""A line as Python's ``readlines`` splits text read in universal-newlines mode: at LF, CRLF or CR only."""


def text_lines(path: Path, error: type[Exception], *, missing: str, unreadable: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of every line of a text file, split where Python's ``readlines`` splits it
    (LF, CRLF or CR; its end not kept), bounded in size and in the length of a line."""
    text = read_bounded(path, error, missing=missing, unreadable=unreadable)
    lines = [(n, m.group().rstrip("\r\n")) for n, m in enumerate(_LINE.finditer(text), 1)]
    for number, line in lines:
        if len(line) > MAX_TEXT_LINE_CHARS:
            raise error(
                f"{path}:{number}: {unreadable}: a line of {len(line):,} characters, over the "
                f"{MAX_TEXT_LINE_CHARS:,} a line of SQL or text may be"
            )
    return lines
