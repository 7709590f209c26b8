"""``exit_process`` in real processes: under ``python -m`` it ends the process without the interpreter's
teardown, keeping the exit code, the ``atexit`` handlers and the buffered output; under a caller of its own
(``runpy``, as a profiler or a test runs a module) and while a thread that is not a daemon runs, it takes
the normal exit.

A module-level object whose ``__del__`` prints tells the two apart: the teardown runs it, the quick exit does not.
"""

from __future__ import annotations

import os
import pstats
import subprocess
import sys
import textwrap
from pathlib import Path

BACKEND = Path(__file__).resolve().parents[3]

HEADER = """
import atexit, sys
from eval.core.process_exit import exit_process

class Marker:
    def __del__(self):
        print("torn down", flush=True)

marker = Marker()
atexit.register(lambda: print("handler ran", flush=True))
"""


def _module(tmp_path: Path, body: str) -> dict[str, str]:
    (tmp_path / "probe_exit.py").write_text(HEADER + textwrap.dedent(body))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(BACKEND)])}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=BACKEND, env=env, capture_output=True, text=True, timeout=60)


def test_under_python_m_the_process_ends_at_once_keeping_code_handlers_and_output(tmp_path):
    env = _module(tmp_path, 'sys.stdout.write("buffered, never flushed by hand\\n")\nexit_process(3)\n')
    done = _run(["-m", "probe_exit"], env)
    assert done.returncode == 3
    assert done.stdout == "buffered, never flushed by hand\nhandler ran\n"  # no "torn down": no teardown


def test_a_caller_of_its_own_gets_the_system_exit_it_expects(tmp_path):
    """The control of the first: the same module under ``runpy`` raises ``SystemExit`` to its caller, which
    goes on; the teardown then runs as usual."""
    env = _module(tmp_path, "exit_process(3)\n")
    caller = (
        "import runpy\n"
        "try:\n"
        "    runpy.run_module('probe_exit', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as exc:\n"
        "    print('the caller goes on after exit', exc.code, flush=True)\n"
    )
    done = _run(["-c", caller], env)
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == "the caller goes on after exit 3"
    assert "torn down" in done.stdout and "handler ran" in done.stdout


def test_a_profiler_started_by_python_m_writes_its_profile(tmp_path):
    """``python -m cProfile -m MODULE`` is run by the interpreter too: the quick exit would lose the profile."""
    env = _module(tmp_path, "exit_process(3)\n")
    profile = tmp_path / "run.prof"
    done = _run(["-m", "cProfile", "-o", str(profile), "-m", "probe_exit"], env)
    assert "handler ran" in done.stdout, done.stderr  # cProfile ends with a code of its own: the output says it ran
    functions = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    assert any(name == "exit_process" for _, _, name in functions)


def test_a_running_thread_that_is_not_a_daemon_is_waited_for(tmp_path):
    body = """
    import threading, time
    def late():
        time.sleep(0.3)
        print("the thread finished", flush=True)
    threading.Thread(target=late).start()
    exit_process(1)
    """
    done = _run(["-m", "probe_exit"], _module(tmp_path, body))
    assert done.returncode == 1
    assert done.stdout.startswith("the thread finished\n")


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
