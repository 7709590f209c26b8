"""Forked processes (eval.core.forked): results as one process gives them, and no child outliving a signal.

The signal tests start a real ``python -m eval.run`` in a session of its own over a real SQLite file, with
``EVAL_PROCESSES=2`` so even a small corpus forks; Ctrl-C goes to the whole process group, as a terminal
sends it, SIGTERM to the parent alone, as CI does. The children are read from ``/proc``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from eval.core import forked
from eval.core.errors import HarnessError
from tests.bounds import PATIENCE_S

BACKEND = Path(__file__).resolve().parents[3]
SLOW = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000000) SELECT COUNT(*) FROM c"
pytestmark = pytest.mark.skipif(not forked.can_fork() or not Path("/proc").exists(), reason="needs fork and /proc")


def _square_with_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def test_a_forked_map_gives_what_one_process_gives_in_order_from_other_processes():
    items = list(range(50))
    got = forked.forked_map(_square_with_pid, items, 2, chunk=3)
    assert [v for v, _ in got] == [x * x for x in items]
    assert os.getpid() not in {pid for _, pid in got}  # it did fork (the control: one process below)
    alone = forked.forked_map(_square_with_pid, items, 1)
    assert {pid for _, pid in alone} == {os.getpid()}
    seen: list[int] = []
    forked.forked_map(_square_with_pid, items, 2, chunk=7, on_result=lambda i, _: seen.append(i))
    assert seen == items


def test_items_with_one_key_are_computed_in_one_child_and_come_back_in_order():
    """Twelve items of three keys, spread over three chunks: grouped, each key's items share one child."""
    items = [i % 3 for i in range(12)]  # 0 1 2 0 1 2 ...: contiguous chunks would give every child every key
    got = forked.forked_map(_square_with_pid, items, 2, chunk=4, key=lambda x: x)
    assert [v for v, _ in got] == [x * x for x in items]
    children = {x: {pid for (_, pid), y in zip(got, items) if y == x} for x in set(items)}
    assert all(len(pids) == 1 for pids in children.values()), children
    plain = forked.forked_map(_square_with_pid, items, 2, chunk=4)  # the control: keys spread over chunks
    assert [v for v, _ in plain] == [v for v, _ in got]
    with pytest.raises(ValueError, match="on_result"):
        forked.forked_map(_square_with_pid, items, 2, key=lambda x: x, on_result=lambda i, r: None)


@pytest.mark.parametrize(
    ("keys", "order"),
    [([], []), (["a"], [0]), (["b", "a", "b", "c", "a"], [0, 2, 1, 4, 3]), ([1, 1, 1], [0, 1, 2])],
)
def test_grouped_keeps_first_occurrence_order_and_inverse_undoes_it(keys, order):
    assert forked.grouped(keys) == order
    assert [order[at] for at in forked.inverse(order)] == list(range(len(keys)))


def _fails_at_7(x: int) -> int:
    if x == 7:
        raise ValueError("question 7 broke")
    return x


def test_a_childs_exception_is_raised_here_and_no_child_is_left():
    before = _children(os.getpid())  # other tests' children (a DuckDB worker, a server) are not this map's
    with pytest.raises(ValueError, match="question 7 broke"):
        forked.forked_map(_fails_at_7, list(range(20)), 2)
    assert {p for p in _children(os.getpid()) - before if _alive(p)} == set()


@pytest.mark.parametrize(
    ("raw", "items", "want"),
    [("", 500, forked.cpus()), ("", 31, 1), ("1", 500, 1), ("2", 500, 2), ("3", 2, 2), ("auto", 500, forked.cpus())],
    ids=["default: one per CPU", "under the threshold", "one", "two", "no more than items", "auto"],
)
def test_the_process_count_from_the_environment_and_the_threshold(monkeypatch, raw, items, want):
    monkeypatch.setenv(forked.PROCESSES_ENV, raw)
    assert forked.processes(items) == want
    assert forked.processes(items, default_auto=False) == (1 if raw == "" else want)


@pytest.mark.parametrize("raw", ["0", "two"])
def test_a_bad_process_count_names_the_variable(monkeypatch, raw):
    monkeypatch.setenv(forked.PROCESSES_ENV, raw)
    with pytest.raises(HarnessError, match="EVAL_PROCESSES"):
        forked.processes(500)


def _children(pid: int) -> set[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return set()
    return {int(p) for p in text.split()}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'books.db'}")
    with engine.begin() as c:
        c.exec_driver_sql("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        c.exec_driver_sql("INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815), (3, 'Ulysses', 1922)")
    engine.dispose()
    return tmp_path


def _start(work: Path, questions: list[dict], answers: dict[str, str]) -> subprocess.Popen[str]:
    (work / "books.yaml").write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    (work / "a.jsonl").write_text("".join(json.dumps({"id": k, "sql": v}) + "\n" for k, v in answers.items()))
    env = {**os.environ, "PYTHONPATH": str(BACKEND), forked.PROCESSES_ENV: "2", "TMPDIR": str(work)}
    for name in ("EVAL_OUTPUT_DIR", "EVAL_CALLER_DIR"):
        env.pop(name, None)
    args = ["--suite", "sql", "--candidate", "recorded", "--answers", "a.jsonl", "--model", "m", "--corpus",
            "books.yaml", "--db-url", f"sqlite:///{work / 'books.db'}", "--statement-timeout", "2",
            "--json", "r.json"]  # fmt: skip
    return subprocess.Popen(
        [sys.executable, "-m", "eval.run", *args],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: Ctrl-C below goes to it and its children only
    )


