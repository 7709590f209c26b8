"""``exit_process``: the exit code, the ``atexit`` handlers and the flushed streams of a normal exit, in a real
process; and the normal exit itself while a thread that is not a daemon still runs."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

BACKEND = Path(__file__).resolve().parents[2]


def _run(body: str) -> subprocess.CompletedProcess[str]:
    script = "from eval.core.process_exit import exit_process\n" + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", script], cwd=BACKEND, capture_output=True, text=True, timeout=60)


def test_the_code_the_handlers_and_the_buffered_output_survive():
    done = _run(
        """
        import atexit, sys
        atexit.register(lambda: print("handler ran", flush=True))
        sys.stdout.write("buffered, never flushed by hand")
        sys.stderr.write("to stderr")
        exit_process(3)
        """
    )
    assert done.returncode == 3
    assert done.stdout == "buffered, never flushed by handhandler ran\n"
    assert done.stderr == "to stderr"


def test_a_running_thread_that_is_not_a_daemon_is_waited_for():
    done = _run(
        """
        import threading, time
        def late():
            time.sleep(0.3)
            print("the thread finished", flush=True)
        threading.Thread(target=late).start()
        exit_process(1)
        """
    )
    assert (done.returncode, done.stdout) == (1, "the thread finished\n")


def test_eval_run_ends_with_its_own_exit_code():
    done = subprocess.run(
        [sys.executable, "-m", "eval.run", "--suite", "sql", "--no-such-flag"],
        cwd=BACKEND,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "--no-such-flag" in done.stderr
