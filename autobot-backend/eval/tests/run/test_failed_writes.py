"""A failed report write is a named state, never a lost report (issue 38, point 5).

A disk full, a read-only folder or ``ulimit -f`` ended a finished run in "internal error" with nothing on
stdout. Now the report goes to stdout first, each report file is written on its own (one that fails is
named with why and what to do, the others are still written), nothing is recorded from a run half
reported, and the exit is 2. Each case is real: a tmpfs full or mounted read-only in a mount namespace of
the test's own (``unshare``), and the kernel's file size limit (``RLIMIT_FSIZE``) on the process.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eval.tests import small_run as sr

BACKEND = Path(__file__).resolve().parents[3]
REPORTS = ("r.json", "r.md", "r.html", "r.xml")


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    return probe.returncode == 0


needs_unshare = pytest.mark.skipif(not _can_unshare(), reason="needs unshare -rm (a user and mount namespace)")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """Questions on databases of the user's own (``--db-dir``): the run itself writes no file (no fixture is
    built), so only its reports meet the failure."""
    sr.build_databases(tmp_path / "db")
    questions = [
        {"id": qid, "question": text, "database": db, "stratum": "bench", "sql": sql}
        for qid, db, _, text, sql, _ in sr.DB_QUESTIONS
    ]
    (tmp_path / "mine.yaml").write_text(json.dumps({"version": 1, "questions": questions}))
    answers = [{"id": qid, "sql": answer} if answer else {"id": qid, "refused": True} for qid, *_, answer in
               sr.DB_QUESTIONS]  # fmt: skip
    answers[0]["model"] = "scripted"
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    (tmp_path / "out").mkdir()
    return tmp_path


def _command(work: Path, out: Path, *extra: str) -> list[str]:
    reports = ["--json", str(out / "r.json"), "--markdown", str(out / "r.md"), "--html", str(out / "r.html")]
    reports += ["--junit", str(out / "r.xml")]
    return [
        sys.executable, "-m", "eval.run", "--suite", "sql", "--corpus", str(work / "mine.yaml"), "--db-dir",
        str(work / "db"), "--candidate", "recorded", "--answers", str(work / "a.jsonl"), *reports, *extra,
    ]  # fmt: skip


def _env(out: Path) -> dict[str, str]:
    return {**os.environ, "EVAL_OUTPUT_DIR": str(out), "PYTHONDONTWRITEBYTECODE": "1"}


def _assert_named_state(proc: subprocess.CompletedProcess[str], why: str) -> list[str]:
    """Exit 2, the whole report on stdout, each failed file named with why, and no traceback; the names of
    the report files that failed."""
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stdout.startswith("# SQL answer-accuracy report") and "## Failing questions" in proc.stdout
    failed = [name for name in REPORTS if "error: could not write --" in proc.stderr and name in proc.stderr]
    assert failed and why in proc.stderr, proc.stderr[-3000:]
    return failed


@needs_unshare
def test_a_read_only_folder(work: Path) -> None:
    mount = work / "out"
    script = 'mount -t tmpfs -o ro,size=1m tmpfs "$0" && exec "$@"'
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, str(mount), *_command(work, mount)],
        cwd=BACKEND, env=_env(mount), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert set(_assert_named_state(proc, "Read-only file system")) == set(REPORTS)


@needs_unshare
def test_a_disk_that_fills_up(work: Path) -> None:
    """A tmpfs with 20 KB left: the smaller reports are written, the bigger ones named; the written ones are
    whole (each went to a temporary file renamed over the target), and no temporary file is left."""
    mount = work / "out"
    script = 'mount -t tmpfs -o size=600k tmpfs "$0" && head -c 593920 /dev/zero > "$0/filler" && exec "$@"'
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script + ' ; true', str(mount), *_command(work, mount),
         "--record-accuracy", str(mount / "record.md")],
        cwd=BACKEND, env=_env(mount), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    failed = _assert_named_state(proc, "No space left on device")
    assert "free space on that disk" in proc.stderr and "nothing was recorded" in proc.stderr
    assert set(failed) < set(REPORTS), "a report small enough is still written"


def test_a_file_size_limit(work: Path) -> None:
    """``ulimit -f``: files up to 16 KB may be written (the JUnit and the Markdown); the bigger ones are named
    with the limit. Nothing is recorded from a run half reported."""
    out = work / "out"
    limit = 16 * 1024

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run(
        _command(work, out, "--record-accuracy", str(out / "record.md")),
        cwd=BACKEND, env=_env(out), capture_output=True, text=True, timeout=600, check=False, preexec_fn=limited,
    )  # fmt: skip
    failed = _assert_named_state(proc, "File too large")
    assert "(ulimit -f)" in proc.stderr
    written = {p.name for p in out.iterdir()}
    assert written == set(REPORTS) - set(failed), "every report that fits is written, and nothing else"
    for name in written:
        assert (out / name).stat().st_size <= limit
    if "r.json" in written:
        json.loads((out / "r.json").read_text())


def test_a_fixture_that_cannot_be_copied_is_named_not_a_crash(work: Path) -> None:
    """Before any question: the built-in fixtures copied to a temporary folder past ``ulimit -f``. Nothing to
    report yet; exit 2 naming the file and the limit, no traceback."""
    limit = 16 * 1024

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run(
        [sys.executable, "-m", "eval.run", "--suite", "sql", "--rotations", "1"],
        cwd=BACKEND, env=_env(work / "out"), capture_output=True, text=True, timeout=600, check=False,
        preexec_fn=limited,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "error: could not write or read " in proc.stderr and "(ulimit -f)" in proc.stderr, proc.stderr[-3000:]
