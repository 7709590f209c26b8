"""Recorded baselines: what a candidate path and model scored, question by question.

A baseline is written only on purpose (``--record-baseline``), one file per candidate path, model
and engine under ``eval/golden/sql/baselines/``: ``<path>--<model>.json`` on SQLite (the default
engine, whose files predate the others), ``<path>--<model>--<engine>.json`` on any other. It
holds the corpus stamps and composition it was measured on, the summary, and every question's
verdict, so the gate can ratchet the pass rate, the corpus size and the composition, and the
report can say per question what regressed. It keeps the run's cohort too: the gate judges a run only
against a baseline of the same cohort (``eval.sql.gate.decisions.find_baseline``).
"""

from __future__ import annotations

import errno
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from eval.core.errors import HarnessError
from eval.core.jsonl import json_file
from eval.core.output import shown_path, write_atomically
from eval.sql.model.baseline_question import BaselineQuestion
from eval.sql.model.codec import from_json, key, to_json
from eval.sql.model.cohort import cohort_keys
from eval.sql.model.defaults import DEFAULT_ENGINE
from eval.sql.model.figures import Summary
from eval.sql.model.outcome import Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.setup import Cohort, CorpusStamps, RunSetup

BASELINE_DIR = Path(__file__).resolve().parents[2] / "golden" / "sql" / "baselines"
FORMAT_VERSION = 1


class BaselineError(HarnessError):
    """A baseline that cannot be used, or one that does not belong to this run."""


@dataclass(frozen=True)
class AcceptedCheck:
    name: str
    detail: str


@dataclass(frozen=True)
class Flip:
    """A regression a forced re-record accepted: the question, its verdict then and now."""

    id: str
    was: str | None
    now: str
    reason: str | None


@dataclass(frozen=True)
class Accepted:
    """What a ``--force --reason`` re-record accepted: the failing checks and every regression against the
    baseline it replaces, with why."""

    reason: str | None
    recorded_at: str
    replaces: str | None
    checks: list[AcceptedCheck]
    flips: list[Flip]


@dataclass(frozen=True, kw_only=True)
class Baseline:
    """A baseline file (its fields in the file's order, :mod:`eval.sql.model.codec`), and where it was read."""

    version: int = FORMAT_VERSION
    candidate_path: str = field(metadata=key(("candidate", "path")))
    model: str = field(metadata=key(("candidate", "model")))
    recorded_at: str
    corpus: CorpusStamps
    composition: dict[str, int]
    run: RunSetup = field(default_factory=RunSetup)
    cohort: Cohort | None = None
    summary: Summary
    questions: dict[str, BaselineQuestion]
    accepted: Accepted | None = field(default=None, metadata=key(omit="none"))
    source: Path = field(default=Path(), metadata=key(written=False))
    """The file it was read from (not written)."""
    keys: dict[str, Any] = field(default_factory=dict, metadata=key(written=False, read=cohort_keys))
    """The cohort keys it was measured under (a key a baseline from before it existed lacks is unknown; not
    written)."""

    @property
    def engine(self) -> str:
        return str(self.run.engine or DEFAULT_ENGINE)

    @property
    def label(self) -> str:
        return f"{self.candidate_path}/{self.model}" + ("" if self.engine == DEFAULT_ENGINE else f" on {self.engine}")


def display_path(path: Path) -> str:
    """Repo-relative for the built-in baselines, else relative to where the user stands (``q/baselines/x.json``),
    else the file's name alone: reports and messages never name a folder of the machine."""
    backend = BASELINE_DIR.parents[3]
    try:
        return Path(path).resolve().relative_to(backend).as_posix()
    except ValueError:
        shown = shown_path(path)
        return shown if not Path(shown).is_absolute() else Path(path).name


SLUG_CHARS = 80
"""A file name part's longest form; a model's name can be any length."""


def _plain(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "default"


def slug(text: str) -> str:
    """``text`` as part of a file name: itself when it is already a short, plain name; otherwise its plain
    characters, cut short, and a digest of the whole, so ``a/b`` and ``a_b`` never share a file and a
    300-character model name still makes a name the file system takes."""
    plain = _plain(text)
    if plain == text and len(plain) <= SLUG_CHARS:
        return plain
    return f"{plain[: SLUG_CHARS - 11]}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def baseline_path(
    candidate_path: str, model: str, directory: Path = BASELINE_DIR, engine: str = DEFAULT_ENGINE
) -> Path:
    suffix = "" if engine == DEFAULT_ENGINE else f"--{slug(engine)}"
    return Path(directory) / f"{slug(candidate_path)}--{slug(model)}{suffix}.json"


