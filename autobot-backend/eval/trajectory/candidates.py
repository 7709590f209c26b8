"""Trajectory-suite candidates: the self-consistency echo and recorded runs.

The SQL suite's candidates live in ``eval.sql.grading.candidates``; they implement the same
``CandidateRunner`` contract.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.core.jsonl import json_file
from eval.core.runner import CandidateUnavailable
from eval.trajectory.contract import CandidateResult, CandidateRunner
from eval.trajectory.store import GoldenTrajectory

RECORDED_DIR = Path(__file__).resolve().parents[1] / "recorded"
TOOL_EVENT_TYPES = frozenset({"tool_call", "tool_use"})

ECHO_WARNING = (
    "UNMEASURED: the self-consistency candidate echoes each golden's own recording and cannot "
    "fail. Nothing about the agent was measured. Record runs into eval/recorded/ (or pass "
    "--recorded-dir) to measure a real candidate."
)


def echo_candidate() -> CandidateRunner:
    """A candidate that answers with the golden's own expectations (a harness smoke test)."""

    async def run(golden: GoldenTrajectory) -> CandidateResult:
        return CandidateResult(
            response_text=golden.expected_output.output_text_excerpt,
            tool_sequence=list(golden.expected_tools),
            final_status=golden.expected_output.final_status,
            model="self-consistency-echo",
        )

    return run


def _tool_name(event: dict[str, Any]) -> str | None:
    for key in ("name", "tool", "tool_name"):
        value = event.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def parse_recording(data: Any, source: str) -> CandidateResult:
    """Turn one recorded run into a result; anything unusable raises ``CandidateUnavailable``."""
    if not isinstance(data, dict):
        raise CandidateUnavailable(f"{source}: recording is not a JSON object")
    status = data.get("final_status")
    if not isinstance(status, str) or not status:
        raise CandidateUnavailable(f"{source}: recording has no final_status")
    events = data.get("events", [])
    if not isinstance(events, list):
        raise CandidateUnavailable(f"{source}: events must be a list")
    tools: list[str] = []
    for i, event in enumerate(events):
        if isinstance(event, dict) and event.get("type") in TOOL_EVENT_TYPES:
            name = _tool_name(event)
            if name is None:
                raise CandidateUnavailable(f"{source}: event {i} is a tool call without a tool name")
            tools.append(name)
    text = data.get("output_text", "")
    if not isinstance(text, str):
        raise CandidateUnavailable(f"{source}: output_text must be a string")
    return CandidateResult(response_text=text, tool_sequence=tools, final_status=status, model="recorded")


def recorded_candidate(directory: Path = RECORDED_DIR) -> CandidateRunner:
    """A candidate that answers each golden from ``<directory>/<trajectory_id>.json``."""
    directory = Path(directory)

    async def run(golden: GoldenTrajectory) -> CandidateResult:
        path = directory / f"{golden.trajectory_id}.json"
        data = json_file(
            path,
            CandidateUnavailable,
            missing="no recorded run for this golden",
            unreadable="recording is not valid JSON",
        )
        return parse_recording(data, str(path))

    return run


def has_recordings(directory: Path) -> bool:
    return Path(directory).is_dir() and any(Path(directory).glob("*.json"))
