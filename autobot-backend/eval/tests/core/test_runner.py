import asyncio
import json

import pytest

from eval.core.errors import HarnessError
from eval.core.runner import CandidateUnavailable, timeout_from_env
from eval.trajectory.candidates import echo_candidate, recorded_candidate
from eval.trajectory.contract import CandidateResult, replay

from ..conftest import make_golden, recording_json


def test_hanging_candidate_times_out_and_run_goes_on():
    async def candidate(golden):
        if golden.trajectory_id == "slow":
            await asyncio.sleep(10)
        return CandidateResult(response_text="ok", tool_sequence=[], final_status="completed")

    replays = replay([make_golden("slow"), make_golden("fast")], candidate, timeout_s=0.05)
    assert replays[0].result is None and replays[0].failure.startswith("timeout")
    assert replays[1].result is not None and replays[1].failure is None


def test_crashing_and_unavailable_candidates_cost_one_golden_each():
    async def candidate(golden):
        if golden.trajectory_id == "boom":
            raise RuntimeError("kaput")
        if golden.trajectory_id == "gone":
            raise CandidateUnavailable("endpoint down")
        return CandidateResult(final_status="completed")

    replays = replay([make_golden("boom"), make_golden("gone"), make_golden("fine")], candidate, timeout_s=5)
    assert replays[0].failure == "candidate crashed: RuntimeError: kaput"
    assert replays[1].failure == "unavailable: endpoint down"
    assert replays[2].result.final_status == "completed"


def test_non_result_return_is_a_failure_not_a_crash():
    async def candidate(golden):
        return {"final_status": "completed"}

    [r] = replay([make_golden()], candidate, timeout_s=5)
    assert r.result is None and "not CandidateResult" in r.failure


@pytest.mark.parametrize("raw, expected", [(None, 120.0), ("", 120.0), ("2.5", 2.5)])
def test_timeout_from_env(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv("EVAL_REPLAY_TIMEOUT_S", raising=False)
    else:
        monkeypatch.setenv("EVAL_REPLAY_TIMEOUT_S", raw)
    assert timeout_from_env() == expected


@pytest.mark.parametrize("raw", ["soon", "0", "-1"])
def test_bad_timeout_env_is_a_clear_error(monkeypatch, raw):
    monkeypatch.setenv("EVAL_REPLAY_TIMEOUT_S", raw)
    with pytest.raises(HarnessError, match="EVAL_REPLAY_TIMEOUT_S"):
        timeout_from_env()


def test_echo_returns_the_goldens_own_expectations():
    g = make_golden(tools=("a", "b"), status="done", excerpt="text")
    result = asyncio.run(echo_candidate()(g))
    assert (result.tool_sequence, result.final_status, result.response_text) == (["a", "b"], "done", "text")


def test_recorded_candidate_reads_tools_from_tool_events(tmp_path):
    rec = recording_json(tools=("search", "read"), text="hello")
    rec["events"].insert(1, {"type": "tool_use", "tool": "lookup"})
    (tmp_path / "g-1.json").write_text(json.dumps(rec))
    result = asyncio.run(recorded_candidate(tmp_path)(make_golden()))
    assert result.tool_sequence == ["lookup", "search", "read"]
    assert result.final_status == "completed" and result.response_text == "hello"


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no recorded run"),
        ("{not json", "not valid JSON"),
        (json.dumps(recording_json(status=None)), "no final_status"),
        (json.dumps([1, 2]), "not a JSON object"),
        (json.dumps({"final_status": "completed", "events": [{"type": "tool_call"}]}), "without a tool name"),
    ],
)
def test_unusable_recording_makes_that_golden_unavailable(tmp_path, content, message):
    if content is not None:
        (tmp_path / "g-1.json").write_text(content)
    [r] = replay([make_golden()], recorded_candidate(tmp_path), timeout_s=5)
    assert r.result is None
    assert r.failure.startswith("unavailable:") and message in r.failure