def read_baseline(path: Path) -> Baseline:
    """The baseline in ``path``, whoever it was recorded for (:func:`load_baseline` checks that)."""
    data = json_file(
        path,
        BaselineError,
        missing="no such baseline; record one with --record-baseline",
        unreadable="cannot read baseline (re-record it with --record-baseline)",
    )
    try:
        if data.get("version") != FORMAT_VERSION:
            raise BaselineError(
                f"{path}: baseline format version {data.get('version')!r}, expected {FORMAT_VERSION}; "
                "re-record it with --record-baseline"
            )
        return replace(from_json(Baseline, data), source=path)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise BaselineError(
            f"{path}: malformed baseline ({'missing ' if isinstance(exc, KeyError) else ''}{exc}); "
            "re-record it with --record-baseline"
        ) from None


def load_baseline(
    candidate_path: str, model: str, directory: Path = BASELINE_DIR, engine: str = DEFAULT_ENGINE
) -> Baseline | None:
    """The baseline of exactly this path, model and engine, or ``None``; a file naming another is an error.
    A baseline written under the name an earlier harness gave (the model's plain characters alone) is
    still found; the file's own candidate and model fields decide whether it is this run's."""
    path = baseline_path(candidate_path, model, directory, engine)
    if not path.exists():
        earlier = path.with_name(path.name.replace(slug(model), _plain(model), 1))
        if earlier == path or not _exists(earlier):
            return None
        path = earlier
    baseline = read_baseline(path)
    if (baseline.candidate_path, baseline.model, baseline.engine) != (candidate_path, model, engine):
        raise BaselineError(
            f"{path}: recorded for {baseline.label}, but this run is {candidate_path}/{model} on {engine}; "
            "a run is never compared with another path's, model's or engine's baseline"
        )
    return baseline


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; a name longer than the file system holds (an earlier harness's name for a
    300-character model) cannot, and is not an error."""
    try:
        return path.exists()
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return False
        raise


def other_baselines(
    candidate_path: str, model: str, directory: Path = BASELINE_DIR, engine: str = DEFAULT_ENGINE
) -> list[Baseline]:
    """Baselines recorded for the same candidate path under another model or engine (for the pinning message)."""
    found = []
    for path in sorted(Path(directory).glob(f"{slug(candidate_path)}--*.json")):
        try:
            b = read_baseline(path)
        except BaselineError:
            continue
        if b.candidate_path == candidate_path and (b.model, b.engine) != (model, engine):
            found.append(b)
    return found


def report_engine(report: SQLRun) -> str:
    """The engine a run graded on (SQLite for a report that does not say)."""
    return str(report.run.engine or DEFAULT_ENGINE)


def baseline_record(report: SQLRun, composition: dict[str, int], accepted: Accepted | None = None) -> Baseline:
    """The baseline file of a run; ``accepted``: the regressions a ``--force --reason`` run accepted."""
    return Baseline(
        candidate_path=report.candidate_path,
        model=report.model,
        recorded_at=report.generated_at,
        corpus=report.corpus,
        composition=composition,
        run=report.run,
        cohort=report.cohort,
        summary=report.summary,
        questions={
            o.question_id: BaselineQuestion(
                o.verdict,
                o.good,
                o.expect,
                o.stratum,
                sum(v is Verdict.PASS for v in o.samples) if o.samples else None,
                len(o.samples) if o.samples else None,
                o.refuted,
            )
            for o in report.outcomes
        },
        accepted=accepted,
    )


def write_baseline(
    report: SQLRun,
    composition: dict[str, int],
    directory: Path = BASELINE_DIR,
    accepted: Accepted | None = None,
) -> Path:
    """Write the baseline atomically: a reader never sees half a file, a write killed halfway leaves the old one."""
    path = baseline_path(report.candidate_path, report.model, directory, report_engine(report))
    text = json.dumps(to_json(baseline_record(report, composition, accepted)), indent=1, sort_keys=False) + "\n"
    return write_atomically(path, text)
