"""Ending a command's process once its work is done, without the interpreter's teardown.

A run ends holding everything it graded: results, reports, transcripts, parsed SQL. Python's normal exit
frees each object one by one and unloads every module, which took 0.1-0.3 s after the built-in corpus
against a model (the bench's model path counts it, as a user waits for it). :func:`exit_process` does
what an exit must (every ``atexit`` handler: logging flushed, process pools ended, temporary files
removed; the standard streams flushed) and then ends the process, as mypy's ``hard_exit`` does.

Only when the interpreter itself runs the command (``python -m``), nothing profiles or traces it and no
thread but daemons is left: under a caller of its own (a test running the module with ``runpy``) or a
profiler or tracer (``python -m cProfile -m eval.run``, coverage; these too start from ``python -m``, and
write what they measured at the normal exit) the caller gets the ``SystemExit`` it expects, and a running
thread is joined, by the normal exit.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn


def exit_process(code: int) -> NoReturn:
    """Exit with ``code``: at once when nothing else needs the process, else through ``sys.exit``."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    if others or watched or not _run_by_the_interpreter():
        sys.exit(code)
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed pipe: nothing more can be said on it
                stream.flush()
        os._exit(code)


def _run_by_the_interpreter() -> bool:
    """Whether the outermost frame is the interpreter's own ``python -m`` (nothing of anyone's below it)."""
    frame = sys._getframe()
    while frame.f_back is not None:
        frame = frame.f_back
    return frame.f_code.co_name == "_run_module_as_main"
