"""The committed snapshot of the reference answers on rotation 0 (seed 0) of each fixture.

``eval/golden/sql/snapshots/<fixture>.json``::

    {
      "fixture": "retail",
      "seed": 0,
      "update": "python -m eval.cli.selfcheck --update-snapshot",
      "answers": {
        "rtl-scalar-001": {"columns": ["COUNT(*)"], "rows": [
          [133]
        ]},
        ...
      }
    }

A change in the fixture builder, an engine upgrade or an edited reference query then shows up
as a named difference in the self-check instead of silent drift. One row per line, so a diff
of the file reads as a diff of the answers.

Values: ``null``, booleans, integers, strings and finite floats are plain JSON (Python's float
repr round-trips exactly); every other type is a one-key object naming it:
``{"$decimal": "12.50"}``, ``{"$date": "2024-01-31"}``, ``{"$datetime": "2024-01-31T13:45:00"}``,
``{"$time": "13:45:00"}``, ``{"$bytes": "<base64>"}``, ``{"$float": "nan"}`` (also ``inf``,
``-inf``). So a date stays a date and a Decimal a Decimal when read back.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

from eval.core.errors import HarnessError
from eval.core.jsonl import json_file
from eval.core.output import write_atomically
from eval.sql.corpus.questions import CORPUS_DIR, stamp_path

SNAPSHOT_DIR = CORPUS_DIR / "snapshots"
SNAPSHOT_SEED = 0
UPDATE_COMMAND = "python -m eval.cli.selfcheck --update-snapshot"


class SnapshotError(HarnessError):
    """A snapshot file that cannot be read; the message names it and how to rebuild it."""


@dataclass(frozen=True)
class Answer:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]


def encode_value(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"$float": repr(v)}
    if isinstance(v, Decimal):
        return {"$decimal": str(v)}
    if isinstance(v, datetime):  # before date: a datetime is a date
        return {"$datetime": v.isoformat()}
    if isinstance(v, date):
        return {"$date": v.isoformat()}
    if isinstance(v, time):
        return {"$time": v.isoformat()}
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"$bytes": base64.b64encode(bytes(v)).decode("ascii")}
    raise TypeError(f"cannot snapshot a {type(v).__name__} value: {v!r}")


_DECODERS: dict[str, Callable[[str], Any]] = {
    "$decimal": Decimal,
    "$date": date.fromisoformat,
    "$datetime": datetime.fromisoformat,
    "$time": time.fromisoformat,
    "$bytes": base64.b64decode,
    "$float": float,
}


def decode_value(v: Any) -> Any:
    if isinstance(v, dict):
        ((tag, text),) = v.items()
        return _DECODERS[tag](text)
    return v


def _dump_answer(qid: str, answer: Answer) -> str:
    rows = ",\n      ".join(json.dumps([encode_value(v) for v in row], ensure_ascii=False) for row in answer.rows)
    body = f"\n      {rows}\n    " if answer.rows else ""
    columns = json.dumps(list(answer.columns), ensure_ascii=False)
    return f'    {json.dumps(qid)}: {{"columns": {columns}, "rows": [{body}]}}'


def dumps(fixture: str, answers: dict[str, Answer]) -> str:
    head = (
        f'{{\n  "fixture": {json.dumps(fixture)},\n  "seed": {SNAPSHOT_SEED},\n'
        f'  "update": {json.dumps(UPDATE_COMMAND)},\n  "answers": {{\n'
    )
    body = ",\n".join(_dump_answer(qid, answers[qid]) for qid in sorted(answers))
    return head + body + ("\n" if answers else "") + "  }\n}\n"


def snapshot_path(fixture: str, directory: Path = SNAPSHOT_DIR) -> Path:
    return Path(directory) / f"{fixture}.json"


def write_snapshot(fixture: str, answers: dict[str, Answer], directory: Path = SNAPSHOT_DIR) -> Path:
    return write_atomically(snapshot_path(fixture, directory), dumps(fixture, answers))


def load_snapshot(fixture: str, directory: Path = SNAPSHOT_DIR) -> dict[str, Answer]:
    """Question id -> recorded answer; empty when the fixture has no snapshot file yet."""
    path = snapshot_path(fixture, directory)
    if not path.exists():
        return {}
    try:
        data = json_file(path, SnapshotError, missing="missing", unreadable="unreadable snapshot")
        return {
            qid: Answer(tuple(a["columns"]), [tuple(decode_value(v) for v in row) for row in a["rows"]])
            for qid, a in data["answers"].items()
        }
    except SnapshotError as e:
        raise SnapshotError(f"{e}; rebuild it with `{UPDATE_COMMAND}`") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise SnapshotError(
            f"{stamp_path(path)}: unreadable snapshot ({type(e).__name__}: {e}); rebuild it with `{UPDATE_COMMAND}`"
        ) from None
