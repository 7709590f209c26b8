"""The one place where what escapes a command becomes its exit code (:mod:`eval.core.exit_codes`).

Every ``main`` of :mod:`eval.cli` is wrapped by :func:`entry_point`: argparse's own exit (a usage
error is 2, ``--help`` is 0) is returned rather than raised, a :class:`~eval.core.errors.HarnessError`
is printed as ``error: ...`` and is 2, an import that fails (a broken install) is 2, Ctrl-C is 2, a failure
of the machine (a full disk, a read-only folder, ``ulimit -f``) is 2 naming the file and what to do,
and any other exception is a bug in the harness: printed with its traceback, and 2, never 1 (a
crash says nothing about the candidate). A traceback, and a log record Python prints because nothing
configured logging, is redacted first (:mod:`eval.core.crash`): it may quote a URL with a token in it; and
whatever the command prints goes through :func:`eval.core.outbound.redacting_streams`: the run's secrets
masked in every line, and no workflow command a CI runner would obey but the harness's own.

``main`` runs under :func:`eval.core.interrupt.handling_signals`: SIGTERM (CI cancellation,
``timeout``) takes Ctrl-C's path, so the cleanup on the way up runs, and a signal that escapes a
command is 2 like Ctrl-C (not 128 + the signal: 2 is "could not judge", which an interrupted run is).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec

from eval.core import interrupt, outbound
from eval.core.crash import install_log_redaction, print_traceback
from eval.core.errors import HarnessError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE
from eval.core.output import ENVIRONMENT_ERRNOS, failure_message, print_error

P = ParamSpec("P")


def entry_point(main: Callable[P, int]) -> Callable[P, int]:
    """``main`` returning its exit code whatever happens inside it."""

    @functools.wraps(main)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> int:
        install_log_redaction()
        try:
            return main(*args, **kwargs)
        except SystemExit as exc:  # argparse: usage errors are 2, --help is 0
            if exc.code is None or isinstance(exc.code, int):
                return exc.code or 0
            print_error(str(exc.code))
            return EXIT_CANNOT_JUDGE
        except HarnessError as exc:
            print_error(str(exc))
            return EXIT_CANNOT_JUDGE
        except ImportError:  # a suite's modules are imported when it is asked for
            print_traceback()
            print_error("the harness failed to import; run `make eval` to (re)install it")
            return EXIT_CANNOT_JUDGE
        except OSError as exc:
            if exc.errno not in ENVIRONMENT_ERRNOS:
                print_traceback()
                print_error("internal error (a bug in the harness); the run could not be judged")
                return EXIT_CANNOT_JUDGE
            named = [str(n) for n in (exc.filename, exc.filename2) if n is not None]  # the machine's failure
            print_error(failure_message(exc, f"write or read {' or '.join(named) or 'a file'}"))
            return EXIT_CANNOT_JUDGE
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM made one; what was made on the way up is cleaned up
            print_error(f"interrupted by {interrupt.received()}")
            return EXIT_CANNOT_JUDGE
        except Exception:  # a crash is "could not examine", never "regressed"
            print_traceback()
            print_error("internal error (a bug in the harness); the run could not be judged")
            return EXIT_CANNOT_JUDGE

    @functools.wraps(main)
    def handled(*args: P.args, **kwargs: P.kwargs) -> int:
        with outbound.redacting_streams(), interrupt.handling_signals():
            return guarded(*args, **kwargs)

    return handled
