"""The corpus format as a JSON Schema (draft 2020-12), generated from the corpus model so the two cannot drift.

Every question key is a field of :class:`~eval.sql.corpus.questions.Question` named in ``QUESTION_KEYS``:
its type and default come from the dataclass (type hints, ``Literal`` values, defaults), its description
from the docstring written under the field (read with :mod:`ast`, as no runtime keeps them). The file
keys are ``FILE_KEYS``; ``sql_<dialect>`` keys are ``SQL_DIALECTS``. What the loader checks in code and a
type cannot say (a non-empty line, a folder name, ``decimals`` up to ``MAX_DECIMALS``, ``expect: refuse``
without a reference) is :data:`REFINEMENTS` and the rules of :func:`question_schema`; a test feeds the
loader and the schema the same good and bad values for every key and requires the same answer.

The committed copy is ``docs/eval/sql-corpus.schema.json`` (:data:`SCHEMA_PATH`), for editors: a corpus
file whose first line is ``# yaml-language-server: $schema=<path or URL of it>`` is checked as it is
typed. ``python -m eval.cli.docs --update-schema`` rewrites it; a test fails while it differs.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import json
import textwrap
import types
import typing
from pathlib import Path
from typing import Any, Literal

from eval.sql.corpus.alternatives import ALSO_SCHEMA, COLUMNS_SCHEMA
from eval.sql.corpus.gate_settings import GATE_SCHEMA
from eval.sql.corpus.questions import (
    FILE_KEYS,
    MAX_DECIMALS,
    QUESTION_KEYS,
    REFUSE_FORBIDDEN,
    SQL_DIALECTS,
    SUPPORTED_VERSIONS,
    Question,
)
from eval.sql.fixtures.seeded import FIXTURE_NAMES

SCHEMA_PATH = Path(__file__).resolve().parents[4] / "docs" / "eval" / "sql-corpus.schema.json"
UPDATE_COMMAND = "python -m eval.cli.docs --update-schema"

NON_EMPTY = {"type": "string", "pattern": r"\S"}
ONE_LINE = {"type": "string", "pattern": r"^\s*[^\n]*?\s*$"}
REFINEMENTS: dict[str, dict[str, Any]] = {
    "id": {"type": "string", "pattern": r"^(?![\s\S]*\s)[\s\S]+$"},
    "question": NON_EMPTY,
    "stratum": NON_EMPTY,
    "fixture": NON_EMPTY,
    "sql": NON_EMPTY,
    "database": {"type": "string", "pattern": r"^(?!\.\.?$)(?!\s)(?![\s\S]*\s$)[^/\\\x00]+$"},
    "difficulty": {"type": "string", "pattern": r"^\s*\S[^\n]*?\s*$"},
    "why": ONE_LINE,
    "decimals": {"type": "integer", "minimum": 0, "maximum": MAX_DECIMALS},
    "row_cap": {"type": "integer", "minimum": 1},
}
"""What the loader checks beyond the field's type (``_VALIDATORS`` in :mod:`eval.sql.corpus.questions`)."""
WHOLE_SCHEMAS: dict[str, dict[str, Any]] = {"also": ALSO_SCHEMA, "columns": COLUMNS_SCHEMA}
"""Keys whose schema is written out whole (:mod:`eval.sql.corpus.alternatives`), not read off a type hint."""

FILE_DESCRIPTIONS = {
    "version": "The corpus format version.",
    "questions": "The questions of the file, in report order (at least one).",
    "sample_values": (
        "false: the model path sends the model no value sampled from the database (the schema, the question and "
        "the rules only); the same as --no-sample-values or NL_SQL_LLM_SAMPLE_VALUES=0. Unset or true: a few "
        "stored values of each text column go with the schema, so the model can match the question's words."
    ),
    "skipped": (
        "Questions the file leaves out but counts (written by bench_import --skip-missing-databases): "
        "each with its original id, why, and the database it needed; an id here is not a question of the corpus."
    ),
}
"""The file keys that are not defaults of a question's field."""


def field_docs(cls: type) -> dict[str, str]:
    """Each dataclass field's docstring (the string literal written under it), whitespace folded."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef)).body
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def _type_schema(hint: Any) -> dict[str, Any]:
    """The JSON type of a field's hint; ``X | None`` is ``X``: a key left out, not a ``null`` value."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(hint) if a is not type(None)]
        return _type_schema(inner)
    if typing.get_origin(hint) is Literal:
        return {"enum": list(typing.get_args(hint))}
    simple = {str: "string", bool: "boolean", int: "integer"}
    if hint in simple:
        return {"type": simple[hint]}
    raise TypeError(f"the corpus JSON Schema has no rule for a field of type {hint!r}; add one to {__name__}")


