"""A benchmark's import and its grading, this code against the versions before the regressions (issue 34 point 4).

For each shared Spider prediction set (``../shared/data/spider-dev/predictions/*.txt``, 972 questions with a
database), every round times, as whole fresh processes from start to exit, rounds interleaved and the order of
old and new alternating:

* **the import**, ``python -m eval.cli.bench_import spider ... --skip-missing-databases``, of this checkout
  against the code at :data:`IMPORT_BEFORE` (the commit before the import ran the self-check of every
  reference to count the suspect ones: ``c428231``'s parent). Target: no slower (CPU, at most 1.0x). The
  import that checks the references (``--check-references``, opt-in) is timed beside it, with nothing kept
  and with an earlier import's findings kept, against the same old import, for the record (no target: it
  does work the old import never did, which the run does anyway);
* **the grading**, the ``python -m eval.run`` command each import prints, as printed, of this checkout
  against the code at :data:`GRADING_BEFORE` (before the diagnosis of issue 25: ``51881e2``'s parent), each
  grading what its own import wrote. Target: at most 1.1x (CPU).

CPU is the process's user and system time and its waited-for children's (``os.wait4``: a run's forked
children are counted); wall is this process's clock. The old versions are taken from git (``git archive
COMMIT autobot-backend`` into a temporary folder, their bytecode compiled as the checkout's is) and run with
this environment's interpreter and libraries. Each ratio is taken within a round and printed as its median
with its range. The bench says so, and measures nothing, when git history or the shared folder is missing.
``BENCH_IMPORT_ROUNDS`` (default 3) sets the rounds.
"""

from __future__ import annotations

import compileall
import io
import os
import shlex
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from eval.core.errors import UsageError
from eval.sql.oracle.kept import CACHE_ENV as KEPT_ENV
from eval.sql.spider_study._sets import SpiderDev, spider_dev

ROUNDS = int(os.environ.get("BENCH_IMPORT_ROUNDS", "3"))
BACKEND = Path(__file__).resolve().parents[1]
IMPORT_BEFORE = "f16965cbadc68f05838d4719e03a778844b67893"
"""The parent of c428231 ("bench_import prints how many of a benchmark's references are suspect"): the last
import that ran no self-check."""
GRADING_BEFORE = "41965e87e5f87cc66f642604b29259c3aace0678"
"""The parent of 51881e2 ("Why each wrong answer is wrong (issue 25 points 1-3)"): the last run before the
diagnosis."""
IMPORT_TARGET = 1.0
GRADING_TARGET = 1.1


class Missing(Exception):
    """What the bench needs is not here: the message says what and how to get it."""


@dataclass(frozen=True)
class Timed:
    cpu_s: float
    wall_s: float
    output: str


def timed(command: Sequence[str], cwd: Path, env: dict[str, str]) -> Timed:
    """One fresh process: its CPU (its own and its waited-for children's) and wall seconds, and its output.
    A process that fails is an error naming the command (a bench of a broken run measures nothing)."""
    with tempfile.TemporaryFile("w+") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{shlex.join(command)} (in {cwd}) exited {proc.returncode}:\n{text[-2000:]}")
    return Timed(usage.ru_utime + usage.ru_stime, wall, text)


