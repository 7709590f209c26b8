"""The offline suite against the bare cost of its SQL, and at scale (issue 27 point 4).

Every figure is a fresh ``python -m eval.run --suite sql`` process, as a user runs it, on a warm fixture
cache and warm bytecode (one run first, not timed), with the built-in generator:

* **Built-in corpus**: the run's wall time against the bare cost of all its SQL, measured in the same
  repeat: every reference and every answer the run's report holds, executed on every rotation straight
  through ``sqlite3`` (``fetchall``) in a process of its own, timing the SQL only. Target: at most 1.5x.
  Beside it, the least any such run pays (its libraries imported; its SQL, the built-in generator's answers and
  the guard's reading of every statement spread perfectly over every core) against what 1.5x allows: whether the
  target is within reach on this machine at all.
* **Scale**: a generated corpus of N questions over the built-in fixtures (the built-in questions
  repeated under new ids, so the references and the generator's answers are the real ones, and identical
  SQL recurs as it does in a large corpus); wall time and peak memory (the largest process's resident
  set, the run started from a small launcher, ``benchmarks/_launch.py``). Targets: 1,000 questions under
  4 s, 10,000 under 40 s; memory flat (10,000 at most 2x 1,000).

Each line gives the median over ``BENCH_REPEATS`` repeats (default 3) and the range. ``EVAL_PROCESSES=1``
in the environment measures the one-process run instead.
"""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from eval.sql.corpus.questions import CORPUS_DIR

REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
BACKEND = Path(__file__).resolve().parents[1]
SCALES = ((1_000, 4.0), (10_000, 40.0))
"""(questions, target seconds)."""
TARGET_RATIO = 1.5

_BARE = """
import json, sqlite3, sys, time
from pathlib import Path
sys.path.insert(0, ".")
from eval.sql.fixtures.seeded import FIXTURES, build_rotations
report = json.loads(Path(sys.argv[1]).read_text())
tmp = Path(sys.argv[2])
urls = {f: build_rotations(f, tmp, rotations=report["run"]["rotations"]) for f in FIXTURES}
conns = {f: [sqlite3.connect(u.removeprefix("sqlite:///")) for u in us] for f, us in urls.items()}
work = [(q["fixture"], sql) for q in report["questions"] if q["fixture"]
        for sql in (q["reference_sql"], q["sql"]) if sql]
started = time.perf_counter()
for fixture, sql in work:
    for conn in conns[fixture]:
        try:
            conn.execute(sql).fetchall()
        except sqlite3.Error:
            pass
bare = time.perf_counter() - started
# What no run can skip beside its SQL: the built-in generator answering every question it is asked (on the schema
# it is given: the first rotation's, read once per fixture before the clock), and the guard reading every
# statement once (after the generator, as in a run: what the generator parsed is shared).
from services.embedded import EmbeddedGenerator
from services.readonly.execute import ReadOnlySQL
from services.readonly.guard import validate_readonly_sql
generator, database = EmbeddedGenerator(), ReadOnlySQL()
schemas = {f: database.schema(us[0]) for f, us in urls.items()}
asked = [(q["question"], q["fixture"]) for q in report["questions"] if q["fixture"]]
started = time.perf_counter()
for text, fixture in asked:
    generator.generate(text, schemas[fixture])
generating = time.perf_counter() - started
started = time.perf_counter()
for statement in dict.fromkeys(statement for _, statement in work):
    validate_readonly_sql(statement, "sqlite")
guarding = time.perf_counter() - started
print(json.dumps({"bare": bare, "generator": generating, "guard": guarding}))
"""


def _run(args: list[str], tmp: Path) -> tuple[float, int]:
    """Wall seconds and peak resident KiB (the run's process or its largest child) of one fresh run (exit 0 or
    1: a run that judged), started from a small launcher (``benchmarks/_launch.py`` says why)."""
    measured = tmp / "measured.json"
    with (tmp / "stderr.txt").open("w+") as err:
        done = subprocess.run(
            [sys.executable, str(BACKEND / "benchmarks" / "_launch.py"), str(measured)]
            + [sys.executable, "-m", "eval.run", "--suite", "sql", *args],
            cwd=BACKEND,
            env={**os.environ, "EVAL_OUTPUT_DIR": str(tmp)},
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        if done.returncode not in (0, 1):
            err.seek(0)
            raise RuntimeError(f"eval.run exited {done.returncode}: {err.read()[-2000:]}")
    result = json.loads(measured.read_text())
    return result["wall_s"], result["peak_kib"]


RUN_LIBRARIES = ("sqlalchemy", "sqlglot", "yaml", "rapidfuzz")
"""What an offline run of the built-in generator imports and uses: its engine, parser, corpus reader, matcher."""


@dataclass(frozen=True)
class Bare:
    """The bare child's seconds: all the run's SQL, the built-in generator asked every question, the guard reading
    every statement once."""

    sql: float
    generator: float = 0.0
    guard: float = 0.0


def least_line(bare: Bare, imports_s: float, cores: int | None = None) -> str:
    """The least any offline run pays, against what the ratio target allows (1.5x the bare SQL): its libraries
    imported once, then spread perfectly over every core its SQL, the built-in generator's answers (the candidate's
    own work, which no grader can skip) and the guard's reading of every statement (which no statement skips):
    nothing else, no check, comparison, diagnosis or report."""
    cores = cores or os.cpu_count() or 1
    spread = (bare.sql + bare.generator + bare.guard) / cores
    least, allowed = imports_s + spread, TARGET_RATIO * bare.sql
    verdict = "the target is within reach" if least <= allowed else "the target is unreachable"
    return (
        f"the least a run pays: its libraries imported ({imports_s:.2f} s past start-up), then over {cores} cores "
        f"its SQL ({bare.sql:.2f} s), the built-in generator's answers ({bare.generator:.2f} s) and the guard's "
        f"reading of every statement ({bare.guard:.2f} s): {imports_s:.2f} + {spread:.2f} = {least:.2f} s; "
        f"{TARGET_RATIO}x allows {allowed:.2f} s: {verdict}"
    )


def _imports_s() -> float:
    """Seconds a fresh process takes to import :data:`RUN_LIBRARIES`, past a bare interpreter's start-up (medians)."""

    def fresh(code: str) -> float:
        times = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], cwd=BACKEND, check=True)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    return max(0.0, fresh(f"import {', '.join(RUN_LIBRARIES)}") - fresh("pass"))


