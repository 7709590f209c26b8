"""``python -m eval.cli.docs [--update-stamps] [--update-schema]``: the corpus stamps on the methodology page
(:mod:`eval.sql.records.docs`), checked or rewritten; ``--update-schema`` rewrites the corpus format's JSON
Schema (:mod:`eval.sql.corpus.json_schema`, ``docs/eval/sql-corpus.schema.json``) from the corpus model.

Exit codes (:mod:`eval.core.exit_codes`): 0 current (or rewritten); 1 the stamps differ from the corpus;
2 the page or the corpus cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.core.exit_codes import EXIT_OK, EXIT_REGRESSED
from eval.sql.corpus import json_schema
from eval.sql.corpus.questions import load_corpus
from eval.sql.records import docs

UPDATE_STAMPS = "python -m eval.cli.docs --update-stamps"


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m eval.cli.docs",
        description="Check the corpus stamps on the methodology page against the corpus, or rewrite them.",
        epilog="Exit codes: 0 current (or rewritten); 1 the stamps differ; 2 the page or corpus cannot be read.",
    )
    p.add_argument("--update-stamps", action="store_true", help="rewrite the corpus stamps on the methodology page")
    p.add_argument(
        "--update-schema",
        action="store_true",
        help="rewrite docs/eval/sql-corpus.schema.json, the corpus format's JSON Schema, from the corpus model",
    )
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.update_schema:
        changed = json_schema.write_schema()
        print("updated" if changed else "already current", json_schema.SCHEMA_PATH.relative_to(docs.REPO_ROOT))
        if not args.update_stamps:
            return EXIT_OK
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
