"""What a finished SQL run decides and leaves behind: the gate, the judge, the reports in every format
(:data:`REPORT_FILES` beside JSON and Markdown), the records, and the exit code.

Split from :mod:`eval.cli.sql`, which parses and checks the command line and runs the suite.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from eval.cli.sql_formats import REPORT_FILES
from eval.core import ci_output as ci_out
from eval.core import crash, interrupt
from eval.core.exit_codes import EXIT_CANNOT_JUDGE
from eval.core.outbound import write_command
from eval.core.output import (
    confine,
    failure_message,
    print_error,
    print_report_lines,
    print_warning,
    resolve_input,
    shown_path,
    write_text,
)
from eval.sql.corpus.composition import corpus_composition
from eval.sql.corpus.questions import Corpus
from eval.sql.gate import decisions as decide
from eval.sql.grading.interruption import mark_partial
from eval.sql.model.run import SQLRun

if TYPE_CHECKING:
    from eval.turns.sql_turns import SQLTurns

from eval.sql.render import (
    ci_annotations,
    lint_line,
    markdown_lines,
    markdown_stream,
    new_questions,
    render_terminal,
    skipped_notice,
    summary_markdown,
    to_json,
)

SHARD_NEXT = "merge the shards' JSON reports with python -m eval.merge, which gates and records the whole run"
T = TypeVar("T")


def finish(
    report: SQLRun,
    args: argparse.Namespace,
    builtin: bool,
    corpus: Corpus,
    baseline_dir: Path | None,
    turns: SQLTurns | None = None,
) -> int:
    """Gate, judge (``--judge``), write the reports, record, and the exit code.

    A signal (Ctrl-C, SIGTERM) before the reports are written makes the run partial, the judge's phase
    included: the reports say so and nothing is recorded. From the reports to the records nothing is
    cut short: a signal then is held, the reports and records stay as written, and the exit is 2."""
    with interrupt.held():  # quick, and the gate is filled in whole
        composition = corpus_composition(corpus)
        found = (
            decide.find_baseline(report, baseline_dir, allow_off_suite=args.allow_off_suite)
            if report.shard is None
            else decide.Found(None, f"shard {report.shard.label} is not gated: {SHARD_NEXT}")
        )
        decide.classify_and_gate(
            report,
            corpus,
            composition,
            found,
            bool(args.fail_on_regression),
            bool(getattr(args, "gate_refuted", False)),
        )
    if turns is not None:
        with contextlib.suppress(KeyboardInterrupt):  # a signal stops the judge; the run is partial (below)
            turns.finish(report)
    with interrupt.held():
        if interrupt.requested():
            mark_partial(report, "after every question was graded, before its reports were written")
        code = _publish(report, args, builtin, composition, found, baseline_dir, turns, corpus)
    for line in crash.log_summary():
        print_warning(line)
    if interrupt.requested() and code != EXIT_CANNOT_JUDGE:
        print_error(f"interrupted by {interrupt.received()} as the complete reports and records were written")
        return EXIT_CANNOT_JUDGE
    return code


def _publish(
    report: SQLRun,
    args: argparse.Namespace,
    builtin: bool,
    composition: dict[str, int],
    found: decide.Found,
    baseline_dir: Path | None,
    turns: SQLTurns | None,
    corpus: Corpus,
) -> int:
    files = {"markdown": args.markdown, "json": args.json} | {f.flag: getattr(args, f.flag) for f in REPORT_FILES}
    planned = {k: confine(v) for k, v in files.items() if v}  # confined before the run: here, where each goes
    lines: Iterable[str]
    if "markdown" in planned:  # made once for the file and stdout, joined for the file only
        lines = markdown_lines(report)
        text = "\n".join(lines)
    else:  # stdout alone: made as it is printed, the whole report never held
        lines, text = markdown_stream(report), ""
    failed = not _attempt(lambda: _print_report(report, lines, planned), "print the report on stdout")[0]
    for key, path in planned.items():
        written = _attempt(partial(_write, report, text, key, path), f"write --{key} {path}")
        failed = failed or not written[0]
    if args.github_summary:
        summary = _attempt(lambda: ci_out.append_step_summary(summary_markdown(report)), "append the job summary")
        failed = failed or not summary[0]
        if ci_out.in_github_actions():
            for line in ci_annotations(report):
                write_command(line)
    if report.partial:
        print_error(
            f"interrupted by {interrupt.received()}: the report so far is written (marked partial); "
            "nothing was recorded"
        )
        return EXIT_CANNOT_JUDGE
    skipped = skipped_notice(report)
    if skipped is not None:
        print_warning(skipped)
    for said in (lint_line(report), new_questions(report)):
        if said is not None:
            print_warning(said)
    if report.oracle_defects and args.strict:
        print_error("--strict: a run with oracle defects is not judged; nothing was recorded")
        return EXIT_CANNOT_JUDGE
    if failed:  # each failed write is named above; nothing is recorded from a run half reported
        if args.record_baseline or args.record_accuracy:
            print_error("nothing was recorded: the run's reports were not all written (see above)")
        return EXIT_CANNOT_JUDGE
    if args.record_baseline:
        assert baseline_dir is not None  # checked before the run
        recorded, refused = _attempt(
            lambda: decide.record_baseline(report, corpus, composition, found, baseline_dir, args.force, args.reason),
            f"record the baseline in {baseline_dir}",
        )
        if not recorded:
            return EXIT_CANNOT_JUDGE
        if refused is not None:
            return refused
    if args.record_accuracy:
        from eval.sql.records import docs, recording  # the dated record's page: only when recording

        page = docs.ACCURACY_PAGE if args.record_accuracy is True else resolve_input(args.record_accuracy)
        if not _attempt(
            lambda: recording.record_accuracy(
                report,
                page,
                builtin=args.record_accuracy is True,
                allow_off_suite=args.allow_off_suite,
                corpus_files=args.corpus,
            ),
            f"record the run in {page}",
        )[0]:
            return EXIT_CANNOT_JUDGE
    code = decide.exit_code(report, bool(args.fail_on_regression), found.why_not)
    return max(code, turns.exit_code) if turns is not None else code


def _write(report: SQLRun, text: str, key: str, path: Path) -> Path:
    """One report file: the Markdown already made, the JSON, or a format of :data:`REPORT_FILES`."""
    if key == "markdown":
        return write_text(path, text + "\n")
    if key == "json":
        return write_text(path, json.dumps(to_json(report), indent=2, default=str) + "\n")
    return write_text(path, next(f for f in REPORT_FILES if f.flag == key).render(report))


def _print_report(report: SQLRun, lines: Iterable[str], planned: dict[str, Path]) -> None:
    """The report on stdout, first: whatever happens to the files, it is shown. In a terminal the full
    report's file is named, where it is being written."""
    if sys.stdout.isatty():
        from rich.console import Console  # loaded only when a terminal reads the report

        full = next((shown_path(planned[k]) for k in ("html", "markdown", "json") if k in planned), None)
        render_terminal(report, Console(), full)
    else:
        print_report_lines(lines)
    sys.stdout.flush()


def _attempt(action: Callable[[], T], what: str) -> tuple[bool, T | None]:
    """Run one write of the run's outputs: (True, what it returned), or, on a failure of the file system (disk
    full, a read-only folder, a file size limit, a closed stdout), (False, None) with the failure named,
    ``error: could not ...: why; what to do``; the caller goes on to the other outputs."""
    try:
        return True, action()
    except OSError as exc:
        with contextlib.suppress(OSError):
            print_error(failure_message(exc, what))
        return False, None
