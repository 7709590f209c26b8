"""The CLI's exit-code taxonomy, end to end through ``main``."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from eval.run import main

from ..conftest import recording_json

BACKEND = Path(__file__).resolve().parents[3]


def run(*args):
    return main(list(args))


def test_echo_runs_and_warns(golden_dir, tmp_path, capsys):
    assert run("--golden-dir", str(golden_dir), "--recorded-dir", str(tmp_path / "none")) == 0
    captured = capsys.readouterr()
    assert "UNMEASURED" in captured.out and "UNMEASURED" in captured.err


def test_require_real_candidate_without_recordings_exits_2(golden_dir, tmp_path, capsys):
    assert (
        run("--golden-dir", str(golden_dir), "--recorded-dir", str(tmp_path / "none"), "--require-real-candidate") == 2
    )
    assert "--require-real-candidate" in capsys.readouterr().err


def test_require_real_candidate_with_recordings_exits_0(golden_dir, recorded_dir):
    assert (
        run(
            "--golden-dir",
            str(golden_dir),
            "--recorded-dir",
            str(recorded_dir),
            "--require-real-candidate",
            "--fail-on-regression",
        )
        == 0
    )


def test_changed_tool_sequence_fails_gated_run_with_1(golden_dir, recorded_dir):
    (recorded_dir / "b-2.json").write_text(json.dumps(recording_json(tools=("answer", "search"))))
    assert run("--golden-dir", str(golden_dir), "--recorded-dir", str(recorded_dir)) == 0
    assert run("--golden-dir", str(golden_dir), "--recorded-dir", str(recorded_dir), "--fail-on-regression") == 1


def test_gated_run_with_an_unmeasured_golden_exits_2(golden_dir, recorded_dir, capsys):
    (recorded_dir / "c-3.json").unlink()
    assert run("--golden-dir", str(golden_dir), "--recorded-dir", str(recorded_dir)) == 0
    assert run("--golden-dir", str(golden_dir), "--recorded-dir", str(recorded_dir), "--fail-on-regression") == 2
    assert "unmeasured" in capsys.readouterr().err


def test_regression_outranks_unmeasured_in_gated_mode(golden_dir, recorded_dir):
    (recorded_dir / "c-3.json").unlink()
    (recorded_dir / "b-2.json").write_text(json.dumps(recording_json(status="failed")))
    assert run("--golden-dir", str(golden_dir), "--recorded-dir", str(recorded_dir), "--fail-on-regression") == 1


def test_nothing_measurable_exits_2(golden_dir, recorded_dir):
    for p in recorded_dir.glob("*.json"):
        p.write_text("{broken")
    assert run("--golden-dir", str(golden_dir), "--recorded-dir", str(recorded_dir), "--candidate", "recorded") == 2


def test_malformed_golden_exits_2_naming_the_file(tmp_path, capsys):
    (tmp_path / "x.json").write_text("[]")
    assert run("--golden-dir", str(tmp_path)) == 2
    assert "x.json" in capsys.readouterr().err


def test_json_outside_working_directory_exits_2_before_running(golden_dir, tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    assert run("--golden-dir", str(golden_dir), "--json", "../out.json") == 2
    captured = capsys.readouterr()
    assert "outside" in captured.err and captured.out == ""
    assert not (tmp_path / "out.json").exists()


def test_json_written_inside_working_directory(golden_dir, recorded_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    assert (
        run(
            "--golden-dir",
            str(golden_dir),
            "--recorded-dir",
            str(recorded_dir),
            "--json",
            "r.json",
            "--markdown",
            "r.md",
        )
        == 0
    )
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["suite"] == "trajectory" and data["summary"]["total"] == 3
    assert (tmp_path / "r.md").read_text().startswith("# Trajectory eval report")


@pytest.mark.parametrize(
    "args",
    [
        ["--candidate", "nope"],
        ["--epsilon", "1.5"],
        ["--answers", "x.jsonl"],
        ["--suite", "nope"],
        ["--epsilon", "abc"],
    ],
)
def test_bad_input_exits_2(args, golden_dir):
    assert run("--golden-dir", str(golden_dir), *args) == 2


def test_help_exits_0(capsys):
    assert run("--help") == 0
    assert "Exit codes" in capsys.readouterr().out


def test_crash_exits_2_not_1(golden_dir, monkeypatch, capsys):
    import eval.cli.trajectory as cli

    def boom(*a, **k):
        raise RuntimeError("bug")

    monkeypatch.setattr(cli, "build_trajectory_report", boom)
    assert run("--golden-dir", str(golden_dir)) == 2
    assert "internal error" in capsys.readouterr().err


def test_module_entry_point_returns_exit_code(golden_dir, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval.run",
            "--golden-dir",
            str(golden_dir),
            "--recorded-dir",
            str(tmp_path / "none"),
            "--require-real-candidate",
        ],
        cwd=BACKEND,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr


def test_the_echo_is_never_an_improvement_every_trajectory_is_unmeasured(golden_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    empty = tmp_path / "no-recordings"
    empty.mkdir()
    assert main(["--golden-dir", str(golden_dir), "--recorded-dir", str(empty), "--json", "echo.json"]) == 0
    data = json.loads((tmp_path / "echo.json").read_text())
    assert data["summary"]["improvement"] == 0 and data["summary"]["unmeasured"] == data["summary"]["total"] == 3
    assert all(t["reasons"][0].startswith("echo:") for t in data["trajectories"])
    # gated, it cannot vouch for anything: exit 2
    assert main(["--golden-dir", str(golden_dir), "--recorded-dir", str(empty), "--fail-on-regression"]) == 2
