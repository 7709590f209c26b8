"""``python -m eval.cli.docs_images`` (``make docs``): the README's pictures, made again from the committed
run and trend file, each with the digest of what it was made from beside it
(:mod:`eval.sql.records.doc_images`).

The committed run (``docs/eval/examples/sql-run.json``) is kept while it is the run the built-in
baseline records; otherwise the built-in generator runs again (as ``make eval`` does, in a fresh process)
and its JSON report replaces it. Then the run's HTML report and the trend page are rendered and
screenshotted by ``python -m eval.cli.browser``. ``--check`` changes nothing and says what is stale.

Exit codes (:mod:`eval.core.exit_codes`): 0 written (or, with ``--check``, current); 1 with ``--check``,
something is stale; 2 no browser, the built-in run failed, or an input does not read.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from eval.cli import browser
from eval.cli.entry import entry_point
from eval.core.errors import HarnessError, UsageError
from eval.core.exit_codes import EXIT_OK, EXIT_REGRESSED
from eval.core.jsonl import json_file
from eval.core.output import print_error
from eval.sql.records import doc_images
from eval.sql.records.trend_file import REPO_ROOT

BACKEND = REPO_ROOT / "autobot-backend"
SIZES = {".json": (1280, 1600), ".jsonl": (1280, 1250)}
"""The browser window of a run's picture and of a trend's, width x height in CSS pixels: the page as it
first shows (the report's headline and breakdowns; the trend's two charts)."""
RUN_SECONDS = 600
"""At most this long for the built-in run (it takes about 10 s)."""
_MODEL_ENV = ("NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY", "GITHUB_ACTIONS")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.cli.docs_images",
        description="Make the README's pictures again from the committed run and trend file (make docs).",
        epilog="Exit codes: 0 written (or current); 1 --check found something stale; 2 could not make them.",
    )
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 naming each stale picture or run")
    return p


def _builtin_run(out: Path) -> None:
    """The built-in generator's run on the default settings, its JSON report written to ``out``."""
    env = {k: v for k, v in os.environ.items() if k not in _MODEL_ENV} | {"EVAL_OUTPUT_DIR": str(out.parent)}
    out.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "eval.run", "--suite", "sql", "--json", str(out)],
        cwd=BACKEND,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
    )
    if done.returncode != 0:
        raise HarnessError(f"the built-in run for {out} exited {done.returncode}: {done.stderr[-1500:]}")


def _page(made_from: Path) -> str:
    """The page a picture shows: a trend file's trend page, or a run's HTML report."""
    from eval.tools import trend

    if made_from.suffix == ".jsonl":
        return trend.to_html(trend.load(made_from))
    from eval.sql.model.serialise import from_json
    from eval.sql.render import to_html

    data = json_file(made_from, UsageError, missing="no such run", unreadable="not a JSON report")
    return to_html(from_json(data, str(made_from)))


def make_pictures(pictures: Mapping[Path, Path]) -> int:
    """Each picture screenshotted from its input's page, its ``.source`` written beside it; the exit code."""
    with tempfile.TemporaryDirectory(prefix="eval-docs-") as folder:
        for picture, made_from in pictures.items():
            page = Path(folder) / f"{picture.stem}.html"
            page.write_text(_page(made_from), encoding="utf-8")
            width, height = SIZES[made_from.suffix]
            code = browser.main([str(page), str(picture), "--width", str(width), "--height", str(height)])
            if code != EXIT_OK:
                return code
            doc_images.source_path(picture).write_text(doc_images.source_text(made_from), encoding="utf-8")
    return EXIT_OK


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.check:
        stale = doc_images.docs_run_differs() + doc_images.stale_pictures()
        for message in stale:
            print_error(message)
        return EXIT_REGRESSED if stale else EXIT_OK
    differs = doc_images.docs_run_differs()
    if differs:
        print(f"{differs[0].split('; run')[0]}: running the built-in generator again", file=sys.stderr)
        _builtin_run(doc_images.DOCS_RUN)
        for message in doc_images.docs_run_differs():  # the generator changed since its baseline was recorded
            print(f"warning: {message.split('; run')[0]}; the pictures show the new run", file=sys.stderr)
    return make_pictures(doc_images.PICTURES)


if __name__ == "__main__":
    sys.exit(main())
