"""The blind set's file format: loading and validating ``<schema>_<split>.yaml``.

A file is one schema and one split; each question is either answerable (reference SQL, shape,
order flag) or a must-refuse case (a one-line ``why``). Loading is all-or-nothing: the first
file that breaks the format raises :class:`BlindSetError` naming the file, the question id and
what to fix, so a half-read set is never checked or graded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from eval.errors import HarnessError

HERE = Path(__file__).resolve().parent
SCHEMAS = ("retail", "retail_24m", "library", "clinic", "saas")
SPLITS = ("tune", "holdout")
_ANSWER_KEYS = {"id", "question", "expect", "stratum", "shape", "ordered", "sql"}
_REFUSE_KEYS = {"id", "question", "expect", "stratum", "why"}


class BlindSetError(HarnessError):
    """A blind-set file that cannot be used; the message names the file, the question and the fix."""


@dataclass(frozen=True)
class Question:
    id: str
    """Unique across the whole blind set."""
    question: str
    """The analyst's question, as they would type it."""
    expect: str
    """``answer`` or ``refuse``."""
    stratum: str
    """Free-form shape label (``ranking``, ``period-over-period``, ``refuse-write``...)."""
    schema: str
    """The database the question is asked of (one of :data:`SCHEMAS`)."""
    split: str
    """``tune`` (the generator's developer may read it) or ``holdout`` (they never see it)."""
    path: Path
    """The file the question came from, for messages."""
    shape: str | None = None
    """``scalar`` (one row, one column) or ``rows``; None for refusals."""
    ordered: bool = False
    """True only when the order of the rows is part of the answer."""
    sql: str | None = None
    """Reference SQL (SQLite); None for refusals."""
    why: str | None = None
    """For a refusal: why answering would be fabrication."""

    @property
    def answerable(self) -> bool:
        return self.expect == "answer"


def _fail(path: Path, where: str, what: str) -> BlindSetError:
    return BlindSetError(f"{path.name}: {where}: {what}")


def _question(path: Path, schema: str, split: str, n: int, raw: object) -> Question:
    if not isinstance(raw, dict):
        raise _fail(path, f"question #{n}", "each question must be a mapping of keys to values")
    qid = raw.get("id")
    if not isinstance(qid, str) or not qid.strip():
        raise _fail(path, f"question #{n}", "missing 'id'; give every question a unique id")
    expect = raw.get("expect")
    if expect not in ("answer", "refuse"):
        raise _fail(path, qid, f"expect must be 'answer' or 'refuse', got {expect!r}")
    allowed = _ANSWER_KEYS if expect == "answer" else _REFUSE_KEYS
    unknown, missing = set(raw) - allowed, allowed - set(raw)
    if unknown:
        raise _fail(path, qid, f"keys not allowed for expect: {expect}: {', '.join(sorted(unknown))}")
    if missing:
        raise _fail(path, qid, f"missing keys for expect: {expect}: {', '.join(sorted(missing))}")
    for key in ("question", "stratum") + (("sql",) if expect == "answer" else ("why",)):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise _fail(path, qid, f"'{key}' must be non-empty text")
    if expect == "answer":
        if raw["shape"] not in ("scalar", "rows"):
            raise _fail(path, qid, f"shape must be 'scalar' or 'rows', got {raw['shape']!r}")
        if not isinstance(raw["ordered"], bool):
            raise _fail(path, qid, f"ordered must be true or false, got {raw['ordered']!r}")
    return Question(schema=schema, split=split, path=path, **raw)


def load_file(path: Path, schemas: tuple[str, ...] = SCHEMAS) -> list[Question]:
    """The questions of one ``<schema>_<split>.yaml`` file, validated (``schemas``: the set's schemas)."""
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise _fail(path, "YAML", f"does not parse: {exc}") from None
    if not isinstance(doc, dict) or set(doc) != {"schema", "split", "questions"}:
        raise _fail(path, "top level", "must have exactly the keys schema, split and questions")
    schema, split = doc["schema"], doc["split"]
    if schema not in schemas or split not in SPLITS:
        raise _fail(path, "top level", f"schema must be one of {schemas} and split one of {SPLITS}")
    if path.name != f"{schema}_{split}.yaml":
        raise _fail(path, "top level", f"a file for schema {schema!r}, split {split!r} must be named "
                                       f"{schema}_{split}.yaml")
    if not isinstance(doc["questions"], list) or not doc["questions"]:
        raise _fail(path, "questions", "must be a non-empty list")
    return [_question(path, schema, split, n, raw) for n, raw in enumerate(doc["questions"], start=1)]


def load_set(directory: Path = HERE, schemas: tuple[str, ...] = SCHEMAS) -> list[Question]:
    """Every question of the set in ``directory``, ids checked unique across files."""
    questions: list[Question] = []
    seen: dict[str, Path] = {}
    files = sorted(Path(directory).glob("*_*.yaml"))
    if not files:
        raise BlindSetError(f"{directory}: no <schema>_<split>.yaml files found")
    for path in files:
        for q in load_file(path, schemas):
            if q.id in seen:
                raise _fail(path, q.id, f"duplicate id (also in {seen[q.id].name}); ids must be unique")
            seen[q.id] = path
            questions.append(q)
    return questions
