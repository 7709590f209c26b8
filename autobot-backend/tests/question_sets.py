"""The built-in generator's question sets, graded and gated by the SQL suite itself.

Each set is a folder of corpus files in the suite's format over the fixtures of
:mod:`tests.schemas`, with its baseline beside it (``<folder>/baselines/``). Grading one is a run
of the suite, nothing else: ``python -m eval.run --suite sql --corpus <files> --fixtures
tests.schemas --fail-on-regression``: the self-check and its lints on the references, the
grader on the generator's answers on every rotation, and the gate against the baseline (any
question the baseline passed that fails now, any declined must-refuse case answered now).

* ``blind1``, ``blind2``: blind sets 1 and 2 (both splits burned: development data now);
* ``blind3``: blind set 3, a pure holdout nobody working on the generator reads: its results are
  shown as totals only, and its baseline file is as closed to them as its questions;
* ``dev``: the dev set, one database per schema;
* ``dev_on_retail_24m``: the dev set's retail questions asked of the suite's own ``retail_24m``
  fixture instead (its comments are worded differently).

Totals, or a baseline re-recorded on purpose (``--record``; it refuses to overwrite a baseline the
run fails against unless ``--force``)::

    python -m tests.question_sets [--record [--force]] [NAME ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.run import main as eval_main
from tests.phrases import generator_text, shingles, words

DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class QuestionSet:
    name: str
    folder: Path
    rotations: int = 3
    holdout: bool = False
    """Nobody working on the generator reads it: failures are shown as totals only."""
    files_glob: str = "*.yaml"
    on_fixture: str | None = None
    """Ask every question of this fixture instead of its own (a derived corpus, written per run)."""
    baseline_name: str | None = None
    """A baseline folder of its own under ``<folder>/baselines/`` (for a derived corpus)."""

    def files(self) -> list[Path]:
        return sorted(self.folder.glob(self.files_glob))

    def baseline_dir(self) -> Path:
        base = self.folder / "baselines"
        return base / self.baseline_name if self.baseline_name else base

    def corpus(self, workdir: Path) -> list[Path]:
        if self.on_fixture is None:
            return self.files()
        out = []
        for path in self.files():
            text = re.sub(r"(?m)^fixture: \S+$", f"fixture: {self.on_fixture}", path.read_text(encoding="utf-8"))
            target = workdir / self.name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            out.append(target)
        return out

    def run(self, workdir: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
        """The suite on this set: exit code, JSON report and stderr (the Markdown report is dropped).

        Recording writes the baseline where every output of the run may go (``workdir``: the run confines
        its outputs) and, once the run accepted it, copies it over the committed one."""
        out = workdir / f"{self.name}.json"
        baselines = self.baseline_dir()
        if "--record-baseline" in extra:
            baselines = workdir / f"{self.name}-baselines"
            baselines.mkdir(exist_ok=True)
            for kept in self.baseline_dir().glob("*.json"):
                shutil.copy2(kept, baselines / kept.name)
        args = [
            "--suite",
            "sql",
            "--corpus",
            *map(str, self.corpus(workdir)),
            "--fixtures",
            "tests.schemas",
            "--rotations",
            str(self.rotations),
            "--baseline-dir",
            str(baselines),
            "--json",
            str(out),
            *extra,
        ]
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr), _output_dir(workdir):
            code = eval_main(args)
        report = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
        if code == 0 and baselines != self.baseline_dir():
            for recorded in baselines.glob("*.json"):
                shutil.copy2(recorded, self.baseline_dir() / recorded.name)
        return code, report, stderr.getvalue()

    def questions(self) -> Iterator[dict[str, Any]]:
        import yaml

        for path in self.files():
            yield from yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]


SETS: dict[str, QuestionSet] = {
    s.name: s
    for s in (
        QuestionSet("blind1", DATA / "embedded_blind"),
        QuestionSet("blind2", DATA / "embedded_blind2"),
        QuestionSet("blind3", DATA / "embedded_blind3", holdout=True),
        QuestionSet("dev", DATA / "embedded_dev", rotations=1),
        QuestionSet(
            "dev_on_retail_24m",
            DATA / "embedded_dev",
            rotations=1,
            files_glob="retail_*.yaml",
            on_fixture="retail_24m",
            baseline_name="on_retail_24m",
        ),
    )
}


@contextlib.contextmanager
def _output_dir(path: Path) -> Iterator[None]:
    import os

    old = os.environ.get("EVAL_OUTPUT_DIR")
    os.environ["EVAL_OUTPUT_DIR"] = str(path)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("EVAL_OUTPUT_DIR", None)
        else:
            os.environ["EVAL_OUTPUT_DIR"] = old


def totals(report: dict[str, Any]) -> str:
    """One line of figures: what a holdout may show."""
    s = report.get("summary", {})
    measured = s.get("answerable", 0) - s.get("unmeasured", 0)
    return (
        f"answered right {s.get('pass')}/{measured} (of {s.get('answerable')} answerable), must-refuse declined "
        f"{s.get('correct_refusals')}/{s.get('must_refuse')}, controls declined {s.get('over_refusals')}/"
        f"{s.get('controls')}, unmeasured {s.get('unmeasured', 0) + s.get('must_refuse_unmeasured', 0)}"
    )


def failures(report: dict[str, Any]) -> str:
    """The failing gate checks, each naming its questions (never for a holdout)."""
    checks = report.get("gate", {}).get("checks", [])
    return "\n".join(f"  {c['name']}: {c['detail']}" for c in checks if c.get("ok") is not True)


def leaks(qs: QuestionSet) -> list[tuple[str, str]]:
    """(id, phrase) for every six-word run of a question of the set found in the generator's code."""
    code = " ".join(words(generator_text()))
    return sorted({(q["id"], s) for q in qs.questions() for s in shingles(q["question"]) if s in code})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.question_sets", description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", choices=[[], *SETS], metavar="NAME", help=", ".join(SETS))
    p.add_argument("--record", action="store_true", help="re-record each set's baseline")
    p.add_argument("--force", action="store_true", help="with --record: replace a baseline the run fails")
    p.add_argument("--reason", help="with --record --force: why the baseline is replaced (kept in it)")
    args = p.parse_args(argv)
    worst = 0
    with tempfile.TemporaryDirectory(prefix="question-sets-") as tmp:
        for name in args.names or list(SETS):
            qs = SETS[name]
            extra = (
                [
                    "--record-baseline",
                    *(["--force"] if args.force else []),
                    *(["--reason", args.reason] if args.reason else []),
                ]
                if args.record
                else ["--fail-on-regression"]
            )
            code, report, err = qs.run(Path(tmp), *extra)
            print(f"{name:<18} exit {code}  {totals(report)}")
            if code and not qs.holdout:
                print(failures(report) or err.strip())
            worst = max(worst, code)
    return worst


if __name__ == "__main__":
    sys.exit(main())
