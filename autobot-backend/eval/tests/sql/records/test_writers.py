"""The accuracy record's writers (issue 38, point 6).

* Two runs recording at once with different ``TMPDIR``s lost rows: the lock was a file among the temporary
  files, so each took its own. It is now the page's folder, which every writer finds.
* ``--record-accuracy PAGE`` appended to ``PAGE`` with ``.jsonl`` whatever that file was: one holding
  anything but trend lines is now refused before the run.
* SIGKILL between a temporary file and its rename left hidden ``.tmp`` files, and a record killed between
  its page and its trend left the page a row ahead: the next write removes the files of dead writers, and
  the next record adds the missing line from the page's row.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eval.core.output import write_atomically
from eval.run import main
from eval.sql.records import docs as docs_mod
from eval.sql.records.recording import locked
from eval.tests import small_run as sr

BACKEND = Path(__file__).resolve().parents[4]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    monkeypatch.setenv("EVAL_OUTPUT_DIR", str(tmp_path))
    sr.write_corpus(tmp_path / "mine.yaml")
    sr.write_answers(tmp_path / "a.jsonl", perfect=True)
    return tmp_path


RUN = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", "a.jsonl"]

WAITER = """
import sys
sys.path.insert(0, sys.argv[2])
from pathlib import Path
from eval.sql.records.recording import locked
print("waiting", flush=True)
with locked(Path(sys.argv[1])):
    print("got", flush=True)
"""


def _waiters(folder: Path) -> bool:
    """Whether /proc/locks shows a process blocked on a lock of ``folder`` (a line with ``->``)."""
    inode = f":{folder.stat().st_ino} "
    return any("->" in line and inode in line for line in Path("/proc/locks").read_text().splitlines())


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="reads the kernel's table of locks")
def test_writers_with_different_temporary_folders_share_the_lock(work, tmp_path_factory, monkeypatch):
    """The test holds the record's lock with one TMPDIR; a process with another waits for it (the kernel
    shows it blocked) and gets it once it is let go. Before, it took a lock of its own at once."""
    page = work / "record.md"
    monkeypatch.setenv("TMPDIR", str(tmp_path_factory.mktemp("tmp-a")))
    env = {**os.environ, "TMPDIR": str(tmp_path_factory.mktemp("tmp-b"))}
    with locked(page):
        child = subprocess.Popen(
            [sys.executable, "-c", WAITER, str(page), str(BACKEND)], stdout=subprocess.PIPE, text=True, env=env
        )
        assert child.stdout is not None and child.stdout.readline() == "waiting\n"
        while not _waiters(page.parent):
            assert child.poll() is None, "the other writer took the record while this one held it"
    assert child.stdout.readline() == "got\n" and child.wait() == 0
    child.stdout.close()


def test_concurrent_writers_lose_no_row(work, tmp_path_factory):
    """Four runs record into one page at once, each with its own TMPDIR: four rows, four trend lines."""
    env = {k: v for k, v in os.environ.items() if k != "EVAL_CALLER_DIR"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "eval.run", *RUN, "--record-accuracy", str(work / "record.md")],
            cwd=BACKEND,
            env=env | {"EVAL_OUTPUT_DIR": str(work), "EVAL_CALLER_DIR": str(work), "TMPDIR": str(folder)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in [tmp_path_factory.mktemp(f"tmp{i}") for i in range(4)]
    ]
    errors = [proc.communicate(timeout=600)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * 4, errors
    rows = [line for line in (work / "record.md").read_text().splitlines() if line.startswith("| 20")]
    assert len(rows) == 4 and len((work / "record.jsonl").read_text().splitlines()) == 4


def test_an_unrelated_jsonl_beside_the_page_is_refused_before_the_run(work, capsys):
    answers = (work / "a.jsonl").read_text()
    shutil.copy(work / "a.jsonl", work / "record.jsonl")
    assert main([*RUN, "--record-accuracy", "record.md", "--json", "r.json"]) == 2
    err = capsys.readouterr().err
    assert "record.jsonl:1: not a line of an accuracy trend" in err and "Traceback" not in err
    assert (work / "record.jsonl").read_text() == answers and not (work / "record.md").exists()
    assert not (work / "r.json").exists(), "refused before the run"


def test_a_killed_writer_s_temporary_file_is_removed_by_the_next_write(work):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # its pid names no process now
    left = work / f".page.md.{dead.pid}.x1y2z3.tmp"
    alive = work / f".page.md.{os.getpid()}.a1b2c3.tmp"  # a writer still at work (this process)
    other = work / f".other.md.{dead.pid}.q.tmp"  # another file's: not this write's to remove
    for path in (left, alive, other):
        path.write_text("half a page")
    write_atomically(work / "page.md", "whole\n")
    assert (work / "page.md").read_text() == "whole\n"
    assert not left.exists() and alive.exists() and other.exists()


def test_a_page_a_row_ahead_of_its_trend_is_made_whole(work, capsys):
    """The built-in record with its trend's last line gone (killed between the two files): the next record
    adds that line from the page's row, then its own, and says so."""
    shutil.copy(docs_mod.ACCURACY_PAGE, work / "record.md")
    lines = docs_mod.ACCURACY_PAGE.with_suffix(".jsonl").read_text().splitlines()
    (work / "record.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    assert main([*RUN, "--record-accuracy", "record.md", "--allow-off-suite"]) == 0
    err = capsys.readouterr().err
    assert "had 1 row(s) with no line in" in err, err[-2000:]
    after = [json.loads(x) for x in (work / "record.jsonl").read_text().splitlines()]
    assert len(after) == len(lines) + 1
    restored, new = after[-2], after[-1]
    gone = json.loads(lines[-1])
    assert (restored["date"], restored["model"], restored["status"]) == (gone["date"], gone["model"], gone["status"])
    assert restored["source"] == "record row" and new["source"] == "run"
