"""Shared builders for harness tests: goldens and recordings written to temporary folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.trajectory.store import ExpectedOutput, GoldenTrajectory


def make_golden(
    tid: str = "g-1",
    tools=("search", "answer"),
    status: str = "completed",
    score: float = 0.8,
    excerpt: str = "the answer is forty two",
    task_class: str = "qa",
) -> GoldenTrajectory:
    return GoldenTrajectory(
        trajectory_id=tid,
        task_class=task_class,
        inputs={"prompt": "q"},
        expected_tools=tuple(tools),
        baseline_score=score,
        expected_output=ExpectedOutput(status, excerpt),
    )


def golden_json(
    tid: str,
    tools=("search", "answer"),
    status="completed",
    score=0.8,
    excerpt="the answer is forty two",
    task_class="qa",
) -> dict:
    return {
        "trajectory_id": tid,
        "task_class": task_class,
        "inputs": {"prompt": f"prompt for {tid}"},
        "expected_tools": list(tools),
        "baseline_score": score,
        "expected_output": {"final_status": status, "output_text_excerpt": excerpt},
    }


def recording_json(tools=("search", "answer"), status="completed", text="the answer is forty two") -> dict:
    events = [{"type": "message", "text": "thinking"}] + [{"type": "tool_call", "name": t} for t in tools]
    out = {"events": events, "output_text": text}
    if status is not None:
        out["final_status"] = status
    return out


@pytest.fixture
def golden_dir(tmp_path: Path) -> Path:
    d = tmp_path / "golden"
    d.mkdir()
    for tid, tc in (("a-1", "alpha"), ("b-2", "beta"), ("c-3", "alpha")):
        (d / f"{tid}.json").write_text(json.dumps(golden_json(tid, task_class=tc)))
    return d


@pytest.fixture
def recorded_dir(tmp_path: Path) -> Path:
    d = tmp_path / "recorded"
    d.mkdir()
    for tid in ("a-1", "b-2", "c-3"):
        (d / f"{tid}.json").write_text(json.dumps(recording_json()))
    return d
