"""The parser every command line of the harness is built with: argparse's, whose error for a flag it does not
know names the nearest flag it does (``--fail-on-regresion`` ... did you mean ``--fail-on-regression``?).

argparse gains such hints only in Python 3.14 (``suggest_on_error``); the harness runs on 3.11. The nearest flag
is :func:`difflib.get_close_matches`'s, the standard library's ratio of matching characters, at 0.6 or more: a
typo, a missing or doubled letter, a dash for an underscore, not an unrelated word.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable
from typing import NoReturn

UNRECOGNIZED = "unrecognized arguments: "


def nearest(flag: str, known: Iterable[str]) -> str | None:
    """The known flag closest to ``flag``, or None when none is close.

    Example:
        >>> nearest("--fail-on-regresion", ["--json", "--fail-on-regression"]), nearest("--colour", ["--json"])
        ('--fail-on-regression', None)
    """
    found = difflib.get_close_matches(flag, [k for k in known if k.startswith("--")], n=1, cutoff=0.6)
    return found[0] if found else None


def hints(unknown: Iterable[str], known: Iterable[str]) -> str:
    """`` (did you mean --x?)`` for an unknown flag that has a near one (each named when there are several);
    empty otherwise.

    Example:
        >>> hints(["--jsn", "out.json"], ["--json"]), hints(["--jsn", "--htm"], ["--json", "--html"])
        (' (did you mean --json?)', ' (--jsn: did you mean --json?; --htm: did you mean --html?)')
    """
    options = list(known)
    found = [
        (flag, near)
        for token in unknown
        if token.startswith("--") and (near := nearest(flag := token.split("=", 1)[0], options))
    ]
    if len(found) == 1:
        return f" (did you mean {found[0][1]}?)"
    return f" ({'; '.join(f'{flag}: did you mean {near}?' for flag, near in found)})" if found else ""


class Parser(argparse.ArgumentParser):
    """:class:`argparse.ArgumentParser` whose "unrecognized arguments" error names the nearest known flag."""

    def error(self, message: str) -> NoReturn:
        if message.startswith(UNRECOGNIZED):
            known = [flag for action in self._actions for flag in action.option_strings]
            message += hints(message[len(UNRECOGNIZED) :].split(), known)
        super().error(message)
