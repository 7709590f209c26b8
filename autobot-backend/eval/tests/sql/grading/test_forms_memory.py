"""``columns:`` and ``also:`` grade against one held reference (issue 38, point 2).

With six optional columns a question's reference was held 63 times (a projection per acceptable column
set, all made before the first was compared: 3.6 GB against the plain question's 0.23 GB), and eight
alternatives held eight results (1.5 GB). Now a column form is a view of the reference, made when the
grader reaches it; a form of another width than the answer is not read; an alternative whose rows are the
reference's is held as the reference. Each case is a whole run in a fresh process over a 100,000-row
table, its peak resident memory read from ``/proc``: within 1.5x of the plain question's.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

BACKEND = Path(__file__).resolve().parents[4]
ROWS = 100_000
SQL = "SELECT a, b, c, d, e, f, g FROM t"
SIX_OPTIONAL = {"required": ["a"], "optional": ["b", "c", "d", "e", "f", "g"]}
EIGHT = [f"SELECT a, b, c, d, e, f, g FROM t WHERE {k} = {k}" for k in range(8)]
# (the question's forms, the recorded answer, its verdict)
CASES = {
    "plain": ({}, "SELECT a, b, c, d, e, f, g || 'x' FROM t", "wrong"),
    "six_optional_wrong_width": ({"columns": SIX_OPTIONAL}, "SELECT a, b, c, d, e, f, g || 'x' FROM t", "wrong"),
    "six_optional_every_form_read": ({"columns": SIX_OPTIONAL}, "SELECT a, b, c, d, e, f + 1 FROM t", "wrong"),
    "six_optional_last_form_passes": ({"columns": SIX_OPTIONAL}, "SELECT a, b, c, d, e, g FROM t", "pass"),
    "eight_alternatives": ({"also": EIGHT}, "SELECT a, b, c, d, e, f, g || 'x' FROM t", "wrong"),
}
RUN = r"""
import atexit, runpy, sys
def peak():
    with open("/proc/self/status") as status:
        high = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
    print("PEAK", high, file=sys.stderr)
atexit.register(peak)
sys.argv = ["eval.run", *sys.argv[1:]]
runpy.run_module("eval.run", run_name="__main__")
"""


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    work = tmp_path_factory.mktemp("forms")
    db = work / "big.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b INTEGER, c TEXT, d REAL, e TEXT, f INTEGER, g TEXT)")
        con.executemany(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)",
            ((i, i * 7 % 1000, f"name-{i}", i / 3, f"e{i % 97}", i % 13, f"g{i}") for i in range(ROWS)),
        )
    found = {}
    for name, (forms, answer, _) in CASES.items():
        question = {"id": "q1", "question": "List every row of t with all of its columns.", "sql": SQL, **forms}
        (work / f"{name}.json").write_text(json.dumps({"version": 1, "questions": [question]}))
        (work / f"{name}.jsonl").write_text(json.dumps({"id": "q1", "sql": answer, "model": "m"}) + "\n")
        done = subprocess.run(
            [sys.executable, "-c", RUN, "--suite", "sql", "--corpus", str(work / f"{name}.json"), "--db-url",
             f"sqlite:///{db}", "--candidate", "recorded", "--answers", str(work / f"{name}.jsonl"),
             "--row-cap", str(2 * ROWS), "--json", str(work / f"{name}.out.json")],
            cwd=BACKEND, env={**os.environ, "EVAL_OUTPUT_DIR": str(work), "EVAL_PROCESSES": "1"},
            capture_output=True, text=True, timeout=900, check=False,
        )  # fmt: skip
        assert "PEAK " in done.stderr, done.stderr[-3000:]
        verdict = json.loads((work / f"{name}.out.json").read_text())["questions"][0]["verdict"]
        found[name] = (int(done.stderr.rsplit("PEAK ", 1)[1].split()[0]), verdict)
    return found


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak memory from /proc")
@pytest.mark.parametrize("case", [c for c in CASES if c != "plain"])
def test_other_forms_cost_at_most_half_again_the_plain_question(peaks: dict[str, tuple[int, str]], case: str) -> None:
    peak, verdict = peaks[case]
    plain, plain_verdict = peaks["plain"]
    assert (verdict, plain_verdict) == (CASES[case][2], "wrong"), "the control: each answer is graded as meant"
    assert peak <= 1.5 * plain, f"{case}: {peak >> 20} MB against the plain question's {plain >> 20} MB"
