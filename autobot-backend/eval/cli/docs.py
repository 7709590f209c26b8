"""``python -m eval.cli.docs [--update-stamps]``: the corpus stamps on the methodology page
(:mod:`eval.sql.records.docs`), checked or rewritten.

Exit codes (:mod:`eval.core.exit_codes`): 0 current (or rewritten); 1 the stamps differ from the corpus;
2 the page or the corpus cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from eval.cli.entry import entry_point
from eval.core.exit_codes import EXIT_OK, EXIT_REGRESSED
from eval.sql.corpus.questions import load_corpus
from eval.sql.records import docs

UPDATE_STAMPS = "python -m eval.cli.docs --update-stamps"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.cli.docs",
        description="Check the corpus stamps on the methodology page against the corpus, or rewrite them.",
        epilog="Exit codes: 0 current (or rewritten); 1 the stamps differ; 2 the page or corpus cannot be read.",
    )
    p.add_argument("--update-stamps", action="store_true", help="rewrite the corpus stamps on the methodology page")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    corpus = load_corpus()
    if args.update_stamps:
        changed = docs.update_stamps(corpus)
        print("updated" if changed else "already current", docs.METHODOLOGY_PAGE.relative_to(docs.REPO_ROOT))
        return EXIT_OK
    ok = docs.stamps_on_page() == docs.render_stamps(corpus).strip()
    print("stamps current" if ok else f"stamps differ from the corpus: run {UPDATE_STAMPS}")
    return EXIT_OK if ok else EXIT_REGRESSED


if __name__ == "__main__":
    sys.exit(main())
