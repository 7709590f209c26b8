"""Characterisation: the built-in run's JSON, Markdown, JUnit and HTML, pinned byte for byte (after timings and
timestamps are normalised).

The run model and the packages are being reshaped; this test is what proves a move moved code and
nothing else. It runs the built-in generator in a fresh process, as ``make eval`` does. A change of
output made on purpose re-records the snapshots (``EVAL_UPDATE_SNAPSHOTS=1 pytest
eval/tests/run/test_characterisation.py``) in the commit that makes it, and that commit names the change.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BACKEND = Path(__file__).resolve().parents[3]
SNAPSHOTS = Path(__file__).parents[1] / "data" / "characterisation"
UPDATE = os.environ.get("EVAL_UPDATE_SNAPSHOTS") == "1"

_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_JUNIT_TIME = re.compile(r' time="[0-9.]+"')
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_TIMED_LINES = ("Model latency over", "Efficiency (reference time")
_TIMED_PROPERTIES = ('<property name="costs.latency"', '<property name="costs.efficiency"')
_TIMED_KEYS = {"model_ms", "candidate_ms", "reference_ms", "total", "p50", "p95", "min", "p25", "median", "p75", "max"}
_TIMED_HTML = (
    re.compile(r'(<p class="muted cost">)([^<]*)(</p>)'),  # a question's model, SQL and reference times
    re.compile(r'(<div id="costs">)(.*?)(</div>)'),  # the latency and efficiency sentences
    re.compile(r'(data-cell="(?:total|p50|p95|min|p25|median|p75|max)">)([^<]*)(<)'),  # their tables' cells
)


def _timeless(value: Any, under: str = "") -> Any:
    """Costs with every measured duration and ratio replaced by a marker (their presence is kept)."""
    if isinstance(value, dict):
        return {k: _timeless(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_timeless(v, under) for v in value]
    if under in _TIMED_KEYS and isinstance(value, int | float):
        return "<measured>"
    return value


def normalise(kind: str, text: str) -> str:
    text = _STAMP.sub("<timestamp>", text)
    if kind == "junit":
        text = _JUNIT_TIME.sub(' time="<t>"', text)
        return (
            "\n".join(
                _NUMBER.sub("<n>", line) if line.strip().startswith(_TIMED_PROPERTIES) else line
                for line in text.splitlines()
            )
            + "\n"
        )
    if kind == "html":
        for timed in _TIMED_HTML:
            text = timed.sub(lambda m: m.group(1) + _NUMBER.sub("<n>", m.group(2)) + m.group(3), text)
        return text
    if kind == "markdown":
        return "\n".join(
            _NUMBER.sub("<n>", line) if line.startswith(_TIMED_LINES) else line for line in text.splitlines()
        )
    data = json.loads(text)
    data["costs"] = _timeless(data.get("costs"))
    for question in data.get("questions", []):
        question["cost"] = _timeless(question.get("cost"))
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


@pytest.fixture(scope="module")
def builtin_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("characterisation")
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(out)}
    for var in ("NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY", "GITHUB_ACTIONS"):
        env.pop(var, None)
    files = {"json": out / "run.json", "markdown": out / "run.md", "junit": out / "run.xml", "html": out / "run.html"}
    proc = subprocess.run(
        [sys.executable, "-m", "eval.run", "--suite", "sql"]
        + ["--json", str(files["json"]), "--markdown", str(files["markdown"]), "--junit", str(files["junit"])]
        + ["--html", str(files["html"])],
        cwd=BACKEND,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {kind: normalise(kind, path.read_text(encoding="utf-8")) for kind, path in files.items()}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "name"),
    [("json", "builtin.json"), ("markdown", "builtin.md"), ("junit", "builtin.xml"), ("html", "builtin.html")],
)
def test_the_builtin_run_renders_as_pinned(builtin_run: dict[str, str], kind: str, name: str) -> None:
    snapshot = SNAPSHOTS / name
    if UPDATE:
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(builtin_run[kind], encoding="utf-8")
    assert snapshot.exists(), f"{snapshot} is missing: record it with EVAL_UPDATE_SNAPSHOTS=1"
    expected = snapshot.read_text(encoding="utf-8")
    assert builtin_run[kind] == expected, f"{kind} differs from {snapshot}; if on purpose, re-record and say so"


def test_normalising_keeps_what_is_not_a_timing() -> None:
    """The normaliser must not hide a verdict: only timings and stamps are replaced."""
    run = {
        "generated_at": "2026-01-02T03:04:05Z",
        "summary": {"pass": 64, "total": 148},
        "costs": {"model_latency_ms": {"total": 270.0, "p50": 1.6}, "prompt_tokens": 12},
        "questions": [{"verdict": "pass", "cost": {"model_ms": 1.5, "prompt_tokens": 7}}],
    }
    out = json.loads(normalise("json", json.dumps(run)))
    assert out == {
        "generated_at": "<timestamp>",
        "summary": {"pass": 64, "total": 148},
        "costs": {"model_latency_ms": {"total": "<measured>", "p50": "<measured>"}, "prompt_tokens": 12},
        "questions": [{"verdict": "pass", "cost": {"model_ms": "<measured>", "prompt_tokens": 7}}],
    }
    md = normalise(
        "markdown", "Pass rate 59.3%\nModel latency over 148 asks (1 per question, 148 questions): p50 1.6 ms"
    )
    assert md == "Pass rate 59.3%\nModel latency over <n> asks (<n> per question, <n> questions): p<n> <n> ms"
    page = normalise(
        "html",
        '<td class="num v-pass" data-count="pass">64</td><p class="muted cost">model 1.757 ms, SQL 0.5 ms</p>\n'
        '<td class="num" data-cell="p50">1.757 ms</td><td class="num" data-cell="n">63</td>',
    )
    assert page == (
        '<td class="num v-pass" data-count="pass">64</td><p class="muted cost">model <n> ms, SQL <n> ms</p>\n'
        '<td class="num" data-cell="p50"><n> ms</td><td class="num" data-cell="n">63</td>'
    )
    junit = normalise(
        "junit",
        '<property name="pass_rate" value="59.3% (64/108)" />\n'
        '<property name="costs.latency" value="model latency over 148 asks: p50 2.704 ms" />',
    )
    assert junit == (
        '<property name="pass_rate" value="59.3% (64/108)" />\n'
        '<property name="costs.latency" value="model latency over <n> asks: p<n> <n> ms" />\n'
    )