def old_tree(commit: str, dest: Path, repo: Path = BACKEND.parent) -> Path:
    """``autobot-backend/`` as it was at ``commit``, unpacked under ``dest``, its bytecode compiled."""

    def git(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True)

    if git("rev-parse", "--git-dir").returncode != 0:
        raise Missing(
            f"{repo} is not a git checkout: the versions before the regressions are taken from its history "
            "(git archive), so the side-by-side cannot run; run it from a clone"
        )
    if git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        raise Missing(
            f"commit {commit[:7]} is not in this clone's history (a shallow clone? git fetch --unshallow): the "
            "version before the regression cannot be taken, so the side-by-side cannot run"
        )
    archive = git("archive", "--format=tar", commit, "autobot-backend")
    if archive.returncode != 0:
        raise Missing(f"git archive {commit[:7]} autobot-backend failed: {archive.stderr.decode(errors='replace')}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(dest, filter="data")
    tree = dest / "autobot-backend"
    for package in ("eval", "services"):
        compileall.compile_dir(tree / package, quiet=1)
    return tree


def import_command(spider: SpiderDev, name: str, out: Path, extra: Sequence[str] = ()) -> list[str]:
    return [
        sys.executable, "-m", "eval.cli.bench_import", "spider", "--questions", str(spider.questions),
        "--gold", str(spider.gold), "--predictions", str(spider.predictions(name)), "--model", name,
        "--out", str(out), "--db-dir", str(spider.databases), "--skip-missing-databases", *extra,
    ]  # fmt: skip


def grade_command(import_output: str) -> list[str]:
    """The command the import printed (``grade it with ...``), run with this interpreter."""
    lines = import_output.splitlines()
    at = next((i for i, line in enumerate(lines) if line.startswith("grade it with")), None)
    if at is None or at + 1 >= len(lines):
        raise RuntimeError(f"the import printed no command to grade with:\n{import_output[-2000:]}")
    command = shlex.split(lines[at + 1])
    return [sys.executable, *command[1:]] if command[0] == "python" else command


def ratio_line(label: str, new: list[float], old: list[float], target: float | None) -> str:
    """``import, CPU new/old: 0.97 [0.95-1.01] (new 1.01 s, old 1.04 s); target at most 1.0x: met``: each ratio
    taken within a round; the median judged against the target."""
    ratios = [n / o for n, o in zip(new, old)]
    median = statistics.median(ratios)
    verdict = "no target" if target is None else ("met" if median <= target else "NOT met")
    return (
        f"{label} new/old {median:.2f} [{min(ratios):.2f}-{max(ratios):.2f}] (new {statistics.median(new):.2f} s, "
        f"old {statistics.median(old):.2f} s); "
        + (f"target at most {target:g}x: {verdict}" if target is not None else "no target (for the record)")
    )


@dataclass
class _Version:
    """One version of the code, and what it printed: the command that grades its import."""

    tree: Path
    out: Path
    grade: list[str] | None = None

    def import_(self, spider: SpiderDev, name: str, env: dict[str, str], extra: Sequence[str] = ()) -> Timed:
        got = timed(import_command(spider, name, self.out, extra), self.tree, env)
        self.grade = grade_command(got.output)
        return got

    def grading(self, env: dict[str, str]) -> Timed:
        assert self.grade is not None, "imported first"
        return timed(self.grade, self.tree, env)


def measure(spider: SpiderDev, name: str, trees: dict[str, Path], work: Path, rounds: int = ROUNDS) -> list[str]:
    """The lines of one prediction set: the import and the grading, CPU and wall, new against old.

    The new import is timed as a user runs it (no self-check), and with ``--check-references`` twice: with
    nothing kept (an empty ``EVAL_CHECK_CACHE``: the first import of the benchmark on this machine) and with the
    findings an earlier import of it kept; the new grading after a checking import (the suspect findings kept
    by it) and with nothing kept (what follows an import as a user runs it). The old versions keep nothing."""
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(work)}
    kept = {**env, KEPT_ENV: str(work / f"kept-{name}")}

    def nothing_kept(r: int, what: str) -> dict[str, str]:
        return {**env, KEPT_ENV: str(work / f"empty-{name}-{what}-{r}")}

    new = _Version(BACKEND, work / f"new-{name}")
    before = {"import": _Version(trees["import"], work / f"import-before-{name}")}
    before["grading"] = _Version(trees["grading"], work / f"grading-before-{name}")
    checking = ["--check-references"]
    new.import_(spider, name, kept, checking)  # warm, untimed: the OS's file cache, what the import keeps
    for version in before.values():
        version.import_(spider, name, env)
    new.grading(kept)
    before["grading"].grading(env)
    cpu: dict[str, list[float]] = {}
    wall: dict[str, list[float]] = {}
    for r in range(rounds):
        imports: list[tuple[str, Callable[[], Timed]]] = [
            ("import", partial(new.import_, spider, name, nothing_kept(r, "plain"))),
            (
                "import --check-references, nothing kept",
                partial(new.import_, spider, name, nothing_kept(r, "import"), checking),
            ),
            ("import --check-references, kept", partial(new.import_, spider, name, kept, checking)),
            ("import old", partial(before["import"].import_, spider, name, env)),
        ]
        gradings: list[tuple[str, Callable[[], Timed]]] = [
            ("grading, after a checking import", partial(new.grading, kept)),
            ("grading, nothing kept", partial(new.grading, nothing_kept(r, "grading"))),
            ("grading old", partial(before["grading"].grading, env)),
        ]
        for steps in (imports, gradings):
            for what, step in steps[r % len(steps) :] + steps[: r % len(steps)]:  # each first in turn
                _record(cpu, wall, what, step())
    lines = []
    for what, old, target in (
        ("import", "import old", IMPORT_TARGET),
        ("import --check-references, nothing kept", "import old", None),
        ("import --check-references, kept", "import old", None),
        ("grading, nothing kept", "grading old", GRADING_TARGET),
        ("grading, after a checking import", "grading old", GRADING_TARGET),
    ):
        lines += [
            ratio_line(f"{what}, CPU", cpu[what], cpu[old], target),
            ratio_line(f"{what}, wall", wall[what], wall[old], target),
        ]
    return lines


def _record(cpu: dict[str, list[float]], wall: dict[str, list[float]], what: str, got: Timed) -> None:
    cpu.setdefault(what, []).append(got.cpu_s)
    wall.setdefault(what, []).append(got.wall_s)


def run() -> None:
    try:
        spider = spider_dev()
    except UsageError as exc:
        print(f"   the shared Spider folder is missing, so nothing is measured: {exc}")
        return
    with tempfile.TemporaryDirectory(prefix="bench-import-") as name:
        work = Path(name)
        try:
            trees = {
                "import": old_tree(IMPORT_BEFORE, work / "import-before"),
                "grading": old_tree(GRADING_BEFORE, work / "grading-before"),
            }
        except Missing as exc:
            print(f"   {exc}")
            return
        print(
            f"   new: this checkout; import before: {IMPORT_BEFORE[:7]} (before the import's self-check, c428231); "
            f"grading before: {GRADING_BEFORE[:7]} (before the diagnosis, 51881e2); {ROUNDS} round(s), interleaved, "
            "each a fresh process"
        )
        for set_name in spider.prediction_sets():
            lines = measure(spider, set_name, trees, work)
            print(f"   {set_name} (972 questions with a database; per set):")
            for line in lines:
                print(f"     {line}")
