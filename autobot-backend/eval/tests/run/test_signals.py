"""Signals end a run cleanly: real SIGTERM and SIGINT sent to a real ``python -m eval.run`` process.

Each run gets a temporary folder of its own (``TMPDIR``), so "nothing left behind" is that folder being
empty afterwards: the run's fixture folder, the throwaway PostgreSQL server's data folder. The model and
the judge are real HTTP servers on 127.0.0.1 that answer slowly or not at all, so a signal lands in the
phase a test means.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from tests.bounds import PATIENCE_S
from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply
from tests.pg_server import REQUIRE_ENV, find_bindir

from ..judge_fakes import ScriptedJudge

BACKEND = Path(__file__).resolve().parents[3]
QUESTIONS = [
    {"id": f"b{i}", "question": f"How many books are there? ({i})", "stratum": "count", "shape": "scalar",
     "sql": "SELECT COUNT(*) FROM books"}
    for i in range(6)
]  # fmt: skip
SLOW_REFERENCE = (  # about 1 s per million rows in SQLite here: far past the 2 s statement limit below
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000000) SELECT COUNT(*) FROM c"
)
"""How long a run may take to stop after the signal: the statement limit below (2 s) with room to spare."""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'books.db'}")
    with engine.begin() as c:
        c.exec_driver_sql("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        c.exec_driver_sql("INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815), (3, 'Ulysses', 1922)")
    engine.dispose()
    (tmp_path / "books.yaml").write_text(yaml.safe_dump({"version": 1, "questions": QUESTIONS}, sort_keys=False))
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"id": q["id"], "sql": q["sql"]}) + "\n" for q in QUESTIONS))
    return tmp_path


@pytest.fixture
def run_tmp() -> Iterator[Path]:
    """The run's own TMPDIR, outside pytest's private folder: the PostgreSQL server's user must get through it."""
    path = Path(tempfile.mkdtemp(prefix="eval-signals-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


class Run:
    """``python -m eval.run --suite sql ...`` in ``work``, its stderr read as it comes."""

    def __init__(self, work: Path, tmp: Path, args: list[str], env: dict[str, str] | None = None) -> None:
        self.work = work
        full_env = {**os.environ, "PYTHONPATH": str(BACKEND), "TMPDIR": str(tmp), **(env or {})}
        for name in ("EVAL_OUTPUT_DIR", "EVAL_CALLER_DIR", "NL_SQL_LLM_API_KEY", "NL_SQL_JUDGE_API_KEY"):
            full_env.pop(name, None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "eval.run", *args],
            cwd=work,
            env=full_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    def signal(self, *signals: signal.Signals, gap_s: float = 0.05) -> None:
        """Send ``signals`` (``gap_s`` apart)."""
        for i, s in enumerate(signals):
            if i:
                time.sleep(gap_s)
            self.proc.send_signal(s)

    def finish(self) -> tuple[int, str]:
        """Exit code and stderr. How soon it stopped is not read: a busy machine makes any stop slow; that it
        stopped, where and leaving what, the report and the folders show (issue 37)."""
        err = self.proc.communicate(timeout=PATIENCE_S)[1]  # a guard against a hang, not a measure of speed
        return self.proc.returncode, err


def wait_for(condition: Callable[[], object], what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


def partial_report(work: Path, name: str = "r") -> dict:
    data = json.loads((work / f"{name}.json").read_text())
    assert data["partial"] is True
    assert data["warnings"][0].startswith("PARTIAL: the run was stopped by")
    assert "PARTIAL: the run was stopped by" in (work / f"{name}.md").read_text()
    return data


def nothing_recorded(work: Path) -> None:
    assert not (work / "baselines").exists(), "a partial run recorded a baseline"
    assert not (work / "acc.md").exists() and not (work / "acc.jsonl").exists(), "a partial run was recorded"


RECORDS = ["--record-baseline", "--baseline-dir", "baselines", "--record-accuracy", "acc.md"]
REPORTS = ["--json", "r.json", "--markdown", "r.md"]


def slow_model(delay_s: float) -> Callable[[ReceivedRequest], Reply]:
    return lambda request: chat_reply("```sql\nSELECT COUNT(*) FROM books\n```", delay_s=delay_s)


def llm_run(work: Path, tmp: Path, server: FakeHTTPServer, *more: str) -> Run:
    env = {"NL_SQL_LLM_BASE_URL": server.url + "/v1", "NL_SQL_LLM_MODEL": "fake-model", "NL_SQL_LLM_TIMEOUT_S": "30"}
    db = f"sqlite:///{work / 'books.db'}"
    args = ["--suite", "sql", "--candidate", "llm", "--corpus", "books.yaml", "--db-url", db, "--concurrency", "1"]
    return Run(work, tmp, [*args, *REPORTS, *RECORDS, *more], env)


@pytest.mark.parametrize(
    "signals",
    [(signal.SIGTERM,), (signal.SIGINT, signal.SIGINT), (signal.SIGTERM, signal.SIGINT, signal.SIGTERM)],
    ids=["sigterm", "ctrl-c-twice", "three-mixed"],
)
def test_a_signal_while_asking_writes_the_report_so_far_records_nothing_and_leaves_nothing(work, run_tmp, signals):
    with FakeHTTPServer(handler=slow_model(1.0)) as server:
        run = llm_run(work, run_tmp, server)
        # The second ask goes out as the first answer arrives, while that answer is still being graded, and a
        # signal cancels a grading in flight; the third ask comes a model's delay (1 s) after the first grading began.
        wait_for(lambda: len(server.requests) >= 3, "the model was asked three times")
        run.signal(*signals)
        rc, err = run.finish()
    assert rc == 2, err
    data = partial_report(work)
    assert "while the questions were asked" in data["warnings"][0]
    verdicts = [q["verdict"] for q in data["questions"]]
    assert verdicts[0] != "unmeasured" and verdicts[-1] == "unmeasured"  # the first answered, the last never asked
    assert "the report so far is written (marked partial); nothing was recorded" in err
    nothing_recorded(work)
    assert not list(run_tmp.iterdir()), "the run left files in its temporary folder"


def test_a_signal_during_the_self_check_stops_within_the_statement_limit(work, run_tmp):
    corpus = [*QUESTIONS, {"id": "slow", "question": "Count to fifty million.", "stratum": "count",
                           "shape": "scalar", "sql": SLOW_REFERENCE}]  # fmt: skip
    (work / "books.yaml").write_text(yaml.safe_dump({"version": 1, "questions": corpus}, sort_keys=False))
    db = f"sqlite:///{work / 'books.db'}"
    run = Run(
        work,
        run_tmp,
        ["--suite", "sql", "--candidate", "recorded", "--answers", "a.jsonl", "--model", "m",
         "--corpus", "books.yaml", "--db-url", db, "--statement-timeout", "2", *REPORTS, *RECORDS],
    )  # fmt: skip
    wait_for(lambda: any(p.name.startswith("sql-eval-") for p in run_tmp.iterdir()), "the run's folder was made")
    time.sleep(0.8)  # into the self-check, whose slow reference runs until its 2 s limit
    run.signal(signal.SIGTERM)
    rc, err = run.finish()
    assert rc == 2, err
    data = partial_report(work)
    assert "before any question was asked" in data["warnings"][0]
    assert {q["verdict"] for q in data["questions"]} == {"unmeasured"}
    assert all("stopped by SIGTERM before any question was asked" in q["detail"] for q in data["questions"])
    assert data["oracle_defects"] == []  # a self-check cut short is no verdict on the oracle
    nothing_recorded(work)
    assert not list(run_tmp.iterdir())


def test_a_run_cut_short_gives_no_exact_match_even_to_the_answers_its_children_graded(work, run_tmp):
    """A recorded run spread over two processes gives each answer its EM in the child that grades it; a signal
    while the last answer runs leaves a partial report with no EM at all, as a run cut short always had. The
    control: the same run, not stopped, gives every answer its EM."""
    many = [dict(q, id=f"e{i}", question=f"How many books are there? (copy {i})") for i, q in
            enumerate(QUESTIONS * 7)][:40]  # fmt: skip
    (work / "books.yaml").write_text(
        yaml.safe_dump({"version": 1, "exact_match": "official", "questions": many}, sort_keys=False)
    )
    answers = [{"id": q["id"], "sql": q["sql"]} for q in many]
    db = f"sqlite:///{work / 'books.db'}"
    args = ["--suite", "sql", "--candidate", "recorded", "--answers", "a.jsonl", "--model", "m", "--corpus",
            "books.yaml", "--db-url", db, "--statement-timeout", "120", "--json", "r.json"]  # fmt: skip
    two = {"EVAL_PROCESSES": "2"}

    def write(lines: list[dict]) -> None:
        (work / "a.jsonl").write_text("".join(json.dumps(a) + "\n" for a in lines))

    write(answers)
    rc, err = Run(work, run_tmp, args, two).finish()
    assert rc == 0, err
    whole = json.loads((work / "r.json").read_text())
    assert all(q["verdict"] == "pass" and q["exact"]["match"] is True for q in whole["questions"])

    write([*answers[:-1], {"id": many[-1]["id"], "sql": SLOW_REFERENCE}])  # the last chunk's answer runs long
    run = Run(work, run_tmp, args, two)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(run.proc.stderr.readline, "")), daemon=True)
    reader.start()
    wait_for(lambda: any("[sql] 36/40" in line for line in lines), "nine tenths of the answers were graded")
    run.signal(signal.SIGINT)
    rc = run.proc.wait(timeout=PATIENCE_S)  # a guard against a hang, not a measure of speed
    reader.join(timeout=PATIENCE_S)
    run.proc.stderr.close()
    assert rc == 2, "".join(lines)
    data = json.loads((work / "r.json").read_text())
    assert data["partial"] is True
    graded = [q for q in data["questions"] if q["verdict"] == "pass"]
    assert len(graded) >= 36  # the children graded these, and gave them EM there
    assert not [q["id"] for q in data["questions"] if "exact" in q]


def test_a_signal_while_the_judge_judges_makes_the_run_partial_and_records_nothing(work, run_tmp):
    judge = ScriptedJudge(default=Reply(hang=True))  # the judge never answers: the run waits on it
    with FakeHTTPServer(handler=judge) as server:
        env = {"NL_SQL_JUDGE_BASE_URL": server.url + "/v1", "NL_SQL_JUDGE_MODEL": "judge-model"}
        db = f"sqlite:///{work / 'books.db'}"
        run = Run(
            work,
            run_tmp,
            ["--suite", "sql", "--candidate", "recorded", "--answers", "a.jsonl", "--model", "m",
             "--corpus", "books.yaml", "--db-url", db, "--judge", *REPORTS, *RECORDS],
            env,
        )  # fmt: skip
        wait_for(lambda: server.requests, "the judge was asked")
        run.signal(signal.SIGINT, signal.SIGINT)
        rc, err = run.finish()
    assert rc == 2, err
    data = partial_report(work)
    assert "while the judge judged the answers" in data["warnings"][0]
    assert {q["verdict"] for q in data["questions"]} == {"pass"}  # every execution verdict is there
    assert data["judge"]["summary"]["scored"] == 0
    nothing_recorded(work)
    assert not list(run_tmp.iterdir())


def test_the_turns_suite_stopped_by_sigterm_writes_its_partial_report(work, run_tmp):
    turns = [
        {
            "turn_id": f"t{i}",
            "time": "2026-12-01T10:00:00Z",
            "question": f"How many books? ({i})",
            "trajectory": [],
            "answer": "3 books",
        }
        for i in range(4)
    ]
    (work / "turns.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    with FakeHTTPServer(handler=ScriptedJudge(default=Reply(hang=True))) as server:
        env = {"NL_SQL_JUDGE_BASE_URL": server.url + "/v1", "NL_SQL_JUDGE_MODEL": "judge-model"}
        run = Run(work, run_tmp, ["--suite", "turns", "--turns", "turns.jsonl", *REPORTS], env)
        wait_for(lambda: server.requests, "the judge was asked")
        run.signal(signal.SIGTERM)
    rc, err = run.finish()
    assert rc == 2, err
    data = json.loads((work / "r.json").read_text())
    assert data["partial"] is True and data["warnings"][0].startswith("PARTIAL: the run was stopped by SIGTERM")
    assert "interrupted by SIGTERM: the report so far is written (marked partial)" in err


def _require_postgres() -> None:
    if find_bindir() is None:
        if os.environ.get(REQUIRE_ENV, "").strip() == "1":
            pytest.fail(f"PostgreSQL server binaries not found, and {REQUIRE_ENV}=1", pytrace=False)
        pytest.skip("PostgreSQL server binaries not found")


def _postgres_under(folder: Path) -> list[str]:
    """Command lines of running processes that mention ``folder`` (a server whose data folder is in it)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(folder) in cmdline and "postgres" in cmdline:
            found.append(cmdline)
    return found


@pytest.mark.parametrize("when", ["starting", "started"])
def test_a_signal_on_a_postgresql_run_stops_the_throwaway_server_and_removes_its_folder(work, run_tmp, when):
    _require_postgres()
    run = Run(work, run_tmp, ["--suite", "sql", "--candidate", "reference", "--engine", "postgresql", *REPORTS])

    def server_folder() -> Path | None:
        return next((p for p in run_tmp.iterdir() if p.name.startswith("eval-pg-")), None)

    if when == "starting":  # initdb is running: the start is finished first, then the server stopped
        wait_for(server_folder, "the server's folder was made")
    else:  # the server is up: the fixtures are being built on it
        wait_for(lambda: _postgres_under(run_tmp), "the server was started")
        time.sleep(0.5)
    # The second signal comes mid-cleanup: soon after the first, since on an idle machine the server's stop and
    # the removal of its folder take well under half a second.
    run.signal(signal.SIGTERM, signal.SIGINT, gap_s=0.05)
    rc, err = run.finish()
    assert rc == 2, err
    assert "already stopping" in err
    data = partial_report(work)
    assert data["run"]["engine"] == "postgresql"
    assert _postgres_under(run_tmp) == [], "the throwaway server is still running"
    assert not list(run_tmp.iterdir()), "the run left its fixture or server folder behind"
