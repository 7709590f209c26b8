"""The trend file beside an accuracy record: one JSON line per recorded run (``eval.tools.trend`` reads it).

Each line holds the record row's identity and status, the run's figures with their 95% intervals, and
the git commit the run was measured at (``dirty`` when tracked files differed from it).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import re
import subprocess
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from eval.core.errors import UsageError
from eval.core.jsonl import json_lines, read_bounded
from eval.core.output import write_atomically
from eval.core.stats import wilson_rounded
from eval.sql.model import codec
from eval.sql.model.figures import Summary
from eval.sql.model.outcome import ANSWERABLE_VERDICTS

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
REPO_ROOT = Path(__file__).resolve().parents[4]
TREND_FILE = REPO_ROOT / "docs" / "eval" / "sql-accuracy.jsonl"


def trend_path(page: Path) -> Path:
    """The JSON Lines file beside an accuracy record page."""
    return page.with_suffix(".jsonl")


def git_commit(cwd: Path = REPO_ROOT) -> tuple[str | None, bool | None]:
    """The commit checked out, and whether tracked files differ from it; (None, None) outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10)
        if head.returncode:
            return None, None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None, None
    return head.stdout.strip(), bool(status.stdout.strip()) if status.returncode == 0 else None


@dataclass(frozen=True)
class TrendPoint:
    """One recorded run as the trend keeps it: the record row's identity and status, and the run's figures."""

    date: str
    candidate: str
    model: str
    pass_rate: float | None
    engine: str | None = None
    corpus_digest: str | None = None
    questions: int | None = None
    rotations: str | int | None = None
    cohort: str | None = None
    """The cohort fingerprint (None: recorded before runs had one)."""
    suite: str = "on"
    """``on`` the record's suite, or ``off`` (kept with ``--allow-off-suite``)."""
    status: str = ""
    passed: int | None = field(default=None, metadata=codec.key("pass"))
    measured: int | None = None
    pass_rate_ci: list[float] | None = None
    correct_refusals: int | None = None
    must_refuse_measured: int | None = None
    refusal_recall: float | None = None
    refusal_recall_ci: list[float] | None = None
    over_refusals: int | None = None
    controls: int | None = None
    verdicts: dict[str, int] | None = field(default=None, metadata=codec.key(omit="none"))
    """The record row's count per verdict (``unmeasured`` with the must-refuse questions not measured); None
    for a line written before the trend kept them."""
    commit: str | None = None
    dirty: bool | None = None
    source: str = "run"
    """``run``, or ``record row`` for a line converted from a record written before the trend existed."""

    REQUIRED: ClassVar[tuple[str, ...]] = ("date", "candidate", "model", "pass_rate")

    @property
    def counts(self) -> str:
        """``pass 64, wrong 37, error 0, refused 7, unmeasured 0``, or ``-`` for a line without them."""
        if not self.verdicts:
            return "-"
        order = [v.value for v in ANSWERABLE_VERDICTS]  # the file's keys are sorted: shown in report order
        shown = sorted(self.verdicts, key=lambda v: order.index(v) if v in order else len(order))
        return ", ".join(f"{v} {self.verdicts[v]}" for v in shown)

    def to_json(self) -> dict[str, Any]:
        return codec.to_json(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrendPoint:
        """A line of the file; :class:`KeyError` names a required key it lacks, :class:`ValueError` a value of the
        wrong kind or out of its range (:func:`check_line`); unknown keys are ignored."""
        missing = [k for k in cls.REQUIRED if k not in data]
        if missing:
            raise KeyError(", ".join(missing))
        check_line(data)
        return codec.from_json(cls, data)


FIRST_YEAR, LAST_YEAR = 1970, 2999
"""A run's date is within these years: a chart's time axis cannot place ``9999-12-31``."""

Check = Callable[[Any], str | None]
"""What a value is not (``a whole count from 0``), or None when it is one."""


def _is(test: Callable[[Any], bool], what: str) -> Check:
    return lambda value: None if test(value) else what


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _fraction(value: Any) -> bool:
    return _number(value) and 0 <= value <= 1


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _interval(value: Any) -> str | None:
    if not (isinstance(value, list) and len(value) == 2 and all(_fraction(v) for v in value)):
        return "an interval [low, high] of fractions from 0 to 1, or null"
    return "an interval whose low end is not above its high end" if value[0] > value[1] else None


def _date(value: Any) -> str | None:
    if not isinstance(value, str) or not _DATE.match(value):
        return "a date YYYY-MM-DD"
    try:
        day = datetime.date.fromisoformat(value[:10])
    except ValueError:
        return "a date YYYY-MM-DD"
    return None if FIRST_YEAR <= day.year <= LAST_YEAR else f"a date from {FIRST_YEAR} to {LAST_YEAR}"


def _one_of(*allowed: str) -> Check:
    return _is(lambda value: value in allowed, " or ".join(repr(a) for a in allowed))


_TEXT = _is(lambda value: isinstance(value, str), "text")
_REQUIRED: dict[str, Check] = {"date": _date, "candidate": _TEXT, "model": _TEXT}
_OPTIONAL: dict[str, Check] = {
    **dict.fromkeys(("engine", "corpus_digest", "cohort", "status", "commit"), _TEXT),
    "suite": _one_of("on", "off"),
    "source": _one_of("run", "record row"),
    "rotations": _is(lambda v: isinstance(v, str) or (_number(v) and v >= 0), "a number of rotations"),
    "dirty": _is(lambda v: isinstance(v, bool), "true or false"),
    **dict.fromkeys(
        ("questions", "pass", "measured", "correct_refusals", "must_refuse_measured", "over_refusals", "controls"),
        _is(_whole, "a whole count from 0"),
    ),
    **dict.fromkeys(("pass_rate", "refusal_recall"), _is(_fraction, "a fraction from 0 to 1, or null")),
    **dict.fromkeys(("pass_rate_ci", "refusal_recall_ci"), _interval),
    "verdicts": _is(
        lambda v: isinstance(v, dict) and all(_whole(n) for n in v.values()), "a whole count from 0 per verdict"
    ),
}
"""Each known key of a trend line and what its value must be; a key set to null is a value left out."""


def check_line(data: Mapping[str, Any]) -> None:
    """Every known key of a trend line of its kind and in its range, or :class:`ValueError` naming the first that
    is not: text, whole counts from 0, fractions from 0 to 1, intervals of two fractions in order, a date."""
    for name, check in [*_REQUIRED.items(), *_OPTIONAL.items()]:
        value = data.get(name)
        wrong = check(value) if name in _REQUIRED or value is not None else None
        if wrong is not None:
            raise ValueError(f"{name!r} is {json.dumps(value, default=str)[:60]}, not {wrong}")


def verdict_counts(row: Mapping[str, str]) -> dict[str, int] | None:
    """The record row's count per answerable verdict, in report order (a verdict the row predates left out)."""
    found = {v.value: row.get(v.value, "-") for v in ANSWERABLE_VERDICTS}
    return {v: int(n) for v, n in found.items() if n.isdigit()} or None


def trend_line(summary: Summary, row: Mapping[str, str], *, commit: str | None, dirty: bool | None) -> TrendPoint:
    """One run as the trend keeps it: the record row's identity and status, the summary's figures."""
    return TrendPoint(
        date=row["date"],
        candidate=row["candidate"],
        model=row["model"],
        engine=row["engine"],
        corpus_digest=row["corpus digest"],
        questions=int(row["questions"]),
        rotations=row["rotations"],
        cohort=row.get("cohort"),
        suite="off" if "differs in" in row else "on",
        status=row["status"],
        passed=summary.passed,
        measured=summary.answerable - summary.unmeasured,
        pass_rate=summary.pass_rate,
        pass_rate_ci=summary.pass_rate_ci,
        correct_refusals=summary.correct_refusals,
        must_refuse_measured=summary.must_refuse - summary.must_refuse_unmeasured,
        refusal_recall=summary.refusal_recall,
        refusal_recall_ci=summary.refusal_recall_ci,
        over_refusals=summary.over_refusals,
        controls=summary.controls,
        verdicts=verdict_counts(row),
        commit=commit,
        dirty=dirty,
    )


def existing_points(path: Path) -> list[TrendPoint]:
    """The runs of an existing trend file (none when there is no file). A file holding anything but trend
    lines is refused by name and line, before anything is written: ``--record-accuracy PAGE`` appends to
    ``PAGE`` with ``.jsonl``, which may be an unrelated file of the user's."""
    if not path.exists():
        return []
    points = []
    for line in json_lines(path, UsageError, missing="no trend file", unreadable="cannot read the trend file"):
        try:
            if line.error is not None or not isinstance(line.value, dict):
                raise ValueError("not a JSON object")
            points.append(TrendPoint.from_json(line.value))
        except (KeyError, ValueError) as exc:
            raise UsageError(
                f"{line.where}: not a line of an accuracy trend ({exc}); --record-accuracy PAGE appends a line per "
                "run to PAGE with .jsonl: record into another page, or move this file away"
            ) from None
    return points


def _row_key(row: Mapping[str, str]) -> tuple[str | None, ...]:
    return (row["date"], row["candidate"], row["model"], row["engine"], row["corpus digest"].strip("`"), row["status"])


def _point_key(point: TrendPoint) -> tuple[str | None, ...]:
    return (point.date, point.candidate, point.model, point.engine, point.corpus_digest, point.status)


def missing_lines(rows: Sequence[Mapping[str, str]], points: Sequence[TrendPoint]) -> list[TrendPoint]:
    """Lines for the rows of a record its trend file lacks (a record killed between writing its page and its
    trend: the page a row ahead), made from the rows (``source: record row``); rows that do not read are left."""
    unmatched = Counter(_point_key(p) for p in points)
    found = []
    for row in rows:
        key = _row_key(row)
        if unmatched[key]:
            unmatched[key] -= 1
            continue
        with contextlib.suppress(KeyError, ValueError):
            found.append(from_record_row(row))
    return found


def append_lines(path: Path, lines: Sequence[TrendPoint]) -> None:
    """Append runs (the file rewritten through a rename: a reader never sees half a line)."""
    exists = path.exists()
    before = read_bounded(path, UsageError, missing="", unreadable="cannot read the trend file") if exists else ""
    if before and not before.endswith("\n"):
        before += "\n"
    write_atomically(path, before + "".join(json.dumps(x.to_json(), sort_keys=True) + "\n" for x in lines))


def append_line(path: Path, line: TrendPoint) -> None:
    """Append one run (:func:`append_lines`)."""
    append_lines(path, [line])


_FRACTION = re.compile(r"\((\d+)/(\d+)\)")
_OVER = re.compile(r"\s*(\d+)/(\d+)\s*")


def _counts(cell: str) -> tuple[int, int] | None:
    """``59.3% (64/108)`` -> (64, 108); ``n/a`` -> None."""
    found = _FRACTION.search(cell)
    return (int(found.group(1)), int(found.group(2))) if found else None


def from_record_row(row: Mapping[str, str]) -> TrendPoint:
    """A line for a row of an accuracy record (``source: record row``: no commit, intervals from the row's
    counts), checked as a line of the file is (:func:`check_line`); :class:`ValueError` or :class:`KeyError`
    when the row does not read as a run."""
    passed, refused = _counts(row["pass rate"]), _counts(row["refusal recall"])
    over = _OVER.fullmatch(row["over-refusals"])  # ``1/20``, or ``n/a`` without controls
    point = TrendPoint(
        date=row["date"],
        candidate=row["candidate"],
        model=row["model"],
        engine=row["engine"],
        corpus_digest=row["corpus digest"].strip("`"),
        questions=int(row["questions"]),
        rotations=row["rotations"],
        cohort=None if row.get("cohort") in (None, "-") else row["cohort"],
        status=row["status"],
        passed=passed[0] if passed else None,
        measured=passed[1] if passed else None,
        pass_rate=passed[0] / passed[1] if passed and passed[1] else None,
        pass_rate_ci=wilson_rounded(*passed) if passed else None,
        correct_refusals=refused[0] if refused else None,
        must_refuse_measured=refused[1] if refused else None,
        refusal_recall=refused[0] / refused[1] if refused and refused[1] else None,
        refusal_recall_ci=wilson_rounded(*refused) if refused else None,
        over_refusals=int(over.group(1)) if over else None,
        controls=int(over.group(2)) if over else None,
        verdicts=verdict_counts(row),
        source="record row",
    )
    check_line(point.to_json())
    return point