def question_properties() -> dict[str, dict[str, Any]]:
    """Every question key with its type, allowed values, default and description, from :class:`Question`."""
    hints = typing.get_type_hints(Question)
    fields = {f.name: f for f in dataclasses.fields(Question)}
    docs = field_docs(Question)
    properties: dict[str, dict[str, Any]] = {}
    for key in QUESTION_KEYS:
        f = fields[key]
        typed = WHOLE_SCHEMAS[key] if key in WHOLE_SCHEMAS else _type_schema(hints[key])
        prop = {"description": docs.get(key, ""), **typed, **REFINEMENTS.get(key, {})}
        if f.default is not dataclasses.MISSING and f.default not in (None, ()):
            prop["default"] = f.default
        properties[key] = prop
    sql_doc = docs.get("sql_dialects", "")
    for dialect in sorted(SQL_DIALECTS):
        properties[f"sql_{dialect}"] = {"description": f"{sql_doc} This one: {dialect}.", **NON_EMPTY}
    return properties


def question_schema() -> dict[str, Any]:
    """One question: its keys, the two it needs, and the rules between keys the loader applies."""
    required = [k for k in QUESTION_KEYS if _required(k)]
    refuse_forbidden = [*REFUSE_FORBIDDEN, *(f"sql_{d}" for d in sorted(SQL_DIALECTS))]
    return {
        "type": "object",
        "properties": question_properties(),
        "additionalProperties": False,
        "required": required,
        "not": {"required": ["fixture", "database"]},
        "if": {"properties": {"expect": {"const": "refuse"}}, "required": ["expect"]},
        "then": {"not": {"anyOf": [{"required": [k]} for k in refuse_forbidden]}},
        "else": {"required": ["sql"]},
    }


def _required(key: str) -> bool:
    field = next(f for f in dataclasses.fields(Question) if f.name == key)
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING


def corpus_schema() -> dict[str, Any]:
    """The JSON Schema of one corpus file (the YAML read as JSON data)."""
    questions = question_properties()
    file_properties: dict[str, dict[str, Any]] = {
        "version": {"description": FILE_DESCRIPTIONS["version"], "enum": list(SUPPORTED_VERSIONS)},
        "questions": {
            "description": FILE_DESCRIPTIONS["questions"],
            "type": "array",
            "minItems": 1,
            "items": {"$ref": "#/$defs/question"},
        },
        "gate": GATE_SCHEMA,
        "sample_values": {"description": FILE_DESCRIPTIONS["sample_values"], "type": "boolean"},
        "skipped": {
            "description": FILE_DESCRIPTIONS["skipped"],
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": r"^(?![\s\S]*\s)[\s\S]+$"},
                    "reason": {"type": "string", "pattern": r"^\s*\S[^\n]*?\s*$"},
                    "database": {"type": "string", "pattern": r"^(?![\s\S]*[/\\\x00])\s*\S[^\n]*?\s*$"},
                },
                "required": ["id", "reason"],
                "additionalProperties": False,
            },
        },
    }
    for key in FILE_KEYS:
        if key not in file_properties:
            prop = dict(questions[key])
            prop["description"] = f"Default of the file's questions. {prop['description']}"
            file_properties[key] = prop
    file_properties["fixture"]["examples"] = list(FIXTURE_NAMES)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "SQL eval corpus file",
        "description": (
            "One YAML file of questions for python -m eval.run --suite sql --corpus FILE "
            "(docs/eval/writing-a-corpus.md). Generated from eval/sql/corpus/questions.py by "
            f"{UPDATE_COMMAND}; do not edit."
        ),
        "type": "object",
        "properties": {k: file_properties[k] for k in FILE_KEYS},
        "additionalProperties": False,
        "required": ["version", "questions"],
        "not": {"required": ["fixture", "database"]},
        "$defs": {"question": question_schema()},
    }


def schema_text() -> str:
    """The schema as committed: two-space JSON, keys in the model's order, one trailing newline."""
    return json.dumps(corpus_schema(), indent=2, ensure_ascii=False) + "\n"


def write_schema(path: Path = SCHEMA_PATH) -> bool:
    """Rewrite the committed schema; True when it changed."""
    text = schema_text()
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
