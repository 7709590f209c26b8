"""The golden store: recorded agent trajectories that a candidate is replayed against.

A golden is the contract a candidate is held to: which tools it should call, in what order,
how it should end, and how good its answer was when the golden was recorded. The SQL suite
reuses the same type for its questions (see ``eval.sql.grading.candidates``), so this module knows
nothing about SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.core.errors import HarnessError
from eval.core.jsonl import json_file

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"

_REQUIRED = ("trajectory_id", "task_class", "inputs", "expected_tools", "baseline_score", "expected_output")
_OPTIONAL = ("description",)


class GoldenError(HarnessError):
    """A golden file that cannot be used; the message names the file and what to fix."""


@dataclass(frozen=True)
class ExpectedOutput:
    final_status: str
    """Terminal status the agent reached, e.g. ``completed`` or ``failed``."""
    output_text_excerpt: str
    """A passage of the recorded answer; the offline evaluator scores against it."""


@dataclass(frozen=True)
class GoldenTrajectory:
    trajectory_id: str
    """Unique id; recordings are looked up by it."""
    task_class: str
    """Grouping used in the report (for SQL questions: the stratum)."""
    inputs: dict[str, Any]
    """What the agent was given. Trajectory goldens carry ``prompt``; SQL questions carry
    ``question``, ``fixture`` and the rest of the question."""
    expected_tools: tuple[str, ...]
    """Tool names in call order; an exact ordered match is required."""
    baseline_score: float
    """Quality score (0..1) of the recorded answer; drift is measured against it."""
    expected_output: ExpectedOutput
    description: str = ""
    source: str = field(default="", compare=False)
    """Where the golden came from (a file path), for error messages."""


def parse_golden(data: Any, source: str) -> GoldenTrajectory:
    """Validate one golden's JSON object; every problem names ``source``."""
    if not isinstance(data, dict):
        raise GoldenError(f"{source}: a golden must be a JSON object, got {type(data).__name__}")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise GoldenError(f"{source}: missing required key(s) {', '.join(missing)}")
    unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise GoldenError(f"{source}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(_REQUIRED + _OPTIONAL)}")
    tid = data["trajectory_id"]
    if not isinstance(tid, str) or not tid.strip():
        raise GoldenError(f"{source}: trajectory_id must be a non-empty string")
    where = f"{source} ({tid})"
    if not isinstance(data["task_class"], str) or not data["task_class"]:
        raise GoldenError(f"{where}: task_class must be a non-empty string")
    inputs = data["inputs"]
    if isinstance(inputs, str):
        inputs = {"prompt": inputs}
    if not isinstance(inputs, dict):
        raise GoldenError(f"{where}: inputs must be an object or the prompt string")
    tools = data["expected_tools"]
    if not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools):
        raise GoldenError(f"{where}: expected_tools must be a list of tool names")
    score = data["baseline_score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
        raise GoldenError(f"{where}: baseline_score must be a number between 0 and 1, got {score!r}")
    out = data["expected_output"]
    if not isinstance(out, dict) or not isinstance(out.get("final_status"), str) or not out["final_status"]:
        raise GoldenError(f"{where}: expected_output.final_status must be a non-empty string")
    excerpt = out.get("output_text_excerpt", "")
    if not isinstance(excerpt, str):
        raise GoldenError(f"{where}: expected_output.output_text_excerpt must be a string")
    return GoldenTrajectory(
        trajectory_id=tid,
        task_class=data["task_class"],
        inputs=dict(inputs),
        expected_tools=tuple(tools),
        baseline_score=float(score),
        expected_output=ExpectedOutput(out["final_status"], excerpt),
        description=str(data.get("description", "")),
        source=source,
    )


def load_golden_file(path: Path) -> GoldenTrajectory:
    data = json_file(path, GoldenError, missing="cannot read golden: no such file", unreadable="not a golden")
    return parse_golden(data, str(path))


def load_goldens(directory: Path = GOLDEN_DIR) -> list[GoldenTrajectory]:
    """Load every ``*.json`` golden in ``directory``, sorted by id; all-or-nothing.

    Raises:
        GoldenError: the directory has no goldens, a file is malformed, or two share an id.
    """
    files = sorted(Path(directory).glob("*.json"))
    if not files:
        raise GoldenError(f"{directory}: no golden files (*.json) found")
    goldens: dict[str, GoldenTrajectory] = {}
    for path in files:
        golden = load_golden_file(path)
        if golden.trajectory_id in goldens:
            first = goldens[golden.trajectory_id].source
            raise GoldenError(f"{path}: trajectory_id {golden.trajectory_id!r} is already used by {first}")
        goldens[golden.trajectory_id] = golden
    return [goldens[k] for k in sorted(goldens)]
