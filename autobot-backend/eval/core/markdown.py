"""Markdown rendering of untrusted text.

Ids, questions, SQL, model output and error details come from outside the harness. Rendered
raw they could forge table rows, headings, links or HTML in a report a reviewer trusts, so every
such field passes through :func:`escape` (inline) or :func:`code_block` (verbatim).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from eval.core.untrusted import inert, visible

# Inline specials only; line-start markers are handled separately because text is folded to one line.
_SPECIAL = re.compile(r"([\\`*_\[\]<>#|!~&$])")
_LINE_START = re.compile(r"^([-+=>]|\d+[.)])")


def escape(text: object, limit: int | None = None) -> str:
    """One line of inert Markdown: specials backslash-escaped, line breaks folded.

    Example:
        >>> print(escape("a|b *x* <script>"))
        a\\|b \\*x\\* \\<script\\>
    """
    s = " ".join(visible(text).split())
    if limit is not None and len(s) > limit:
        s = s[: max(limit - 1, 0)] + "…"
    s = _SPECIAL.sub(r"\\\1", s)
    return _LINE_START.sub(r"\\\1", s)


def code_block(text: object, lang: str = "") -> str:
    """A fenced block that the content cannot close: the fence outgrows any backtick run in it."""
    s = inert(text)
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{s.rstrip()}\n{fence}"


def table(header: list[str], rows: list[list[str]]) -> str:
    """A pipe table; cells must already be escaped (or be harness-made text)."""
    return "\n".join(table_lines(header, rows))


def table_lines(header: list[str], rows: Iterable[list[str]]) -> list[str]:
    """:func:`table`'s lines, not joined: a table of thousands of rows is then printed a block at a time."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def named(lead: str, ids: Sequence[object]) -> list[str]:
    """A paragraph naming ``ids`` in bold after ``lead`` (harness-made text), and a blank line; none without ids.

    Example:
        >>> named("Flaky: ", ["q1", "<q2>"])
        ['Flaky: **q1**, **\\\\<q2\\\\>**', '']
        >>> named("Flaky: ", [])
        []
    """
    return [lead + ", ".join(f"**{escape(q)}**" for q in ids), ""] if ids else []
