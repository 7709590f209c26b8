"""The README's pictures and what they were made from (issue 26 point 5): pictures that cannot go stale.

Each picture has a digest file beside it (``sql-report.png.source``) in ``sha256sum``'s format, the
SHA-256 of the input it was made from and that input's path from the repository root, so
``sha256sum -c docs/eval/sql-report.png.source`` checks it too. The inputs are committed:

* the report's picture is made from ``docs/eval/examples/sql-run.json``, a run of the built-in
  generator, kept only while it is the run the built-in baseline records (the same corpus digest,
  cohort and verdict per question); ``make docs`` runs the built-in generator again when it is not;
* the trend's picture is made from ``docs/eval/sql-accuracy.jsonl``, the trend file.

A picture whose recorded digest is not its input's, or a committed run that is not the baseline's,
fails a test (``eval/tests/sql/records/test_doc_images.py``) that names ``make docs`` as the fix.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eval.sql.records.trend_file import REPO_ROOT, TREND_FILE

__all__ = [
    "DOCS_RUN",
    "MAKE_DOCS",
    "PICTURES",
    "REPORT_PICTURE",
    "TREND_PICTURE",
    "builtin_baseline",
    "docs_run_differs",
    "run_differs",
    "source_path",
    "source_text",
    "stale_pictures",
]

MAKE_DOCS = "make docs"
DOCS = REPO_ROOT / "docs" / "eval"
DOCS_RUN = DOCS / "examples" / "sql-run.json"
REPORT_PICTURE = DOCS / "sql-report.png"
TREND_PICTURE = DOCS / "sql-trend.png"
PICTURES = {REPORT_PICTURE: DOCS_RUN, TREND_PICTURE: TREND_FILE}
"""Each picture and the committed input it is made from."""
_SHOWN_IDS = 5


def source_path(picture: Path) -> Path:
    """The digest file beside ``picture``."""
    return picture.with_name(picture.name + ".source")


def _name(path: Path) -> str:
    path = Path(path).resolve()
    return path.relative_to(REPO_ROOT).as_posix() if path.is_relative_to(REPO_ROOT) else path.as_posix()


def source_text(made_from: Path) -> str:
    """The digest file's line for a picture made from ``made_from``: ``sha256sum``'s ``<hex>  <path>``."""
    return f"{hashlib.sha256(Path(made_from).read_bytes()).hexdigest()}  {_name(made_from)}\n"


def stale_pictures(pictures: Mapping[Path, Path] = PICTURES) -> list[str]:
    """One message per picture not made from its committed input (or missing), naming the fix."""
    out = []
    for picture, made_from in pictures.items():
        source = source_path(picture)
        if not picture.exists() or not source.exists():
            out.append(f"{_name(picture)}: missing, or no {source.name} beside it; run `{MAKE_DOCS}`")
            continue
        recorded, expected = source.read_text(encoding="utf-8"), source_text(made_from)
        if recorded != expected:
            out.append(
                f"{_name(picture)} was made from {recorded.split()[0][:12] if recorded.split() else 'nothing'}, "
                f"but {_name(made_from)} is now {expected[:12]}: the picture is stale; run `{MAKE_DOCS}`"
            )
    return out


def builtin_baseline() -> Path:
    """The baseline of the built-in generator on the default engine (what ``make eval`` gates against)."""
    from eval.sql.gate.baseline import baseline_path
    from eval.sql.model.defaults import DEFAULT_CANDIDATE
    from services.embedded.generator import NAME

    return baseline_path(DEFAULT_CANDIDATE, NAME)


def run_differs(run: Mapping[str, Any], baseline: Mapping[str, Any]) -> list[str]:
    """How a run's JSON report differs from a baseline: corpus digest, cohort, verdicts (empty: the same run)."""
    out = []
    if run.get("corpus", {}).get("digest") != baseline.get("corpus", {}).get("digest"):
        out.append(f"corpus digest {run.get('corpus', {}).get('digest')!s:.16} vs the baseline's "
                   f"{baseline.get('corpus', {}).get('digest')!s:.16}")  # fmt: skip
    ours, theirs = run.get("cohort", {}).get("fingerprint"), baseline.get("cohort", {}).get("fingerprint")
    if ours != theirs:
        out.append(f"cohort {ours} vs the baseline's {theirs}")
    verdicts = {q["id"]: q["verdict"] for q in run.get("questions", [])}
    recorded = {k: v["verdict"] for k, v in baseline.get("questions", {}).items()}
    changed = sorted(k for k in verdicts.keys() | recorded.keys() if verdicts.get(k) != recorded.get(k))
    if changed:
        shown = ", ".join(changed[:_SHOWN_IDS]) + (
            f" and {len(changed) - _SHOWN_IDS} more" if len(changed) > _SHOWN_IDS else ""
        )
        out.append(f"{len(changed)} question(s) with another verdict or missing: {shown}")
    return out


def docs_run_differs(run_file: Path = DOCS_RUN, baseline: Path | None = None) -> list[str]:
    """How the committed docs run differs from the built-in baseline, each message naming the fix."""
    baseline = baseline or builtin_baseline()
    if not run_file.exists():
        return [f"{_name(run_file)}: missing; run `{MAKE_DOCS}`"]
    differs = run_differs(json.loads(run_file.read_text(encoding="utf-8")), json.loads(baseline.read_text("utf-8")))
    return [
        f"{_name(run_file)} is not the run {_name(baseline)} records: {d}; run `{MAKE_DOCS}` (if the built-in "
        "run itself now differs from that baseline, re-record it first: make eval ARGS=--record-baseline)"
        for d in differs
    ]