def _bare(report: Path, tmp: Path) -> Bare:
    done = subprocess.run(
        [sys.executable, "-c", _BARE, str(report), str(tmp)], cwd=BACKEND, capture_output=True, text=True, check=True
    )
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    return Bare(measured["bare"], measured["generator"], measured["guard"])


def _with_reference_sql(report: Path) -> None:
    """The report holds each failing question's reference; the bare cost needs every one's."""
    from eval.sql.corpus.questions import load_corpus

    refs = {q.id: q.sql for q in load_corpus().questions}
    data = json.loads(report.read_text())
    for q in data["questions"]:
        q["reference_sql"] = refs.get(q["id"].split("~")[0]) if q["expect"] == "answer" else None
    report.write_text(json.dumps(data))


def generated_corpus(n: int, folder: Path) -> Path:
    """N questions over the built-in fixtures: the built-in files' questions, repeated under new ids."""
    files = sorted(CORPUS_DIR.glob("*.yaml"))
    docs = [yaml.safe_load(f.read_text()) for f in files]
    pool = [(doc, q) for doc in docs for q in doc["questions"]]
    out: dict[str, list[dict[str, object]]] = {}
    for i in range(n):
        doc, q = pool[i % len(pool)]
        fixture = q.get("fixture") or doc.get("fixture")
        out.setdefault(str(fixture), []).append({**q, "id": f"{q['id']}~{i // len(pool)}", "fixture": fixture})
    folder.mkdir(parents=True, exist_ok=True)
    for fixture, questions in out.items():
        (folder / f"gen_{fixture}.yaml").write_text(yaml.safe_dump({"version": 1, "questions": questions}))
    return folder


def _files(folder: Path) -> list[str]:
    return ["--corpus", *map(str, sorted(folder.glob("*.yaml")))]


def _line(label: str, values: list[float], unit: str, target: str, met: bool) -> str:
    return (
        f"   {label}: {statistics.median(values):6.2f}{unit} (range {min(values):.2f}-{max(values):.2f}); "
        f"target {target}: {'met' if met else 'MISSED'}"
    )


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-offline-") as name:
        tmp = Path(name)
        report = tmp / "r.json"
        _run(["--json", str(report)], tmp)  # warm: fixture cache, bytecode
        _with_reference_sql(report)
        ratios, walls, bares = [], [], []
        for _ in range(REPEATS):
            wall, _peak = _run([], tmp)
            bare = _bare(report, tmp / "bare")
            ratios.append(wall / bare.sql)
            walls.append(wall)
            bares.append(bare)
        print(
            f"   built-in corpus ({len(json.loads(report.read_text())['questions'])} questions): run "
            f"{statistics.median(walls):.2f} s, bare SQL {statistics.median(b.sql for b in bares):.2f} s"
        )
        print(_line("run / bare cost of its SQL", ratios, "x", f"at most {TARGET_RATIO}x", max(ratios) <= TARGET_RATIO))
        least = Bare(*(statistics.median(getattr(b, f.name) for b in bares) for f in dataclasses.fields(Bare)))
        print("   " + least_line(least, _imports_s()))
        peaks: dict[int, float] = {}
        for n, target_s in SCALES:
            corpus = generated_corpus(n, tmp / f"gen{n}")
            _run(_files(corpus), tmp)  # warm
            runs = [_run(_files(corpus), tmp) for _ in range(REPEATS if n <= 1_000 else max(1, REPEATS - 1))]
            peaks[n] = max(p for _, p in runs) / 1024
            print(
                _line(
                    f"{n:,} questions",
                    [w for w, _ in runs],
                    " s",
                    f"under {target_s:g} s",
                    max(w for w, _ in runs) < target_s,
                )
            )
            print(f"   {n:,} questions: peak memory {peaks[n]:.0f} MiB")
        small, big = peaks[SCALES[0][0]], peaks[SCALES[-1][0]]
        flat = "met" if big <= 2 * small else "MISSED"
        print(f"   memory, {SCALES[-1][0]:,} / {SCALES[0][0]:,} questions: {big / small:.2f}x; at most 2x: {flat}")