def _send(proc: subprocess.Popen[str], how: str) -> None:
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGTERM)


def _question(i: int, sql: str = "SELECT COUNT(*) FROM books") -> dict:
    return {"id": f"b{i}", "question": f"How many books? ({i})", "stratum": "count", "shape": "scalar", "sql": sql}


def _wait(condition, what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("how", ["sigterm", "ctrl-c"])
def test_a_signal_during_the_forked_self_check_ends_the_run_and_every_child(work, how):
    questions = [*(_question(i) for i in range(6)), _question(6, SLOW)]
    proc = _start(work, questions, {f"b{i}": "SELECT COUNT(*) FROM books" for i in range(7)})
    seen: set[int] = set()
    _wait(lambda: seen.update(_children(proc.pid)) or len(seen) >= 2, "two children forked for the self-check")
    time.sleep(0.3)  # the slow reference runs until its 2 s limit in one of them
    _send(proc, how)
    err = proc.communicate(timeout=PATIENCE_S)[1]  # a guard against a hang; the partial report shows the stop
    assert proc.returncode == 2, err
    _all_gone(seen)
    data = json.loads((work / "r.json").read_text())
    assert data["partial"] is True and "before any question was asked" in data["warnings"][0]
    assert {q["verdict"] for q in data["questions"]} == {"unmeasured"}
    assert not [p for p in work.iterdir() if p.name.startswith("sql-eval-")], "the run's folder was left behind"


@pytest.mark.parametrize("how", ["sigterm", "ctrl-c"])
def test_a_signal_while_forked_children_ask_keeps_what_was_graded_and_ends_every_child(work, how):
    questions = [_question(i) for i in range(8)]
    proc = _start(work, questions, {f"b{i}": SLOW for i in range(8)})  # each answer runs to its 2 s limit
    seen: set[int] = set()
    lines: list[str] = []
    assert proc.stderr is not None

    def graded_one() -> bool:
        seen.update(_children(proc.pid))
        line = proc.stderr.readline()  # type: ignore[union-attr]
        lines.append(line)
        return line.startswith("[sql] ")

    _wait(graded_one, "a first answer graded")
    seen.update(_children(proc.pid))
    _send(proc, how)
    err = proc.communicate(timeout=PATIENCE_S)[1]  # a guard against a hang; the partial report shows the stop
    assert proc.returncode == 2, "".join(lines) + err
    _all_gone(seen)
    data = json.loads((work / "r.json").read_text())
    assert data["partial"] is True and "while the questions were asked" in data["warnings"][0]
    verdicts = [q["verdict"] for q in data["questions"]]
    assert "error" in verdicts  # a graded answer (its SQL ran past the limit) is kept
    assert "unmeasured" in verdicts  # and the rest is not graded


def _all_gone(seen: set[int]) -> None:
    assert seen, "the run never forked: the test would prove nothing"
    deadline = time.monotonic() + PATIENCE_S
    while any(_alive(p) for p in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in seen if _alive(p)], "a forked child outlived the run"


def test_offline_answers_asked_in_forked_children_are_the_ones_one_process_gives(monkeypatch, tmp_path):
    """The built-in generator over the built-in corpus: asked in turn in two forked children (no event loop,
    no thread hop) or in threads in one process, every outcome is the same but for its clock."""
    from eval.sql.corpus.questions import load_corpus
    from eval.sql.fixtures.seeded import FIXTURES
    from eval.sql.grading import spread
    from eval.sql.pipeline import RunSpec, run_suite
    from services.embedded import EmbeddedGenerator

    real = spread.ask_in_turn
    asked = tmp_path / "asked.txt"  # written by the children: a line per chunk, its process and its size

    def counted(samples, candidate, grader):  # type: ignore[no-untyped-def]
        with asked.open("a") as out:
            out.write(f"{os.getpid()} {len(samples)}\n")
        return real(samples, candidate, grader)

    def chunks() -> list[tuple[int, int]]:
        lines = asked.read_text().split("\n") if asked.exists() else []
        return [(int(pid), int(n)) for pid, n in (line.split() for line in lines if line)]

    monkeypatch.setattr(spread, "ask_in_turn", counted)

    def run(processes: str) -> list[tuple[object, ...]]:
        monkeypatch.setenv(forked.PROCESSES_ENV, processes)
        spec = RunSpec(
            candidate="embedded", generator=EmbeddedGenerator(), corpus=load_corpus(), fixtures=FIXTURES, builtin=True
        )
        return [
            (o.question_id, o.verdict, o.reason, o.detail, o.sql, o.rotations_matched, o.excerpt, o.diagnosis)
            for o in run_suite(spec).outcomes
        ]

    one = run("1")
    assert chunks() == []
    two = run("2")
    # the control: every sample was asked in a child, and two children asked
    assert sum(n for _, n in chunks()) == len(load_corpus().questions)
    assert len({pid for pid, _ in chunks()} - {os.getpid()}) == 2
    assert two == one
    assert 40 < sum(v.value == "pass" for _, v, *_ in one) < len(one)
