"""The one vocabulary every page writes a verdict in, so a correct decline and a wrong refusal never look alike.

A must-refuse question the system declined (by its generator or through the read-only guard) is ``declined``:
the right answer. An answerable question the system would not answer is ``refused``: a wrong one (on a
control, an over-refusal). The JSON keeps the verdict as graded (``refused`` on both, with ``good`` beside it);
the run report, the two-run compare and the model matrix write it with :func:`verdict_word`.
"""

from __future__ import annotations

DECLINED = "declined"


def verdict_word(verdict: str, expect: str | None, good: bool) -> str:
    """The word for a verdict on a question expecting ``expect``: ``declined`` for a must-refuse question declined.

    Example:
        >>> verdict_word("refused", "refuse", True), verdict_word("refused", "answer", False)
        ('declined', 'refused')
        >>> verdict_word("error", "refuse", True), verdict_word("answered", "refuse", False)
        ('declined', 'answered')
    """
    return DECLINED if expect == "refuse" and good else verdict
