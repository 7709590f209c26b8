"""One root for every error the harness reports to a user.

::

    HarnessError                 printed as "error: ..." with no traceback; exit code 2
     ├── UsageError              a flag or combination of flags the run cannot honour
     ├── GoldenError             a trajectory golden that cannot be used (names the file)
     ├── OutputPathError         a report path outside the allowed directory
     └── (SQL suite)             CorpusError, FixtureError, AnswersError, BaselineError, ...

Anything else that escapes is a bug in the harness: printed with its traceback, still exit 2,
because a crash means the run could not be judged, never that the candidate regressed.
"""


class HarnessError(Exception):
    """Input or state the harness cannot work with; the message says what to do."""


class UsageError(HarnessError):
    """A command-line request the run cannot honour."""
