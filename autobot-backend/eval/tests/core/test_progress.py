"""The progress line: a log line per tenth of the run or 30 s off a terminal, a live line on one."""

from __future__ import annotations

import io
from dataclasses import dataclass

from eval.core.progress import ProgressLine
from eval.core.runner import Replay
from eval.sql.model.outcome import Verdict


@dataclass
class _Graded:
    verdict: Verdict


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _replay(verdict: Verdict = Verdict.PASS) -> Replay[str, _Graded]:
    return Replay("q", _Graded(verdict))


def test_off_a_terminal_a_line_at_every_tenth_and_the_last():
    out, clock = io.StringIO(), Clock()
    line = ProgressLine("sql", out, tty=False, clock=clock)
    for done in range(1, 21):
        clock.now += 0.1
        line(done, 20, _replay(Verdict.PASS if done % 2 else Verdict.WRONG))
    lines = out.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("[sql] 2/20 (10%)") and lines[0].endswith(", 1 passed")
    assert lines[-1] == "[sql] 20/20 (100%) elapsed 2s, 10 passed"


def test_off_a_terminal_a_slow_run_still_logs_every_30_seconds():
    out, clock = io.StringIO(), Clock()
    line = ProgressLine("sql", out, tty=False, clock=clock)
    for done in range(1, 4):
        clock.now += 31
        line(done, 1000, _replay())
    assert [x.split(" (")[0] for x in out.getvalue().splitlines()] == ["[sql] 1/1000", "[sql] 2/1000", "[sql] 3/1000"]


def test_the_estimate_is_paced_by_answers_not_by_the_set_up_before_them():
    out, clock = io.StringIO(), Clock()
    line = ProgressLine("sql", out, tty=False, clock=clock)
    clock.now += 60  # building and self-checking before the first answer
    line(1, 10, _replay())
    clock.now += 2
    line(2, 10, _replay())  # 2 s an answer from here: 8 left is 16 s
    assert out.getvalue().splitlines()[-1] == "[sql] 2/10 (20%) elapsed 62s, about 16s left, 2 passed"


def test_on_a_terminal_one_live_line_ends_with_the_totals():
    out = io.StringIO()
    line = ProgressLine("sql", out, tty=True)
    for done in range(1, 6):
        line(done, 5, _replay(Verdict.PASS if done < 4 else Verdict.ERROR))
    line.close()
    shown = out.getvalue()
    assert "5/5" in shown and "3 passed" in shown and shown.count("\n") <= 2
