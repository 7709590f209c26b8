"""``python -m eval.cli.browser REPORT.html OUT.png``: a screenshot of an HTML page in the offline headless
Chromium of :mod:`eval.core.browser` (the README's comes from here).

Exit codes (:mod:`eval.core.exit_codes`): 0 written; 2 no browser or driver installed, or a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.core.browser import BrowserMissing, screenshot
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK
from eval.core.output import print_error


def _pixels(text: str) -> int:
    value = int(text)
    if not 100 <= value <= 10_000:
        raise argparse.ArgumentTypeError(f"{value}: a window is 100 to 10000 CSS pixels")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m eval.cli.browser",
        description="Screenshot an HTML page in a headless Chromium with no route to any network.",
        epilog="Exit codes: 0 written; 2 no browser or driver installed, or a usage error.",
    )
    p.add_argument("page", type=Path, metavar="REPORT.html", help="the page to open")
    p.add_argument("out", type=Path, metavar="OUT.png", help="where the screenshot goes")
    p.add_argument("--width", type=_pixels, default=1280, help="the window's width in CSS pixels (default 1280)")
    p.add_argument("--height", type=_pixels, default=1600, help="the window's height in CSS pixels (default 1600)")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        print(screenshot(args.page, args.out, args.width, args.height))
    except BrowserMissing as exc:
        print_error(str(exc))
        return EXIT_CANNOT_JUDGE
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
