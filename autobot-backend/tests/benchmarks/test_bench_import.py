"""What ``make bench ARGS=import`` prints and how it finds what it measures (issue 34 point 4). Nothing is timed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_import as bench


def test_a_ratio_is_taken_within_a_round_and_judged_by_its_median():
    line = bench.ratio_line("import, CPU", new=[1.0, 2.0, 0.9], old=[1.0, 1.0, 1.0], target=1.0)
    assert line == "import, CPU new/old 1.00 [0.90-2.00] (new 1.00 s, old 1.00 s); target at most 1x: met"
    assert bench.ratio_line("grading, CPU", [1.2], [1.0], 1.1).endswith("target at most 1.1x: NOT met")


def test_the_grading_command_is_the_one_the_import_printed_run_with_this_interpreter():
    printed = (
        "corpus: /x/spider.yaml (3 questions on 1 database(s))\n"
        "grade it with (from autobot-backend/):\n"
        "  python -m eval.run --suite sql --corpus '/x y/spider.yaml' --db-dir /d --candidate recorded --answers /a\n"
    )
    command = bench.grade_command(printed)
    assert command[0] == sys.executable and command[1:4] == ["-m", "eval.run", "--suite"]
    assert "/x y/spider.yaml" in command
    with pytest.raises(RuntimeError, match="printed no command"):
        bench.grade_command("error: no such file\n")


def test_without_git_history_it_says_so(tmp_path):
    with pytest.raises(bench.Missing, match="is not a git checkout"):
        bench.old_tree(bench.IMPORT_BEFORE, tmp_path / "out", repo=tmp_path)


def test_a_commit_the_clone_lacks_is_named(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    with pytest.raises(bench.Missing, match=f"commit {bench.GRADING_BEFORE[:7]} is not in this clone's history"):
        bench.old_tree(bench.GRADING_BEFORE, tmp_path / "out", repo=tmp_path / "repo")


def test_an_old_version_is_taken_from_git_whole(tmp_path):
    repo = Path(bench.BACKEND).parent
    if subprocess.run(["git", "-C", str(repo), "cat-file", "-e", f"{bench.IMPORT_BEFORE}^{{commit}}"]).returncode:
        pytest.skip("this clone has no history back to the import before the regression")
    tree = bench.old_tree(bench.IMPORT_BEFORE, tmp_path)
    assert (tree / "eval" / "cli" / "bench_import.py").is_file()
    assert not (tree / "eval" / "sql" / "bench" / "suspects.py").exists()  # the import before it counted none


def test_a_missing_shared_folder_is_said_and_nothing_measured(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("EVAL_SPIDER_DEV", str(tmp_path / "nowhere"))
    bench.run()
    assert "the shared Spider folder is missing, so nothing is measured" in capsys.readouterr().out
