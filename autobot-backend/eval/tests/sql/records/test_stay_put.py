"""Files stay where they were put (issue 23, point 3): a baseline folder, an accuracy record and its trend file
obey the confinement of ``--json``. A path outside where the user stands (absolute, ``..``, a symbolic link
out) is refused before anything runs, naming the flag, the path and what to do, exit 2, and nothing is
written there or anywhere else; the same paths inside, or under ``EVAL_OUTPUT_DIR``, are written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import trend as trend_cli
from eval.run import main
from eval.sql.records import docs as docs_mod
from eval.tests import small_run as sr


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    for var in ("EVAL_OUTPUT_DIR", "EVAL_CALLER_DIR"):
        monkeypatch.delenv(var, raising=False)
    sr.write_corpus(tmp_path / "work" / "mine.yaml")
    sr.write_answers(tmp_path / "work" / "a.jsonl", perfect=True)
    return tmp_path / "work"


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder beside the working one, outside it; a file there that must stay as it is."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "keep.txt").write_text("untouched\n")
    return outside


def sql(*args: str) -> int:
    return main(["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", "a.jsonl", *args])


def files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


# Each case: the flags, given the outside folder and the working one (which the case may prepare).
OUTSIDE = [
    ("baseline_dir_absolute", "--baseline-dir", lambda out, w: ["--record-baseline", "--baseline-dir", str(out)]),
    ("baseline_dir_dotdot", "--baseline-dir", lambda out, w: ["--record-baseline", "--baseline-dir", "../elsewhere"]),
    (
        "baseline_dir_symlink",
        "--baseline-dir",
        lambda out, w: ((w / "b").symlink_to(out), ["--record-baseline", "--baseline-dir", "b"])[1],
    ),
    ("record_absolute", "--record-accuracy", lambda out, w: ["--record-accuracy", str(out / "record.md")]),
    ("record_dotdot", "--record-accuracy", lambda out, w: ["--record-accuracy", "../elsewhere/record.md"]),
    (
        "record_symlinked_folder",
        "--record-accuracy",
        lambda out, w: ((w / "docs").symlink_to(out), ["--record-accuracy", "docs/record.md"])[1],
    ),
    (
        "record_symlinked_page",
        "--record-accuracy",
        lambda out, w: ((w / "record.md").symlink_to(out / "keep.txt"), ["--record-accuracy", "record.md"])[1],
    ),
    (
        "trend_file_symlinked",
        "--record-accuracy's trend file",
        lambda out, w: ((w / "record.jsonl").symlink_to(out / "keep.txt"), ["--record-accuracy", "record.md"])[1],
    ),
]


@pytest.mark.parametrize(("flag", "make"), [c[1:] for c in OUTSIDE], ids=[c[0] for c in OUTSIDE])
def test_a_record_path_leading_out_is_refused_and_nothing_is_written(work, elsewhere, capsys, flag, make):
    before = files(elsewhere)
    args = make(elsewhere, work)
    made = sorted(p.name for p in work.iterdir())
    assert sql(*args, "--json", "r.json") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: refusing to write {flag} ") and "Traceback" not in err
    assert "outside" in err and "EVAL_OUTPUT_DIR=DIR" in err, err
    assert files(elsewhere) == before, "nothing written outside"
    assert sorted(p.name for p in work.iterdir()) == made, "nothing run, so no report either"


def test_the_same_paths_inside_are_written(work):
    assert sql("--record-baseline", "--baseline-dir", "kept/baselines", "--record-accuracy", "kept/record.md") == 0
    assert [p.name for p in (work / "kept" / "baselines").iterdir()] == ["recorded--scripted.json"]
    assert "scripted" in (work / "kept" / "record.md").read_text()
    assert json.loads((work / "kept" / "record.jsonl").read_text())["model"] == "scripted"


def test_eval_output_dir_allows_another_folder(work, elsewhere, monkeypatch):
    monkeypatch.setenv("EVAL_OUTPUT_DIR", str(elsewhere))
    assert (
        sql("--record-baseline", "--baseline-dir", str(elsewhere / "b"), "--record-accuracy", "../elsewhere/r.md") == 0
    )
    assert (elsewhere / "b" / "recorded--scripted.json").is_file() and (elsewhere / "r.jsonl").is_file()


def test_a_baseline_folder_only_read_from_is_not_confined(work, elsewhere, capsys):
    """Gating against baselines kept elsewhere writes nothing there: refused for want of a baseline, not for
    where it is."""
    assert sql("--fail-on-regression", "--baseline-dir", str(elsewhere)) == 2
    err = capsys.readouterr().err
    assert "refusing" not in err and "no baseline for recorded/scripted" in err


def test_the_baselines_beside_a_corpus_stay_in_its_folder(work, elsewhere, capsys):
    (work / "baselines").symlink_to(elsewhere)
    assert sql("--record-baseline") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: refusing to write the baselines folder ") and "remove the symbolic link" in err
    assert files(elsewhere) == {"keep.txt": "untouched\n"}
    (work / "baselines").unlink()
    assert sql("--record-baseline") == 0 and (work / "baselines" / "recorded--scripted.json").is_file()


def test_the_built_in_record_stays_in_its_folder(work, elsewhere, monkeypatch, capsys):
    """The built-in record (``--record-accuracy`` alone) is the repository's own file: a symbolic link in
    its folder cannot send the page or its trend file elsewhere."""
    docs = work / "docs"
    docs.mkdir()
    (docs / "sql-accuracy.md").write_text(docs_mod.ACCURACY_PAGE.read_text())
    (docs / "sql-accuracy.jsonl").symlink_to(elsewhere / "keep.txt")
    monkeypatch.setattr(docs_mod, "ACCURACY_PAGE", docs / "sql-accuracy.md")  # the repository's page untouched
    code = main(["--suite", "sql", "--candidate", "recorded", "--answers", "a.jsonl", "--record-accuracy"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: refusing to write --record-accuracy's trend file ") and "symbolic link" in err
    assert files(elsewhere) == {"keep.txt": "untouched\n"}


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--file", "../elsewhere/t.jsonl", "--backfill", "old.md"], "--file"),
        (["--file", "t.jsonl", "--backfill", "old.md", "--markdown", "../elsewhere/t.md"], "'../elsewhere/t.md'"),
    ],
)
def test_the_trend_file_a_backfill_writes_is_confined(work, elsewhere, capsys, args, named):
    (work / "old.md").write_text(docs_mod.ACCURACY_PAGE.read_text())
    assert trend_cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: refusing to write ") and named in err and "EVAL_OUTPUT_DIR=DIR" in err
    assert files(elsewhere) == {"keep.txt": "untouched\n"} and not (work / "t.jsonl").exists()
    assert trend_cli.main(["--file", "t.jsonl", "--backfill", "old.md"]) == 0 and (work / "t.jsonl").is_file()
