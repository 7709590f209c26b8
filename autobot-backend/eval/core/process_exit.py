"""Ending a command's process once its work is done, without the interpreter's teardown.

A run ends holding everything it graded: results, reports, transcripts, parsed SQL. Python's normal exit
frees each object one by one and unloads every module, which took 0.1-0.3 s after the built-in corpus
against a model (the bench's model path counts it, as a user waits for it). :func:`exit_process` does
what an exit must (every ``atexit`` handler: logging flushed, process pools ended, temporary files
removed; the standard streams flushed) and then ends the process, as mypy's ``hard_exit`` does. Only
when no thread but daemons is still running: otherwise the normal exit joins them, as it always has.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn


def exit_process(code: int) -> NoReturn:
    """Exit with ``code``: quickly when only daemon threads remain, else through ``sys.exit``."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if others:
        sys.exit(code)
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed pipe: nothing more can be said on it
                stream.flush()
        os._exit(code)
