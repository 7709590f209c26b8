"""``docs/eval/writing-a-corpus.md`` followed step by step: from an empty folder to a gated CI run.

Each ```` ```sh ```` block after ``<!-- step: exit N -->`` runs, in page order, in one folder that starts
empty, in a subprocess of its own (``bash``, ``python`` the interpreter running the tests, importing the
harness under test), and must exit ``N``; each ```` ```text ```` block after ``<!-- output -->`` holds lines
the step before must print. Then the CI example's Gate step runs as GitHub Actions would run it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from eval.sql.corpus import json_schema
from eval.sql.corpus.questions import QUESTION_KEYS

BACKEND = Path(__file__).resolve().parents[4]
PAGE = BACKEND.parent / "docs" / "eval" / "writing-a-corpus.md"
README = BACKEND.parent / "README.md"
STEP = re.compile(r"<!-- step: exit (\d) -->\n```sh\n(.*?)\n```\n", re.DOTALL)
OUTPUT = re.compile(r"<!-- output -->\n```text\n(.*?)\n```\n", re.DOTALL)
MARKER = re.compile(r"<!-- (step: exit \d|output) -->")


@dataclass
class Step:
    script: str
    exit_code: int
    prints: list[str]


def page_steps(text: str) -> list[Step]:
    """The tested blocks in page order; a marker whose block does not follow it is an error, not a skip."""
    steps: list[Step] = []
    for marker in MARKER.finditer(text):
        if marker.group(1) == "output":
            block = OUTPUT.match(text, marker.start())
            assert block and steps, f"an output block at offset {marker.start()} follows no step"
            steps[-1].prints += [line for line in block.group(1).splitlines() if line.strip()]
        else:
            block = STEP.match(text, marker.start())
            assert block, f"a step marker at offset {marker.start()} is not followed by a ```sh block"
            steps.append(Step(block.group(2), int(block.group(1)), []))
    return steps


def environment(tmp_path: Path) -> dict[str, str]:
    """A clean shell where ``python`` is this interpreter and imports the harness being tested."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVAL_", "GITHUB_", "NL_SQL_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(BACKEND)
    env["HOME"] = str(tmp_path)
    return env


def run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", "set -e\n" + script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_the_page_is_linked_from_the_readme_and_names_every_key():
    assert "(docs/eval/writing-a-corpus.md)" in README.read_text(encoding="utf-8")
    text = PAGE.read_text(encoding="utf-8")
    assert "(sql-corpus.schema.json)" in text
    assert len(page_steps(text)) >= 8
    missing = [k for k in QUESTION_KEYS if k not in ("static", "fixture", "database", "difficulty", "column_order")]
    assert [k for k in missing if f"`{k}" not in text] == [], "the page's short key list misses a key"


def test_the_step_parser_refuses_a_marker_without_its_block():
    with pytest.raises(AssertionError, match="not followed by a ```sh block"):
        page_steps("<!-- step: exit 0 -->\n```bash\necho hi\n```\n")


@pytest.mark.slow
def test_following_the_page_from_an_empty_folder_to_a_gated_ci_run(tmp_path):
    folder = tmp_path / "shop"
    folder.mkdir()
    env = environment(tmp_path)
    steps = page_steps(PAGE.read_text(encoding="utf-8"))
    for number, step in enumerate(steps, 1):
        proc = run(step.script, folder, env)
        said = proc.stdout + proc.stderr
        assert proc.returncode == step.exit_code, (
            f"step {number} exited {proc.returncode}, the page says {step.exit_code}:\n"
            f"{step.script}\n---\n{said[-3000:]}"
        )
        for line in step.prints:
            assert line in said, f"step {number} did not print {line!r}:\n{said[-3000:]}"

    corpus = yaml.safe_load((folder / "questions" / "questions.yaml").read_text(encoding="utf-8"))
    assert Draft202012Validator(json_schema.corpus_schema()).is_valid(corpus)  # the worked example, by the schema
    assert (folder / "questions" / "baselines" / "recorded--shop-bot-v1.json").is_file()

    workflow = yaml.safe_load(PAGE.read_text(encoding="utf-8").split("```yaml\n", 1)[1].split("\n```", 1)[0])
    gate = next(s for s in workflow["jobs"]["gate"]["steps"] if s.get("name") == "Gate")
    assert gate["working-directory"] == "shop" and "--fail-on-regression --strict" in gate["run"]
    summary = tmp_path / "summary.md"
    ci_env = {**env, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    proc = run(gate["run"], folder, ci_env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "PASSED" in summary.read_text(encoding="utf-8")
