"""SQLite statements' deadlines: one watchdog thread per process, not a thread per statement."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from services.readonly.executor import ReadOnlyExecutor
from services.readonly.sqlite_file import interrupt_at
from tests.bounds import PATIENCE_S


def test_many_statements_start_no_thread_and_share_one_watchdog(tmp_path: Path, monkeypatch):
    path = tmp_path / "n.db"
    with sqlite3.connect(path) as c:
        c.execute("CREATE TABLE n (x INTEGER)")
        c.execute("INSERT INTO n VALUES (1), (2)")
    with ReadOnlyExecutor(f"sqlite:///{path}", timeout_s=5) as ex:
        ex.execute("SELECT 1")  # the watchdog starts, once
        started: list[str] = []
        real = threading.Thread.start
        monkeypatch.setattr(threading.Thread, "start", lambda self: started.append(self.name) or real(self))
        for _ in range(30):
            assert ex.execute("SELECT SUM(x) FROM n").rows == [(3,)]
    assert started == []  # before: a timer thread per statement
    assert [t.name for t in threading.enumerate()].count("sqlite-deadlines") == 1


def test_an_alarm_fires_at_its_deadline_and_a_cancelled_one_never(tmp_path: Path):
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    fired: list[bool] = []
    kept: list[bool] = []
    cancelled = interrupt_at(0.05, kept, conn)
    cancelled.cancel()
    interrupt_at(0.1, fired, conn)
    deadline = time.monotonic() + PATIENCE_S  # a guard against a hang, not a measure of speed
    while not fired and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fired == [True]
    time.sleep(0.1)
    assert kept == []
