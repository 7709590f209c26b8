"""Bulk grading, as a user grades a published prediction set (issue 40 point 4): this project's import and run
against the Spider test-suite's ``evaluation.py --etype exec``, on the same files, each a whole fresh process.

For each shared Spider prediction set (``../shared/data/spider-dev/predictions/*.txt``) the questions, gold lines
and predictions of the questions whose database is shared (972 of 1,034: ``wta_1`` is not) are written to a
temporary folder, and each round times, in turn (the order turning each round):

* ``import + run``: ``python -m eval.cli.bench_import spider ...`` then the ``python -m eval.run`` it prints;
* ``test-suite``: ``evaluation.py --gold ... --pred ... --db ... --table tables.json --etype exec`` with its
  defaults (``_testsuite_eval.py`` says how it is run from ``../shared/peers``).

Wall time from start to exit (a user's wait), and CPU (the process's and its waited-for children's). The target:
the import and the run together faster than the test-suite, the ratio taken within a round, its median judged
(``BENCH_BULK_ROUNDS``, default 3). Without the shared folder or the peers' code the bench says so.
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from eval.core.errors import UsageError
from eval.sql.spider_study._sets import SpiderDev, spider_dev

ROUNDS = int(os.environ.get("BENCH_BULK_ROUNDS", "3"))
BACKEND = Path(__file__).resolve().parents[1]
PEERS = Path(os.environ.get("BENCH_PEERS_DIR") or BACKEND.parents[1] / "shared" / "peers")


@dataclass(frozen=True)
class Timed:
    wall: float
    cpu: float
    output: str


def timed(command: list[str], env: dict[str, str]) -> Timed:
    with tempfile.TemporaryFile("w+") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(command, cwd=BACKEND, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)  # waited for here: Popen must not wait again
        out.seek(0)
        text = out.read()
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{shlex.join(command[:6])} ... exited {proc.returncode}:\n{text[-1500:]}")
    return Timed(wall, usage.ru_utime + usage.ru_stime, text)


def shared_files(spider: SpiderDev, name: str, folder: Path) -> Path:
    """``dev.json``, ``gold.sql`` and ``pred.sql`` of the questions whose database is shared, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    questions = json.loads(spider.questions.read_text())
    golds = spider.gold.read_text().splitlines()
    predictions = spider.predictions(name).read_text().splitlines()
    kept = [i for i, q in enumerate(questions) if (spider.databases / q["db_id"] / f"{q['db_id']}.sqlite").is_file()]
    (folder / "dev.json").write_text(json.dumps([questions[i] for i in kept]))
    (folder / "gold.sql").write_text("".join(golds[i] + "\n" for i in kept))
    (folder / "pred.sql").write_text("".join(predictions[i] + "\n" for i in kept))
    return folder


def ours(spider: SpiderDev, files: Path, env: dict[str, str]) -> Timed:
    """The import, then the command it prints: both timed, as one wait."""
    imported = timed(
        [
            *(sys.executable, "-m", "eval.cli.bench_import", "spider", "--questions", str(files / "dev.json")),
            *("--gold", str(files / "gold.sql"), "--predictions", str(files / "pred.sql"), "--model", "bench"),
            *("--db-dir", str(spider.databases), "--out", str(files / "import")),
        ],
        env,
    )
    lines = imported.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("grade it with"))
    command = shlex.split(lines[at + 1])
    graded = timed([sys.executable, *command[1:]], env)
    return Timed(imported.wall + graded.wall, imported.cpu + graded.cpu, graded.output)


def testsuite(spider: SpiderDev, files: Path, env: dict[str, str]) -> Timed:
    return timed(
        [
            *(sys.executable, str(BACKEND / "benchmarks" / "_testsuite_eval.py"), str(PEERS)),
            *("--gold", str(files / "gold.sql"), "--pred", str(files / "pred.sql"), "--db", str(spider.databases)),
            *("--table", str(spider.root / "tables.json"), "--etype", "exec"),
        ],
        env,
    )


def run() -> None:
    try:
        spider = spider_dev()
    except UsageError as exc:
        print(f"   {exc}: nothing measured")
        return
    if not (PEERS / "test-suite-sql-eval" / "evaluation.py").is_file():
        print(f"   the test-suite's code is not at {PEERS} (../shared/peers): nothing measured")
        return
    with tempfile.TemporaryDirectory(prefix="bench-bulk-") as name:
        tmp = Path(name)
        env = {**os.environ, "EVAL_OUTPUT_DIR": str(tmp), "EVAL_CALLER_DIR": str(tmp)}
        for prediction_set in spider.prediction_sets():
            files = shared_files(spider, prediction_set, tmp / prediction_set)
            questions = len(json.loads((files / "dev.json").read_text()))
            ours(spider, files, env), testsuite(spider, files, env)  # warm: the OS's file cache, bytecode
            rounds: list[tuple[Timed, Timed]] = []
            for r in range(ROUNDS):
                if r % 2:
                    theirs = testsuite(spider, files, env)
                    mine = ours(spider, files, {**env, "EVAL_CHECK_CACHE": str(tmp / f"kept-{r}")})
                else:
                    mine = ours(spider, files, {**env, "EVAL_CHECK_CACHE": str(tmp / f"kept-{r}")})
                    theirs = testsuite(spider, files, env)
                rounds.append((mine, theirs))
            print(f"   {prediction_set} ({questions} questions with a database):")
            for label, attr in (("wall", "wall"), ("CPU", "cpu")):
                ratios = [getattr(m, attr) / getattr(t, attr) for m, t in rounds]
                median = statistics.median(ratios)
                verdict = "met" if median < 1 else "NOT met"
                mine_s = statistics.median(getattr(m, attr) for m, _ in rounds)
                theirs_s = statistics.median(getattr(t, attr) for _, t in rounds)
                print(
                    f"     import + run / test-suite evaluation.py --etype exec, {label}: {median:.2f} "
                    f"[{min(ratios):.2f}-{max(ratios):.2f}] (ours {mine_s:.2f} s, test-suite {theirs_s:.2f} s)"
                    + (f"; target faster: {verdict}" if label == "wall" else "")
                )
