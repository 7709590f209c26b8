"""``make bench ARGS=peers`` runs the peers' own code and the user's command as it times them (issue 40 point 1): each
process as the bench launches it, on a small real SQLite table with a text date column, on every workload. Nothing
is timed; the verdicts and the judging of the targets are checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_peers
from benchmarks._peer_files import WORKLOADS, benchmark_files, build

BACKEND = Path(__file__).resolve().parents[2]
HAVE_PEERS = (bench_peers.PEERS / "test-suite-sql-eval" / "exec_eval.py").is_file()
needs_peers = pytest.mark.skipif(not HAVE_PEERS, reason=f"the peers' code is not at {bench_peers.PEERS}")


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> bench_peers._Bench:
    tmp = tmp_path_factory.mktemp("peers")
    return bench_peers._Bench(tmp, build(tmp / "db", 1000))  # "one value differs" changes id 777


def files(bench: bench_peers._Bench, w: bench_peers.Workload) -> Path:
    folder = benchmark_files(bench.tmp / f"w{WORKLOADS.index(w)}", w)
    if not (folder / "import").exists():
        bench.measure("import", w, folder, folder, 0)
    return folder


@needs_peers
@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
@pytest.mark.parametrize("process", ["user", "testsuite", "defog", "hashed", "bounded", "harness"])
def test_every_grader_gives_the_workloads_verdict(bench, workload, process):
    """The user's command, both peers' own code and the bounds, as launched; defog's set semantics are the one
    difference the bench names (it drops duplicate rows)."""
    folder = files(bench, workload)
    measured = bench.measure(process, workload, folder, folder, 0)
    expected = "match" if workload.right else "mismatch"
    if process == "defog" and workload.defog_differs:
        expected = "match"
    assert measured.verdict == expected
    assert measured.seconds > 0 and measured.cpu > 0 and measured.peak_mib > 0


@needs_peers
def test_the_imports_process_imports_what_the_users_command_imports(bench):
    folder = files(bench, WORKLOADS[0])
    modules = bench.user_modules(folder)
    names = set(json.loads(modules.read_text()))
    assert {"sqlalchemy", "sqlglot", "eval.sql.pipeline", "services.readonly.execute"} <= names
    measured = bench.measure("imports", WORKLOADS[0], folder, modules, 0)
    assert measured.verdict == "imported" and measured.peak_mib > 0


@needs_peers
def test_a_peer_that_fails_stops_the_bench_with_its_error(bench):
    broken = bench_peers.Workload("broken", "SELECT nope FROM t", "SELECT 1", False, False)
    with pytest.raises(RuntimeError, match="no such column: nope"):
        bench.measure("defog", broken, bench.tmp, bench.tmp, 0)


def rounds(**seconds: float) -> list[bench_peers.Round]:
    """Two identical rounds of the given seconds (1.0 for any process not named), 100 MiB each."""
    return [
        {
            p: bench_peers.Measured(seconds.get(p, 1.0), seconds.get(p, 1.0), 100.0, "match")
            for p in bench_peers.PROCESSES
        }
        for _ in range(2)
    ]


def test_the_targets_are_judged_at_the_sizes_they_hold_at(capsys):
    right = WORKLOADS[0]
    # Past imports: (2.0 - 0.5) / (1.1 - 0.1) = 1.5, at most 1.5x: met. Ahead of both peers: 2.0 < 3.0 and 2.5.
    fine = rounds(user=2.0, imports=0.5, hashed=1.1, startup=0.1, testsuite=3.0, defog=2.5)
    judged = dict(bench_peers.report(100_000, right, fine))
    assert judged == {
        "100,000 rows, equal, shuffled: past imports within 1.5x the bound": True,
        "100,000 rows, equal, shuffled: whole process ahead of both peers": True,
    }
    # The bound sorting in memory, (1.0 - 0.1) = 0.9 s: printed beside the target's bound, never judged.
    assert "(bounded past start-up) 0.90 s, user / it 1.67 [1.67-1.67] (a breakdown" in capsys.readouterr().out
    slow = rounds(user=2.6, imports=0.5, hashed=1.1, startup=0.1, testsuite=3.0, defog=2.5)
    assert not any(dict(bench_peers.report(1_000_000, right, slow)).values())  # 2.1x; behind defog; memory tied
    assert bench_peers.report(10_000, right, slow) == []  # at 10k only the wrong/right pair is held
    assert "(for the record at this size)" in capsys.readouterr().out


def test_a_wrong_answer_is_held_to_its_right_twin_of_the_same_round():
    paired = [{**r, "twin": bench_peers.Measured(1.0, 1.0, 100.0, "match")} for r in rounds(user=1.25)]
    judged = dict(bench_peers.report(10_000, WORKLOADS[1], paired))
    assert judged == {
        "10,000 rows, one value differs: wrong / right (equal, shuffled) 1.25 [1.25-1.25] at most 1.2x": False
    }


def test_rounds_are_more_where_a_process_is_short_unless_asked(monkeypatch):
    monkeypatch.setattr(bench_peers, "REPEATS", None)
    assert [bench_peers.rounds_at(n) for n in (10_000, 100_000, 1_000_000)] == [5, 5, 3]
    monkeypatch.setattr(bench_peers, "REPEATS", 2)  # BENCH_PEERS_REPEATS=2
    assert [bench_peers.rounds_at(n) for n in (10_000, 1_000_000)] == [2, 2]


def test_the_peers_runner_names_an_unknown_peer():
    done = subprocess.run(
        [sys.executable, str(BACKEND / "benchmarks" / "_real_peers.py"), "nobody", *["x"] * 7],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "unknown peer 'nobody'" in done.stderr
