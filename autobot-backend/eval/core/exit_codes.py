"""The exit-code taxonomy of every command of the harness, defined here once; CI relies on it.

* ``0`` (:data:`EXIT_OK`): examined, and nothing regressed (or the command did what it was asked).
* ``1`` (:data:`EXIT_REGRESSED`): examined, and something regressed: a gated run
  (``--fail-on-regression``) whose gate failed, or a check a command enforces that failed (the
  corpus stamps on the methodology page or the near-miss figures on the diagnosis page differ, a survivor of the
  near-miss study without a reason).
* ``2`` (:data:`EXIT_CANNOT_JUDGE`): could not examine or could not judge: bad input or a usage
  error (a flag of another suite included), nothing measurable, a gate that cannot be evaluated,
  an interrupted run, or a crash. A crash is never ``1``: a bug in the harness says nothing about
  the candidate.

Every command's ``main`` is wrapped by :func:`eval.cli.entry.entry_point`, the one place where
a :class:`~eval.core.errors.HarnessError`, Ctrl-C or SIGTERM (:mod:`eval.core.interrupt`), a failed import
and any other exception become ``2``. An interrupted run is ``2``, not the shell's 128 + the signal.
"""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
EXIT_REGRESSED: Final = 1
EXIT_CANNOT_JUDGE: Final = 2

EPILOG: Final = (
    "Exit codes: 0 examined and fine; 1 examined and regressed (with --fail-on-regression); "
    "2 could not examine or could not judge (bad input, crash, unmet gate precondition)."
)
"""The taxonomy in one line, for a command's ``--help``."""
