"""One statement on a Spark Thrift server, under the executor's time limit, the row cap and the byte budget.

pyhive's ``execute`` waits for the statement however long it runs, and Spark has no ``SET LOCAL`` time
limit a transaction could carry. So the statement is submitted asynchronously and its state polled; past
the deadline the server is asked to cancel it (Spark stops its jobs), the operation is closed and the
statement is a timeout. Its rows are then fetched in batches under the row cap and the byte budget, like
every engine's, and the operation is closed, also when a cap stopped the reading.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from services.readonly.budget import fetch_bounded

__all__ = ["ConnectionLost", "SparkTimeout", "StatementFailed", "run"]

_POLL_FIRST_S = 0.005
_POLL_MAX_S = 0.1


class SparkTimeout(Exception):
    """The statement passed its deadline and was cancelled on the server."""


class ConnectionLost(Exception):
    """The server could not be reached in the middle of the statement."""


class StatementFailed(Exception):
    """Spark refused or failed the statement; ``message`` is the server's."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def run(
    dbapi_connection: Any, sql: str, deadline: float, row_cap: int, max_bytes: int, kinds: list[set[type]]
) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    """Run ``sql`` on a pyhive connection until ``deadline`` (``time.monotonic()``); its columns and rows, read by
    :func:`~services.readonly.budget.fetch_bounded` (which fills ``kinds``).

    Raises:
        Overflow: past the row cap or the byte budget.
        SparkTimeout: past the deadline (the statement was cancelled).
        ConnectionLost: the server went away.
        StatementFailed: the server's error.
    """
    from pyhive import exc as hive_errors
    from TCLIService.ttypes import TOperationState
    from thrift.Thrift import TException

    done = {TOperationState.FINISHED_STATE}
    failed = {
        TOperationState.ERROR_STATE,
        TOperationState.CANCELED_STATE,
        TOperationState.CLOSED_STATE,
        TOperationState.TIMEDOUT_STATE,
        TOperationState.UKNOWN_STATE,
    }
    cursor = dbapi_connection.cursor()
    try:
        try:
            cursor.execute(sql, async_=True)
            pause = _POLL_FIRST_S
            while True:
                status = cursor.poll(get_progress_update=False)
                if status.operationState in done:
                    break
                if status.operationState in failed:
                    raise StatementFailed(_message(status.errorMessage or "the statement failed"))
                if time.monotonic() >= deadline:
                    cursor.cancel()
                    raise SparkTimeout
                time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
                pause = min(pause * 2, _POLL_MAX_S)
            if cursor.description is None:
                return (), []
            columns = tuple(str(d[0]) for d in cursor.description)
            return columns, fetch_bounded(cursor.fetchmany, row_cap, max_bytes, kinds)
        except hive_errors.Error as exc:
            raise StatementFailed(_message(str(exc))) from None
        except TException as exc:
            raise ConnectionLost(f"the connection to the Spark server failed: {exc}") from None
    finally:
        with contextlib.suppress(Exception):  # a connection already gone: nothing is left to close
            cursor.close()  # closes the operation on the server, a cancelled or capped one too


def _message(text: str) -> str:
    """The server's message without its Java stack: Spark's error class and text, on one line."""
    first = text.strip().split("\n\tat ", 1)[0]
    return " ".join(first.split())[:2000]
