"""``python -m eval.cli.docs [--update-stamps] [--update-example] [--update-sections] [--update-schema]``: the
blocks it keeps on the docs pages (:mod:`eval.sql.records.docs`), checked or rewritten: the corpus stamps and the
worked example on the methodology page (:mod:`eval.sql.records.worked_example`, made from the committed run), the
report's sections and where each format shows them on the architecture page (:mod:`eval.sql.render.layout`, made
from the registry); ``--update-schema`` rewrites the corpus format's JSON Schema (:mod:`eval.sql.corpus.json_schema`,
``docs/eval/sql-corpus.schema.json``) from the corpus model.

Exit codes (:mod:`eval.core.exit_codes`): 0 current (or rewritten); 1 the stamps differ from the corpus, the
worked example from the committed run, or the sections' layout from the registry; 2 the page, the corpus or the
committed run cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from eval.cli.entry import entry_point
from eval.core.exit_codes import EXIT_OK, EXIT_REGRESSED
from eval.sql.corpus import json_schema
from eval.sql.corpus.questions import load_corpus
from eval.sql.records import docs
from eval.sql.records.worked_example import UPDATE_EXAMPLE, render_example
from eval.sql.render import layout

UPDATE_STAMPS = "python -m eval.cli.docs --update-stamps"
UPDATE_SECTIONS = "python -m eval.cli.docs --update-sections"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.cli.docs",
        description="Check the blocks the docs pages hold (the corpus stamps, the worked example, the report's "
        "sections) against the corpus, the committed run and the registry, or rewrite them.",
        epilog="Exit codes: 0 current (or rewritten); 1 a block differs; 2 the page, corpus or run cannot be read.",
    )
    p.add_argument("--update-stamps", action="store_true", help="rewrite the corpus stamps on the methodology page")
    p.add_argument(
        "--update-example",
        action="store_true",
        help="rewrite the methodology's worked example from the corpus and docs/eval/examples/sql-run.json",
    )
    p.add_argument(
        "--update-sections",
        action="store_true",
        help="rewrite the architecture page's table of the report's sections from the registry",
    )
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
        if not (args.update_stamps or args.update_example or args.update_sections):
            return EXIT_OK
    if args.update_sections:
        changed = docs.SECTIONS.update(layout.table())
        print("updated" if changed else "already current", "the report's sections on", docs.SECTIONS.where())
        if not (args.update_stamps or args.update_example):
            return EXIT_OK
    corpus = load_corpus()
    if args.update_stamps or args.update_example:
        if args.update_stamps:
            changed = docs.update_stamps(corpus)
            print("updated" if changed else "already current", "the corpus stamps on", docs.STAMPS.where())
        if args.update_example:
            changed = docs.WORKED_EXAMPLE.update(render_example(corpus))
            print("updated" if changed else "already current", "the worked example on", docs.WORKED_EXAMPLE.where())
        return EXIT_OK
    stamps = docs.stamps_on_page() == docs.render_stamps(corpus).strip()
    example = docs.WORKED_EXAMPLE.on_page() == render_example(corpus).strip()
    print("stamps current" if stamps else f"stamps differ from the corpus: run {UPDATE_STAMPS}")
    print(
        "worked example current"
        if example
        else f"the worked example differs from the corpus or the committed run: run {UPDATE_EXAMPLE}"
    )
    sections = docs.SECTIONS.on_page() == layout.table().strip()
    print(
        "report sections current"
        if sections
        else f"the report's sections on {docs.SECTIONS.where()} differ from the registry: run {UPDATE_SECTIONS}"
    )
    return EXIT_OK if stamps and example and sections else EXIT_REGRESSED


if __name__ == "__main__":
    sys.exit(main())
